import type { Finding } from '../../core/model/finding';
import type { TrialRecord } from '../../core/results/trial';
import { CHECK_NAMES, type CheckName, type CheckResult, type CheckStatus } from '../../core/validate/types';

/**
 * How the Testing view reads a validation: which check each finding belongs to, what each check's
 * status means as a test state, and which trials make up a check's time. Data, so a new rule or
 * check is one row here, not a branch in the controller.
 */

/** The check a validate finding explains (findings not listed stay on the task's item). */
export const FINDING_CHECK: Readonly<Record<string, CheckName>> = {
  'build-fails': 'build',
  'image-missing': 'build',
  'nop-passes': 'nop',
  'oracle-fails': 'oracle',
  'skips-counted-as-passes': 'oracle',
  'flaky-verdict': 'agreement',
  'reward-not-isolated': 'reward-isolation',
  'answer-or-solution-in-image': 'reward-isolation',
  'timeout-margin': 'timeout-margin',
  'surviving-mutant': 'mutants',
  'environment-dependent': 'environment',
  'test-order-dependent': 'test-order',
  'stale-state': 'stale-state',
};

export const CHECK_LABEL: Readonly<Record<CheckName, string>> = {
  build: 'build', nop: 'nop fails', oracle: 'oracle passes', agreement: 'agreement', 'reward-isolation': 'reward isolation',
  'timeout-margin': 'timeout margin', mutants: 'mutants', environment: 'environment', 'test-order': 'test order', 'stale-state': 'stale state',
};

export const CHECKS: readonly CheckName[] = CHECK_NAMES;

/** A test state in the Testing API's terms: infra (`error`) is errored, never failed. */
export type TestState = 'passed' | 'failed' | 'errored' | 'skipped';

export const STATE_OF: Readonly<Record<CheckStatus, TestState>> = {
  pass: 'passed', fail: 'failed', error: 'errored', skipped: 'skipped',
};

/** The findings that explain one check. */
export function findingsOf(check: CheckName, findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => FINDING_CHECK[f.rule] === check);
}

/** Findings no check explains (infra, a path outside the task…): reported on the task item. */
export function taskFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => FINDING_CHECK[f.rule] === undefined);
}

function trialSeconds(t: TrialRecord, phases: readonly ('build' | 'agent' | 'verifier')[]): number {
  return phases.reduce((n, p) => n + (t.durations[p] ?? 0), 0);
}

/**
 * Milliseconds spent on a check, from the trials that ran it (undefined when none is known, e.g. a
 * validation restored from the store, which keeps verdicts but not trials).
 */
export function checkDurationMs(check: CheckName, trials: readonly TrialRecord[]): number | undefined {
  const pick = (p: (t: TrialRecord) => boolean, phases: readonly ('build' | 'agent' | 'verifier')[]): number | undefined => {
    const ts = trials.filter(p);
    return ts.length ? Math.round(ts.reduce((n, t) => n + trialSeconds(t, phases), 0) * 1000) : undefined;
  };
  switch (check) {
    case 'build': return pick(() => true, ['build']);
    case 'nop': return pick((t) => t.agent === 'nop', ['agent', 'verifier']);
    case 'oracle': return pick((t) => t.agent === 'oracle', ['agent', 'verifier']);
    case 'reward-isolation': return pick((t) => t.agent.startsWith('probe:'), ['agent', 'verifier']);
    default: return undefined;
  }
}

/** The verdict of one Oracle or Nop trial as a check: the oracle must pass, nop must fail; infra is errored. */
export function trialState(agent: 'oracle' | 'nop', t: TrialRecord): { state: TestState; message: string } {
  const reward = t.reward === null ? 'no reward' : `reward ${t.reward}`;
  if (t.outcome === 'infra-error' || t.outcome === 'verifier-oom' || t.outcome === 'cancelled' || t.infra) {
    return { state: 'errored', message: `${t.outcome}${t.infra ? ` — ${t.infra.kind}: ${t.infra.message}` : ''}` };
  }
  const passed = t.outcome === 'passed';
  if (agent === 'oracle') return passed ? { state: 'passed', message: reward } : { state: 'failed', message: `the reference solution did not pass: ${t.outcome}, ${reward}` };
  return passed ? { state: 'failed', message: `an agent that does nothing passed (${reward})` } : { state: 'passed', message: `${t.outcome}, ${reward}` };
}

/** A policy attempt: passed or failed as the verifier said; infra is errored, never the agent's failure. */
export function attemptState(t: TrialRecord): { state: TestState; message: string } {
  if (t.outcome === 'infra-error' || t.outcome === 'verifier-oom' || t.outcome === 'cancelled' || t.infra) {
    return { state: 'errored', message: `${t.outcome}${t.infra ? ` — ${t.infra.kind}: ${t.infra.message}` : ''}` };
  }
  return { state: t.outcome === 'passed' ? 'passed' : 'failed', message: `${t.outcome}, ${t.reward === null ? 'no reward' : `reward ${t.reward}`}` };
}

export type { CheckName, CheckResult };
