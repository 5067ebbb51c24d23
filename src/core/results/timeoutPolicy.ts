import type { TrialRecord } from './trial';

/**
 * What an agent timeout means for the attempt. `fail` (the default, and what every record written
 * before the policy existed meant): the attempt is a failure, the verifier does not run. `verifier`:
 * the agent's command in flight is stopped at the deadline and the verifier's verdict on the state it
 * left stands (several teams grade that way). The policy is part of the run's semantics: it is in
 * run.json and in every trial record, and the band counts each record by its own.
 */
export type TimeoutPolicy = 'fail' | 'verifier';
export const TIMEOUT_POLICIES: readonly TimeoutPolicy[] = ['fail', 'verifier'];
export const DEFAULT_TIMEOUT_POLICY: TimeoutPolicy = 'fail';

/** A set of records under one policy, or `mixed` when they differ. */
export type TimeoutPolicySummary = TimeoutPolicy | 'mixed';
export const TIMEOUT_POLICY_SUMMARIES: readonly TimeoutPolicySummary[] = [...TIMEOUT_POLICIES, 'mixed'];

export function recordTimeoutPolicy(r: Pick<TrialRecord, 'timeoutPolicy'>): TimeoutPolicy {
  return r.timeoutPolicy ?? DEFAULT_TIMEOUT_POLICY;
}

/**
 * Whether an attempt's record is a success. Under `fail` an agent that timed out never succeeds,
 * whatever reward a record (an import, a hand-edited ledger) carries; under `verifier` the
 * verifier's pass stands.
 */
export function attemptSucceeded(r: Pick<TrialRecord, 'outcome' | 'timeoutPolicy' | 'agentTimedOut'>): boolean {
  if (r.outcome !== 'passed') return false;
  return !(r.agentTimedOut === true && recordTimeoutPolicy(r) === 'fail');
}

/** The one policy the records share, `mixed` when they differ, undefined for no records. */
export function summarizePolicies(policies: Iterable<TimeoutPolicy>): TimeoutPolicySummary | undefined {
  let seen: TimeoutPolicy | undefined;
  for (const p of policies) {
    if (seen === undefined) seen = p;
    else if (seen !== p) return 'mixed';
  }
  return seen;
}
