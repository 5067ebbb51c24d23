import type { InfraKind, TrialOutcome } from '../results/trial';

/**
 * How a trial ended, phase by phase, reduced to exactly one outcome. Kept pure so the rules are
 * tested without an engine. Order matters: cancellation and infrastructure faults say nothing
 * about the agent or the task and win over everything the phases reported.
 */
export interface TrialFacts {
  readonly cancelled?: boolean;
  readonly infra?: { readonly kind: InfraKind; readonly message: string };
  readonly agentTimedOut?: boolean;
  readonly verifierTimedOut?: boolean;
  /** The task's own files cannot be used as they are (a path that leaves the task): no verdict possible. */
  readonly taskProblem?: { readonly rule: string; readonly message: string };
  /** Null when the verifier ran but produced no reward; undefined when it did not run. */
  readonly reward?: number | null;
}

export interface Classified {
  readonly outcome: TrialOutcome;
  readonly reward: number | null;
}

/** A reward at (or within float noise of) 1 is a pass; partial rewards are failures that keep their value. */
export const PASS_THRESHOLD = 1 - 1e-9;

export function classifyTrial(f: TrialFacts): Classified {
  if (f.cancelled) return { outcome: 'cancelled', reward: null };
  if (f.infra) return { outcome: 'infra-error', reward: null };
  // Counted like a verifier that cannot score: the task is at fault, and band marks it broken.
  if (f.taskProblem) return { outcome: 'verifier-error', reward: null };
  if (f.agentTimedOut) return { outcome: 'agent-timeout', reward: null };
  if (f.verifierTimedOut) return { outcome: 'verifier-timeout', reward: null };
  if (f.reward === undefined || f.reward === null || !Number.isFinite(f.reward)) return { outcome: 'verifier-error', reward: null };
  return { outcome: f.reward >= PASS_THRESHOLD ? 'passed' : 'failed', reward: f.reward };
}

/** Outcomes that say something about the agent and the task (infra errors and cancellations do not). */
export function isVerdict(outcome: TrialOutcome): boolean {
  return outcome !== 'infra-error' && outcome !== 'cancelled';
}

/** Back-off before retry `n` (1-based) of an infra error: exponential, capped. */
export function retryDelayMs(n: number, baseMs: number, capMs = 30_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, n - 1));
}
