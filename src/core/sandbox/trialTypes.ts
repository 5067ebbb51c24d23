import type { Agent, TrialSession } from '../agents/agent';
import type { Task } from '../model/task';
import type { TimeoutPolicy } from '../results/timeoutPolicy';
import type { TrialRecord } from '../results/trial';
import type { VerifierVerdict } from './formats';
import type { ImageCache } from './image';
import type { ReadySnapshots } from './readySnapshots';
import type { ContainerRuntime } from './runtime';

/** What a trial is given and what it gives back (the procedure is `runTrial` in ./trial). */
/** Runs before the verifier in the trial's container (validate's reward-isolation probes use it). */
export type BeforeVerifierHook = (session: TrialSession) => Promise<void>;

export interface TrialRequest {
  readonly task: Task;
  /** The task path as the user gave it (kept in the record). */
  readonly taskPath: string;
  readonly agent: Agent;
  readonly runId: string;
  readonly trialId: string;
  readonly attempt: number;
  readonly try: number;
  /** The validation check this trial is (kept in the record; see `TrialRecord.check`). */
  readonly check?: string;
  readonly checkpoint?: string;
  /** Absolute folder for this trial's logs, and the same relative to the run folder. */
  readonly logDir: string;
  readonly logsRel: string;
  readonly beforeVerifier?: BeforeVerifierHook;
  /** The hook diffs or commits the container (see `ContainerSpec.snapshotBaseline`). */
  readonly snapshotted?: boolean;
  readonly onOutput?: (text: string) => void;
  /**
   * Taskwright's own lines (the trial's status, each command): they start a line of their own even
   * after command output that ended mid-line. Without it they go to `onOutput`.
   */
  readonly onLine?: (line: string) => void;
  readonly signal?: AbortSignal;
  /** Slack on top of the agent and verifier timeouts before the harness itself gives up. */
  readonly wallClockSlackSec?: number;
  /**
   * Saves the finished record (the results store's append). Called once, after the record is in the
   * trial's `record.json` and, when a verdict exists, before the container is removed.
   */
  readonly record?: (record: TrialRecord) => void;
  /** The run keeps a lease the reaper can judge its containers by (`lease.ts`). */
  readonly leased?: boolean;
  /**
   * Takes over the container's removal once the record is saved with a verdict: the trial then
   * returns without waiting for it, and the owner awaits it before the run ends (the runner's
   * `settle`). Without it, and on every path without a verdict, the removal is awaited here.
   */
  readonly removeLater?: (removal: Promise<void>) => void;
  /** What an agent timeout means (default `fail`: a failed attempt, no verifier). */
  readonly timeoutPolicy?: TimeoutPolicy;
}

export interface TrialContext {
  readonly runtime: ContainerRuntime;
  readonly images: ImageCache;
  /** Verifier-ready snapshots for inert agents' trials (the runner's; removed when its run closes). */
  readonly ready?: ReadySnapshots;
}

export interface TrialResult {
  readonly record: TrialRecord;
  readonly verdict?: VerifierVerdict;
  readonly imageBuilt: boolean;
  readonly retryable: boolean;
}
