import path from 'node:path';
import type { Finding } from '../model/finding';
import { range, type Range } from '../model/positions';
import type { Task } from '../model/task';
import type { TrialRecord } from '../results/trial';
import { isVerdict } from '../sandbox/outcome';
import { ORDER_MARK, type BehaviourJob } from './behaviour';
import type { SolvedState } from './solved';
import type { CheckResult } from './types';
import { variationLabel, type Variation } from './variations';
import { verifierFiles } from './verifierText';

/** A finished behavioural job: its final try and that try's verifier output. */
export interface BehaviourRun {
  readonly job: BehaviourJob;
  readonly record?: TrialRecord;
  readonly stdout: string;
}

export interface MutantSurvivor {
  readonly file: string;
  readonly kind: string;
  readonly change: string;
  /** Tests the verifier's report lists as passed on the mutant. */
  readonly passedTests: readonly string[];
}

export interface MutationSummary {
  readonly total: number;
  readonly killed: number;
  readonly survivors: readonly MutantSurvivor[];
  /** The mutation kinds used. */
  readonly kinds: readonly string[];
}

export interface BehaviourInput {
  readonly task: Task;
  /** The snapshot, or why there is none. */
  readonly solved?: SolvedState | string;
  readonly runs: readonly BehaviourRun[];
  /** One variation at a time, for groups whose verdict moved. */
  readonly bisect: readonly BehaviourRun[];
}

export interface BehaviourResult {
  readonly checks: CheckResult[];
  readonly findings: Finding[];
  readonly mutants?: MutationSummary;
}

const passed = (r?: TrialRecord): boolean => r?.outcome === 'passed';
const verdictOf = (rs: readonly BehaviourRun[]): BehaviourRun[] => rs.filter((r) => r.record && isVerdict(r.record.outcome));

export function passedTests(stdout: string): string[] {
  return [...new Set([...stdout.matchAll(/^PASSED\s+\S*?::(\S+)/gm)].map((m) => m[1] as string))];
}

/** The test function that reads an output (its name or path in the body), for the finding's range. */
export function testReading(task: Task, output: string): { file: string; range?: Range; name?: string } {
  const base = path.posix.basename(output);
  for (const f of verifierFiles(task).filter((x) => x.rel.endsWith('.py'))) {
    const lines = f.text.split('\n');
    let fn: { name: string; line: number } | undefined;
    for (let i = 0; i < lines.length; i++) {
      const m = /^\s*def\s+(test\w*)/.exec(lines[i] ?? '');
      if (m) fn = { name: m[1] as string, line: i };
      if (fn && (lines[i] ?? '').includes(base)) return { file: f.rel, range: range(fn.line, 0, fn.line, (lines[fn.line] ?? '').length), name: fn.name };
    }
    if (f.text.includes(base)) return { file: f.rel };
  }
  return { file: task.verifier.entry };
}

const HINTS: Readonly<Record<string, string>> = {
  'tz-east': 'pin TZ=UTC in the test script or compare times in UTC',
  'tz-west': 'pin TZ=UTC in the test script or compare times in UTC',
  'lang-c': 'set LC_ALL=C.UTF-8 in the test script',
  'locale-utf8': 'set LC_ALL=C.UTF-8 (or C) in the test script',
  'columns-narrow': 'set COLUMNS in the test script or do not format by terminal width',
  'columns-wide': 'set COLUMNS in the test script or do not format by terminal width',
  'http-proxy': 'set no_proxy=localhost,127.0.0.1 for local requests, or unset the proxy variables in the test script',
  'cpu-half': 'give the verifier slack: it depends on speed',
};

