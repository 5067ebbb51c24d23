/**
 * Terminal-Bench 1's verdict: the `short test summary info` section that `pytest -rA` prints, read
 * with TB1's parser semantics. A status word opens each line; `FAILED x - reason` loses its reason;
 * the test's name is what follows the first `::`; PASSED, SKIPPED and XFAIL count as passed,
 * FAILED, ERROR and XPASS as failed; a later line for the same name replaces an earlier one. The
 * task is resolved when a summary was found and every parsed test passed.
 */
export type PytestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'XFAIL' | 'XPASS' | 'ERROR';

const COUNTS_AS_PASSED: Readonly<Record<PytestStatus, boolean>> = {
  PASSED: true, SKIPPED: true, XFAIL: true, FAILED: false, XPASS: false, ERROR: false,
};

export interface PytestTestResult {
  readonly name: string;
  readonly status: PytestStatus;
}

export interface PytestSummary {
  /** False when the output has no `short test summary info` section (TB1: a parse error, unresolved). */
  readonly found: boolean;
  readonly tests: readonly PytestTestResult[];
  readonly passed: number;
  readonly failed: number;
  /** Tests that were skipped or xfailed yet count as passed under TB1's semantics. */
  readonly countedSkips: number;
  readonly resolved: boolean;
}

const SUMMARY_HEADER = /=+\s*short test summary info\s*=+/i;

function parseLine(line: string): PytestTestResult | undefined {
  let text = line;
  if (text.startsWith('FAILED')) {
    const parts = text.split(' - ');
    if (parts.length > 1) text = parts.slice(0, -1).join(' - ');
  }
  const m = /^\s*(\S+)\s+(.+)$/.exec(text);
  if (!m) return undefined;
  const status = (m[1] ?? '').replace(/^:+|:+$/g, '');
  if (!(status in COUNTS_AS_PASSED)) return undefined;
  const path = (m[2] ?? '').trim();
  const idx = path.indexOf('::');
  const name = idx >= 0 ? path.slice(idx + 2) : path;
  if (!name) return undefined;
  return { name, status: status as PytestStatus };
}

export function parsePytestSummary(output: string): PytestSummary {
  const at = SUMMARY_HEADER.exec(output);
  if (!at) return { found: false, tests: [], passed: 0, failed: 0, countedSkips: 0, resolved: false };
  // TB1 splits on every header and reads the text after the first one up to the next.
  const rest = output.slice(at.index + at[0].length);
  const next = SUMMARY_HEADER.exec(rest);
  const section = next ? rest.slice(0, next.index) : rest;
  const byName = new Map<string, PytestStatus>();
  for (const line of section.split(/\r?\n/)) {
    const r = parseLine(line);
    if (r) byName.set(r.name, r.status);
  }
  const tests = [...byName].map(([name, status]) => ({ name, status }));
  const passed = tests.filter((t) => COUNTS_AS_PASSED[t.status]).length;
  const countedSkips = tests.filter((t) => t.status === 'SKIPPED' || t.status === 'XFAIL').length;
  const failed = tests.length - passed;
  // TB1 takes `all()` over the parsed results: an empty summary section resolves the task.
  return { found: true, tests, passed, failed, countedSkips, resolved: failed === 0 };
}
