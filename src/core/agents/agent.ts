import type { Task } from '../model/task';

/** The outcome of one command run inside a trial's container. */
export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

export interface ExecOptions {
  readonly timeoutSec?: number;
  readonly user?: string;
  readonly workdir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** What an agent may do during its phase of a trial: run commands in the trial's fresh container. */
export interface TrialSession {
  readonly task: Task;
  readonly containerId: string;
  /** Docker-compatible endpoint the runner talks to (for `command` agents that drive the container themselves). */
  readonly dockerHost?: string;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Copies a host file or folder into an existing folder of the container. */
  copyIn(hostPath: string, containerDir: string): Promise<void>;
  /** Appends a line to the trial's agent log. */
  log(line: string): void;
  /** Folder on the host for this trial's agent artefacts (trajectory, transcripts). */
  readonly logDir: string;
}

export interface TokenUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/**
 * How an agent's phase ended. `error` is the policy's failure (it counts as a failed attempt);
 * infrastructure faults are thrown as `InfraError` by the runner, never returned here.
 */
export interface AgentResult {
  readonly status: 'completed' | 'error';
  readonly error?: string;
  readonly steps?: number;
  readonly usage?: TokenUsage;
  readonly costUsd?: number;
}

export interface Agent {
  /** Spec string it was made from: `oracle`, `nop`, `anthropic:<model>`, `openai:<model>@<url>`, `command:<program>`. */
  readonly spec: string;
  /** Model name for results (absent for oracle/nop). */
  readonly model?: string;
  /**
   * Runs nothing in the container and never uses the session (nop, validate's checks): its trials
   * may start from a verifier-ready snapshot (`sandbox/readySnapshots.ts`). Only for agents that
   * really do nothing: what such an agent left would not be checked.
   */
  readonly inert?: boolean;
  run(session: TrialSession, signal: AbortSignal): Promise<AgentResult>;
}