function mutantCheck(task: Task, runs: readonly BehaviourRun[], checks: CheckResult[], findings: Finding[]): MutationSummary | undefined {
  const all = runs.filter((r) => r.job.kind === 'mutant');
  if (!all.length) { checks.push({ name: 'mutants', status: 'skipped', runs: 0, detail: 'no output the instruction names to mutate' }); return undefined; }
  const v = verdictOf(all);
  const kinds = [...new Set(all.map((r) => r.job.mutant?.mutant.kind ?? ''))];
  if (!v.length) { checks.push({ name: 'mutants', status: 'error', runs: 0, detail: 'no mutant trial gave a verdict' }); return { total: 0, killed: 0, survivors: [], kinds }; }
  const survivors: MutantSurvivor[] = v.filter((r) => passed(r.record)).map((r) => ({
    file: r.job.mutant?.file ?? '', kind: r.job.mutant?.mutant.kind ?? '', change: r.job.mutant?.mutant.description ?? '', passedTests: passedTests(r.stdout),
  }));
  const summary = { total: v.length, killed: v.length - survivors.length, survivors, kinds };
  const score = `${summary.killed}/${summary.total} killed (${kinds.join(', ')})`;
  if (!survivors.length) { checks.push({ name: 'mutants', status: 'pass', runs: v.length, detail: `every wrong output failed: ${score}` }); return summary; }
  checks.push({ name: 'mutants', status: 'fail', runs: v.length, detail: `${survivors.length} wrong output(s) still earned reward: ${score}` });
  for (const file of [...new Set(survivors.map((s) => s.file))]) {
    const mine = survivors.filter((s) => s.file === file);
    const at = testReading(task, file);
    const tests = [...new Set(mine.flatMap((s) => s.passedTests))];
    findings.push({
      rule: 'surviving-mutant', class: 'misalignment', severity: 'error', file: at.file, ...(at.range ? { range: at.range } : {}),
      message: `The verifier accepts wrong output: with ${file} changed (${mine.map((s) => s.change).join('; ')}) it still gave reward${tests.length ? ` (passed: ${tests.join(', ')})` : ''}. Check the content of ${path.posix.basename(file)}, not only that it exists or its shape.`,
    });
  }
  return summary;
}

function envCheck(task: Task, solved: SolvedState, runs: readonly BehaviourRun[], bisect: readonly BehaviourRun[], checks: CheckResult[], findings: Finding[]): void {
  const groups = verdictOf(runs.filter((r) => r.job.kind === 'env'));
  if (!runs.some((r) => r.job.kind === 'env')) return;
  if (!groups.length) { checks.push({ name: 'environment', status: 'error', runs: 0, detail: 'no variation trial gave a verdict' }); return; }
  const moved = groups.filter((g) => !passed(g.record));
  const label = (v: Variation): string => variationLabel(v, solved);
  if (!moved.length) {
    checks.push({ name: 'environment', status: 'pass', runs: groups.length, detail: `verdict unchanged with ${groups.flatMap((g) => g.job.variations ?? []).map(label).join(', ')}` });
    return;
  }
  const culprits: Variation[] = [];
  for (const g of moved) {
    const mine = verdictOf(bisect.filter((b) => b.job.variations?.every((v) => g.job.variations?.includes(v))));
    const failing = mine.filter((b) => !passed(b.record)).flatMap((b) => b.job.variations ?? []);
    // No single variable moves it alone: the combination does; name them all.
    culprits.push(...(failing.length ? failing : g.job.variations ?? []));
  }
  const names = [...new Set(culprits)];
  checks.push({ name: 'environment', status: 'fail', runs: groups.length + bisect.length, detail: `the verdict changed with ${names.map(label).join('; ')}` });
  findings.push({
    rule: 'environment-dependent', class: 'brittleness', severity: 'warning', file: task.verifier.entry,
    message: `The reference solution's output fails when the verifier runs with ${names.map(label).join('; ')} (it passes without): ${[...new Set(names.map((v) => HINTS[v.id] ?? ''))].filter(Boolean).join('; ')}.`,
  });
}

