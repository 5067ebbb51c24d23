import type { TimeoutPolicy } from './timeoutPolicy';

/**
 * The results store's record of one finished trial (one line of `.taskwright/runs/<run>/trials.jsonl`).
 * Every trial ends as exactly one outcome; `infra-error` is the harness's fault and never counts as
 * the agent's failure.
 */
export type TrialOutcome =
  | 'passed'
  | 'failed'
  | 'agent-timeout'
  | 'verifier-timeout'
  | 'verifier-error'
  | 'infra-error'
  | 'cancelled'
  /** The agent's phase broke its own container (killed its init, crashed it): a counted failed attempt. */
  | 'agent-error'
  /** The engine OOM-killed the verifier: the task's memory limit is too tight for its own verifier; not an attempt. */
  | 'verifier-oom';

export const TRIAL_OUTCOMES: readonly TrialOutcome[] = [
  'passed', 'failed', 'agent-timeout', 'verifier-timeout', 'verifier-error', 'infra-error', 'cancelled',
  'agent-error', 'verifier-oom',
];

export type InfraKind =
  | 'build-failed'
  | 'engine-unreachable'
  | 'engine-timeout'
  | 'disk-full'
  | 'image-missing'
  | 'container-start'
  | 'copy-failed'
  | 'exec-failed'
  | 'harness-timeout'
  | 'possibly-infra'
  /** Kubernetes: the Pod stayed Pending because no node could take it. */
  | 'unschedulable'
  /** Kubernetes: the node could not pull the task's image from the registry. */
  | 'image-pull'
  /** Kubernetes: the cluster took the Pod away (eviction, preemption, a drained node). */
  | 'evicted'
  /** Kubernetes: the API server failed a call (5xx, 429) or refused the credentials. */
  | 'api-error'
  /** Kubernetes: an exec stream was cut before the command's status arrived. */
  | 'exec-lost'
  /** The model server could not be reached (refused, DNS, timed out, 5xx after retries). */
  | 'provider-unreachable'
  /** The model server refused the key (401/403) or does not know the model (404): the run stops. */
  | 'provider-refused'
  | 'other';

export interface TrialDurations {
  /** Seconds; null when the phase did not run. */
  readonly build: number | null;
  readonly agent: number | null;
  readonly verifier: number | null;
}

export interface TrialRecord {
  /** Unique id of the trial within its run. */
  readonly trial: string;
  /** Task path (as given to the run, or relative to the workspace). */
  readonly task: string;
  /** Task id (folder name). */
  readonly taskId?: string;
  readonly agent: string;
  readonly model?: string;
  readonly checkpoint?: string;
  /**
   * validate: which check this trial is (the job's label: `nop`, `oracle`, `probe-conftest`,
   * `mutant-3`, `env-a`, …). With the task and the attempt it names the check a resume matches, so a
   * check that reached a verdict is never run again.
   */
  readonly check?: string;
  /** 1-based attempt number of this task in the run (infra retries keep the same attempt number). */
  readonly attempt: number;
  /** Which try of this attempt (1 + number of infra retries before it). */
  readonly try?: number;
  readonly outcome: TrialOutcome;
  /** Reward in [0,1] when the verifier produced one, else null. */
  readonly reward: number | null;
  readonly startedAt: string;
  readonly durations: TrialDurations;
  readonly infra?: { readonly kind: InfraKind; readonly message: string };
  /** Folder of this trial's logs, relative to the run folder. */
  readonly logs: string;
  /** TB1: tests that were skipped or xfailed yet counted as passed by TB1's parser. */
  readonly countedSkips?: number;
  readonly error?: string;
  /** A problem of the task itself found while running it (e.g. `path-outside-task`): no verdict was possible. */
  readonly taskProblem?: { readonly rule: string; readonly message: string };
  readonly usage?: { readonly input: number; readonly output: number; readonly cacheRead?: number; readonly cacheWrite?: number };
  readonly costUsd?: number;
  readonly steps?: number;
  /** What an agent timeout meant for this trial (absent in records written before the policy: `fail`). */
  readonly timeoutPolicy?: TimeoutPolicy;
  /** The agent's phase hit the task's agent timeout (under `verifier`, the outcome is the verifier's). */
  readonly agentTimedOut?: boolean;
  /** The engine the trial's container ran on (its endpoint; one engine of a pool); absent when none started. */
  readonly engine?: string;
  /** Written from the trial's own `record.json` after the process died between verdict and record. */
  readonly recovered?: boolean;
}
