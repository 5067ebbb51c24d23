import type { Finding } from '../model/finding';
import type { GateFailure, GateName } from './types';

const LOG_LIMIT = 3000;

/** Keeps the head and tail of a long log (failures show at either end), with a note of what was cut. */
export function trimLog(text: string, limit = LOG_LIMIT): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n… [${text.length - 2 * half} characters cut] …\n${text.slice(-half)}`;
}

/** `file:line` as a reader counts lines (1-based); the core's ranges are 0-based. */
export function findingLocation(f: Finding): string {
  if (!f.file) return '(task)';
  return f.range ? `${f.file}:${f.range.start.line + 1}` : f.file;
}

export function formatFinding(f: Finding): string {
  return `- ${findingLocation(f)} ${f.severity} [${f.rule}] (${f.class}) ${f.message}`;
}

const GATE_HELP: Readonly<Record<GateName, string>> = {
  truncated: 'The answer was cut at max_tokens (even after a retry with more room): the files did not fit. Submit the same task with fewer and shorter files (small fixtures, no long data inline).',
  schema: 'The submit_task input did not match the schema or the format\'s layout.',
  audit: 'The static audit found defects that make the task invalid, brittle or reward-misaligned.',
  build: 'The environment did not build (offline: no network at build time).',
  nop: 'Doing nothing earned the reward: the tests must fail when the agent does nothing.',
  oracle: 'The reference solution did not earn the reward: the solution or the tests are wrong.',
  agreement: 'Identical runs gave different verdicts: the task is flaky.',
  'reward-isolation': 'Files an agent could plant (conftest.py, pytest.ini, a fake reward file) changed the verdict.',
  calibration: 'The policy solved the task every time or never: it is outside the solvability band.',
};

/**
 * The repair request sent back to the meta-agent: the failing gate, the findings with file and line,
 * the validation checks and the trimmed logs. Plain, structured text — the model answers with a tool call.
 */
export function formatFeedback(failure: GateFailure, round: number, rounds: number): string {
  const lines = [
    `Gate failed: ${failure.gate}`,
    GATE_HELP[failure.gate],
    failure.summary,
  ];
  if (failure.findings.length) {
    lines.push('', 'Findings (file:line, 1-based):', ...failure.findings.map(formatFinding));
  }
  if (failure.checks?.length) {
    lines.push('', 'Validation checks:', ...failure.checks.map((c) => `- ${c.name}: ${c.status} (${c.runs} run(s)) ${c.detail}`));
  }
  if (failure.logs?.trim()) lines.push('', 'Logs (trimmed):', '```', trimLog(failure.logs.trim()), '```');
  lines.push('', `Repair the task (round ${round + 1} of ${rounds}) and submit every file again with submit_task, keeping the same id.`);
  return lines.join('\n');
}

/** One line per failed round, for REJECTED.md and the report. */
export function failureReason(failure: GateFailure): string {
  return `${failure.gate}: ${failure.summary}`;
}