function orderCheck(task: Task, runs: readonly BehaviourRun[], checks: CheckResult[], findings: Finding[]): void {
  const all = runs.filter((r) => r.job.kind === 'order');
  if (!all.length) { checks.push({ name: 'test-order', status: 'skipped', runs: 0, detail: 'the verifier does not run pytest (or the image has no python3)' }); return; }
  const v = verdictOf(all);
  const applied = v.filter((r) => ORDER_MARK.test(r.stdout));
  if (!applied.length) { checks.push({ name: 'test-order', status: 'skipped', runs: 0, detail: v.length ? 'the order plugin did not load in the verifier\'s pytest' : 'no order trial gave a verdict' }); return; }
  const moved = applied.filter((r) => !passed(r.record));
  const modes = applied.map((r) => r.job.order === 'reverse' ? 'reversed' : `shuffled (${r.job.order})`);
  if (!moved.length) { checks.push({ name: 'test-order', status: 'pass', runs: applied.length, detail: `verdict unchanged with the tests ${modes.join(' and ')}` }); return; }
  const how = moved.map((r) => r.job.order === 'reverse' ? 'in reverse order' : `in a seeded random order (${r.job.order})`).join(' and ');
  checks.push({ name: 'test-order', status: 'fail', runs: applied.length, detail: `the verdict changed with the tests ${how}` });
  findings.push({
    rule: 'test-order-dependent', class: 'brittleness', severity: 'warning', file: task.verifier.entry,
    message: `The tests pass in their file order but fail when run ${how}: one test depends on state another leaves behind; make each test set up what it reads.`,
  });
}

function staleCheck(task: Task, runs: readonly BehaviourRun[], checks: CheckResult[], findings: Finding[]): void {
  const r = runs.find((x) => x.job.kind === 'stale');
  if (!r) return;
  if (!r.record || !isVerdict(r.record.outcome) || !r.job.firstRun) { checks.push({ name: 'stale-state', status: 'error', runs: 0, detail: 'the twice-run trial gave no verdict' }); return; }
  if (passed(r.record)) { checks.push({ name: 'stale-state', status: 'pass', runs: 2, detail: 'the verifier passed twice in one container' }); return; }
  checks.push({ name: 'stale-state', status: 'fail', runs: 2, detail: `first run: ${r.job.firstRun.detail}; second run: ${r.record.outcome}` });
  findings.push({
    rule: 'stale-state', class: 'brittleness', severity: 'warning', file: task.verifier.entry,
    message: `The verifier passes once and fails when run again in the same container (second run: ${r.record.outcome}): it consumes or changes what it checks; make it idempotent.`,
  });
}

/** Checks and findings of the behavioural runs; nothing when they were not asked for. */
export function analyzeBehaviour(b: BehaviourInput): BehaviourResult {
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  if (b.solved === undefined) return { checks, findings };
  if (typeof b.solved === 'string') {
    for (const name of ['mutants', 'environment', 'test-order', 'stale-state'] as const) checks.push({ name, status: 'skipped', runs: 0, detail: b.solved });
    return { checks, findings };
  }
  // The twice-run trial's first run is the baseline: a solved state that does not pass from the
  // snapshot (a service the solution started, a process the verifier needs) makes every other
  // snapshot verdict meaningless, so nothing is concluded from them.
  const stale = b.runs.find((r) => r.job.kind === 'stale');
  if (stale?.job.firstRun && (stale.job.firstRun.reward ?? 0) < 1) {
    const why = `the verifier does not pass on the committed solved state (${stale.job.firstRun.detail}): a process the solution started does not survive a snapshot`;
    for (const name of ['mutants', 'environment', 'test-order', 'stale-state'] as const) checks.push({ name, status: 'skipped', runs: 0, detail: why });
    return { checks, findings };
  }
  const mutants = mutantCheck(b.task, b.runs, checks, findings);
  envCheck(b.task, b.solved, b.runs, b.bisect, checks, findings);
  orderCheck(b.task, b.runs, checks, findings);
  staleCheck(b.task, b.runs, checks, findings);
  return { checks, findings, ...(mutants ? { mutants } : {}) };
}
