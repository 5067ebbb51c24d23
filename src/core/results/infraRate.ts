import { recordTaskKey } from './taskKey';
import type { TrialRecord } from './trial';

/**
 * The share of a run's attempts lost to infrastructure: attempts whose last try ended in an infra
 * error after every retry. A try that failed on the engine and was then retried to a verdict lost
 * nothing, so it is not counted; cancelled attempts (an interrupted run, already its own exit
 * status) are left out of both sides. Above the threshold the run exits non-zero: a run that lost a
 * third of its attempts must not look green.
 */
export interface InfraRate {
  /** Attempts with a last try that is not a cancellation. */
  readonly attempts: number;
  /** Of those, attempts whose last try was an infra error. */
  readonly infra: number;
  /** infra / attempts (0 when there were no attempts). */
  readonly rate: number;
  /** Every infra-error try, retried ones included (shown for the record, not judged). */
  readonly infraTries: number;
  readonly threshold: number;
  readonly exceeded: boolean;
}

/**
 * Tolerated by default: 5% of the attempts. A long run over thousands of trials meets an engine
 * hiccup that outlives its retries now and then; losing more than one attempt in twenty changes the
 * tasks' denominators enough to matter. `--max-infra-rate 0` fails on any loss.
 */
export const DEFAULT_MAX_INFRA_RATE = 0.05;

/** A `run` attempt: task, agent and attempt number (its tries, resumed ones too, share it). */
export function attemptKey(r: Pick<TrialRecord, 'task' | 'agent' | 'attempt'>): string {
  return `${recordTaskKey(r)}\u0000${r.agent}\u0000${r.attempt}`;
}

/**
 * One job of a validation: its task, check and attempt (a resumed check's tries, numbered in another
 * trial folder, count with the old ones); records from before `check` by their trial id without the
 * try suffix (`…-a1-t3` → `…-a1`).
 */
export function jobKey(r: Pick<TrialRecord, 'trial'> & Partial<Pick<TrialRecord, 'task' | 'check' | 'attempt'>>): string {
  return r.check !== undefined && r.task !== undefined ? `${recordTaskKey({ task: r.task })}\u0000${r.check}\u0000${r.attempt ?? 1}` : r.trial.replace(/-t\d+$/, '');
}

export function infraRate(records: readonly TrialRecord[], threshold: number, keyOf: (r: TrialRecord) => string = attemptKey): InfraRate {
  const last = new Map<string, TrialRecord>();
  let infraTries = 0;
  for (const r of records) {
    if (r.outcome === 'infra-error') infraTries++;
    const k = keyOf(r);
    const prev = last.get(k);
    if (!prev || (r.try ?? 1) >= (prev.try ?? 1)) last.set(k, r);
  }
  let attempts = 0;
  let infra = 0;
  for (const r of last.values()) {
    if (r.outcome === 'cancelled') continue;
    attempts++;
    if (r.outcome === 'infra-error') infra++;
  }
  const rate = attempts ? infra / attempts : 0;
  return { attempts, infra, rate, infraTries, threshold, exceeded: rate > threshold };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** One plain line: the count, the rate and the threshold, and whether the run fails on it. */
export function describeInfraRate(r: InfraRate): string | undefined {
  if (r.infra === 0 && r.infraTries === 0) return undefined;
  const retried = r.infraTries > r.infra ? `; ${r.infraTries} infra tries in all, the others retried to an outcome` : '';
  if (r.infra === 0) return `${r.infraTries} trial(s) hit infrastructure errors and were retried to an outcome; no attempt lost`;
  const head = `${r.infra} of ${r.attempts} attempt(s) (${pct(r.rate)}) ended in infrastructure errors after retries${retried}`;
  return r.exceeded
    ? `${head} — more than --max-infra-rate ${r.threshold} (${pct(r.threshold)}): exit status 1`
    : `${head} — within --max-infra-rate ${r.threshold} (${pct(r.threshold)})`;
}
