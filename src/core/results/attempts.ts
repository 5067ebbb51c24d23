import { recordTaskKey } from './taskKey';
import type { TrialOutcome, TrialRecord } from './trial';

/**
 * Which attempts of a run are still to be made — the resume plan. A run promises `attempts` attempts
 * of its agent on each of its tasks; its ledger holds one record per try. An attempt is done once any
 * of its tries reached an outcome that is not the harness's (a verdict, a counted failure, a verifier
 * OOM): that trial is never redone, so a resumed run cannot reroll an attempt it did not like. An
 * attempt with no record (never started, or its process was killed mid-trial), or whose tries all
 * ended cancelled or in infrastructure errors, is run again, its try numbers continuing after the last
 * one so the band still reads the newest try as the attempt's.
 */
export interface RunPlan {
  /** Task paths as the run recorded them (run.json `tasks`, the records' `task`). */
  readonly tasks: readonly string[];
  readonly attempts: number;
  /** The run's agent spec: records of another agent (a foreign line) are not this run's attempts. */
  readonly agent?: string;
}

export type RemainingReason = 'missing' | 'cancelled' | 'infra-error';

export interface RemainingAttempt {
  /** The task path as the plan gives it. */
  readonly task: string;
  readonly attempt: number;
  readonly reason: RemainingReason;
  /** The try number the next trial of this attempt gets (1 + the highest try recorded). */
  readonly nextTry: number;
}

export interface AttemptsPlan {
  readonly planned: number;
  /** Attempts that reached an outcome: never run again. */
  readonly done: number;
  readonly remaining: readonly RemainingAttempt[];
  /** Remaining attempts by why they are remaining. */
  readonly byReason: Readonly<Record<RemainingReason, number>>;
}

/** Outcomes that leave an attempt to be made again: they say nothing about the agent or the task. */
const NOT_AN_OUTCOME: ReadonlySet<TrialOutcome> = new Set<TrialOutcome>(['infra-error', 'cancelled']);

export function attemptReachedOutcome(outcome: TrialOutcome): boolean {
  return !NOT_AN_OUTCOME.has(outcome);
}

const keyOf = (task: string, attempt: number): string => `${recordTaskKey({ task })}\u0000${attempt}`;

/**
 * Where one job stands, from its recorded tries — the rule both resumes share (`run --resume` per
 * attempt, `validate --resume` per check): done once any try reached an outcome; else to be made
 * again, with why and the try number it continues at.
 */
export interface JobState {
  /** The tries recorded for the job, by try number. */
  readonly tries: readonly TrialRecord[];
  /** The last try that reached an outcome; set: the job is never run again. */
  readonly reached?: TrialRecord;
  /** Why a job without an outcome is to be made again. */
  readonly reason?: RemainingReason;
  /** The try number its next trial gets (1 + the highest recorded). */
  readonly nextTry: number;
}

const tryOf = (r: TrialRecord): number => r.try ?? 1;

export function jobState(tries: readonly TrialRecord[]): JobState {
  const sorted = [...tries].sort((a, b) => tryOf(a) - tryOf(b));
  const nextTry = sorted.reduce((m, r) => Math.max(m, tryOf(r)), 0) + 1;
  const reached = [...sorted].reverse().find((r) => attemptReachedOutcome(r.outcome));
  if (reached) return { tries: sorted, reached, nextTry };
  const last = sorted[sorted.length - 1];
  const reason: RemainingReason = !last ? 'missing' : last.outcome === 'cancelled' ? 'cancelled' : 'infra-error';
  return { tries: sorted, reason, nextTry };
}

/** Records grouped by a job key (a ledger read once, looked up per job). */
export function groupTries(records: readonly TrialRecord[], key: (r: TrialRecord) => string | undefined): Map<string, TrialRecord[]> {
  const tries = new Map<string, TrialRecord[]>();
  for (const r of records) {
    const k = key(r);
    if (k === undefined) continue;
    const list = tries.get(k);
    if (list) list.push(r);
    else tries.set(k, [r]);
  }
  return tries;
}

export function remainingAttempts(plan: RunPlan, records: readonly TrialRecord[]): AttemptsPlan {
  const tries = groupTries(records, (r) => (plan.agent !== undefined && r.agent !== plan.agent ? undefined : keyOf(r.task, r.attempt)));
  const remaining: RemainingAttempt[] = [];
  const byReason: Record<RemainingReason, number> = { missing: 0, cancelled: 0, 'infra-error': 0 };
  let done = 0;
  // Attempt-major order, as a fresh run schedules them: every task's first attempt before any second.
  for (let attempt = 1; attempt <= plan.attempts; attempt++) {
    for (const task of plan.tasks) {
      const state = jobState(tries.get(keyOf(task, attempt)) ?? []);
      if (state.reached) {
        done++;
        continue;
      }
      const reason = state.reason ?? 'missing';
      byReason[reason]++;
      remaining.push({ task, attempt, reason, nextTry: state.nextTry });
    }
  }
  return { planned: plan.attempts * plan.tasks.length, done, remaining, byReason };
}
