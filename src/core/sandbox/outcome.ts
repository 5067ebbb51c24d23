import type { TimeoutPolicy } from '../results/timeoutPolicy';
import type { InfraKind, TrialOutcome } from '../results/trial';

/**
 * How a trial ended, phase by phase, reduced to exactly one outcome. Kept pure so the rules are
 * tested without an engine. Order matters: cancellation and infrastructure faults say nothing
 * about the agent or the task and win over everything the phases reported — but a fault is only
 * infrastructure when the evidence for it is out of the agent's reach (see `containerFault`).
 */
export interface TrialFacts {
  readonly cancelled?: boolean;
  readonly infra?: { readonly kind: InfraKind; readonly message: string };
  /** The container stopped by itself while the engine stayed healthy, and in which phase. */
  readonly containerDied?: { readonly phase: TrialPhase; readonly oomKilled: boolean; readonly detail: string };
  /** What the agent's phase left at the tests' or the reward's path could not be removed. */
  readonly harnessTampered?: string;
  /** The engine reported a new OOM kill while the verifier ran (the flag was clear after the agent phase). */
  readonly verifierOom?: boolean;
  readonly agentTimedOut?: boolean;
  /** `verifier`: an agent timeout does not decide the outcome, the verifier's verdict after it does. */
  readonly timeoutPolicy?: TimeoutPolicy;
  readonly verifierTimedOut?: boolean;
  /** The task's own files cannot be used as they are (a path that leaves the task): no verdict possible. */
  readonly taskProblem?: { readonly rule: string; readonly message: string };
  /** Null when the verifier ran but produced no reward; undefined when it did not run. */
  readonly reward?: number | null;
}

export type TrialPhase = 'agent' | 'verifier';

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
  if (f.harnessTampered !== undefined) return { outcome: 'agent-error', reward: null };
  if (f.containerDied) {
    // Only the verifier's own OOM is the task's problem; a container the agent's phase broke (its
    // init killed, or its own program exhausting memory) and a container that died under the
    // verifier for any other reason (something the agent left behind) are counted failures.
    if (f.containerDied.phase === 'verifier' && f.containerDied.oomKilled) return { outcome: 'verifier-oom', reward: null };
    return { outcome: f.containerDied.phase === 'agent' ? 'agent-error' : 'verifier-error', reward: null };
  }
  if (f.agentTimedOut && f.timeoutPolicy !== 'verifier') return { outcome: 'agent-timeout', reward: null };
  if (f.verifierOom) return { outcome: 'verifier-oom', reward: null };
  if (f.verifierTimedOut) return { outcome: 'verifier-timeout', reward: null };
  if (f.reward === undefined || f.reward === null || !Number.isFinite(f.reward)) return { outcome: 'verifier-error', reward: null };
  return { outcome: f.reward >= PASS_THRESHOLD ? 'passed' : 'failed', reward: f.reward };
}

/**
 * Outcomes that say something about the agent and the task: infra errors and cancellations do not,
 * nor does a verifier OOM (the task's limit, shown apart and flagged on the task).
 */
export function isVerdict(outcome: TrialOutcome): boolean {
  return outcome !== 'infra-error' && outcome !== 'cancelled' && outcome !== 'verifier-oom';
}

/** What the engine says about a container after one of the harness's calls on it failed. */
export interface ContainerEvidence {
  /** The engine answered a ping after the failure. */
  readonly engineHealthy: boolean;
  /** Undefined when the container no longer exists (or could not be inspected). */
  readonly state?: { readonly running: boolean; readonly oomKilled: boolean; readonly exitCode: number | null };
  /** The failure itself was a connection-level fault talking to the engine. */
  readonly engineFault: boolean;
}

/**
 * Whether a failed harness call was the engine's fault or the container's own death. The agent can
 * stop its container (`kill 1`, `kill -9 -1`, exhausting memory) but cannot make the engine
 * unreachable, forge its ping or the container's recorded state, so only those decide: a healthy
 * engine reporting a stopped container means the container died from within.
 */
export function containerFault(e: ContainerEvidence): 'engine' | 'container-died' {
  if (e.engineFault || !e.engineHealthy) return 'engine';
  if (e.state && !e.state.running) return 'container-died';
  return 'engine';
}

/**
 * The phase a container died in, when it was found dead after the agent's phase: by its lifetime on
 * the engine's clock against how long it had lived when the agent's phase ended (on ours; both are
 * durations, so the clocks' offset cancels). A `kill 1` takes a moment to show in the engine's
 * record; a death within `graceMs` of the phase's end is the agent's.
 */
export function deathPhase(lifetimeMs: number | undefined, agentEndedAfterMs: number | undefined, graceMs = 2000): TrialPhase {
  if (lifetimeMs === undefined || agentEndedAfterMs === undefined) return 'verifier';
  return lifetimeMs <= agentEndedAfterMs + graceMs ? 'agent' : 'verifier';
}

/** Back-off before retry `n` (1-based) of an infra error: exponential, capped. */
export function retryDelayMs(n: number, baseMs: number, capMs = 30_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, n - 1));
}
