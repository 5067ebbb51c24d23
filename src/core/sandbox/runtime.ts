import type { Readable } from 'node:stream';
import type { InfraKind } from '../results/trial';

/**
 * The container engine as the sandbox sees it. The dockerode implementation talks to a Docker
 * Engine (local socket or `DOCKER_HOST`); another backend only has to provide these calls.
 */
export interface ContainerLimits {
  readonly nanoCpus: number;
  /** Memory limit in bytes; swap is set to the same value so the limit is memory+swap. */
  readonly memoryBytes: number;
  readonly pidsLimit: number;
  /** Disk the container may write (Kubernetes `ephemeral-storage`); the Docker runtime does not bound it. */
  readonly storageBytes?: number;
}

export interface ContainerSpec {
  readonly image: string;
  readonly name?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly limits: ContainerLimits;
  readonly networkMode: string;
  /**
   * The trial's own wall clock in seconds (agent + verifier timeouts + slack): a backend that can
   * have the server stop the container after it (Kubernetes `activeDeadlineSeconds`) does.
   */
  readonly deadlineSec?: number;
  /**
   * The container will be diffed or committed (`SnapshotRuntime`): a backend that cannot ask the
   * engine for its changes (Kubernetes) records the starting state of its files for that.
   */
  readonly snapshotBaseline?: boolean;
}

export interface BuildSpec {
  /** The build context as a tar archive (a stream: file contents are read as the engine takes them). */
  readonly context: Buffer | Readable;
  /** Dockerfile path inside the context. */
  readonly dockerfile: string;
  readonly tag: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly timeoutSec: number;
  readonly onLog: (text: string) => void;
  readonly signal?: AbortSignal;
}

export interface ExecRequest {
  readonly cmd: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly user?: string;
  readonly workdir?: string;
  /** Stop waiting after this long (the caller removes the container when the process must die). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onStdout?: (chunk: Buffer) => void;
  readonly onStderr?: (chunk: Buffer) => void;
}

export interface ExecOutcome {
  /** Null when the command did not finish (timed out or cancelled). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
}

export interface ContainerSummary {
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly state: string;
}

/** The engine's record of a container's state: what the agent inside cannot forge. */
export interface ContainerState {
  readonly running: boolean;
  /** The engine saw an OOM kill in this container (set on the event, kept until the next start). */
  readonly oomKilled: boolean;
  readonly exitCode: number | null;
  /** The container's lifetime by the engine's clock, ms (start to exit); undefined while running. */
  readonly lifetimeMs?: number;
}

export interface ContainerRuntime {
  /** Human-readable endpoint (socket path or `DOCKER_HOST`; `kubernetes:<server>/namespaces/<ns>`). */
  readonly endpoint: string;
  /** What runs the containers; absent: Docker (its endpoint is what `command:` agents get as DOCKER_HOST). */
  readonly backend?: 'docker' | 'kubernetes';
  ping(signal?: AbortSignal): Promise<void>;
  imageExists(ref: string): Promise<boolean>;
  buildImage(spec: BuildSpec): Promise<void>;
  /** Creates and starts a container; returns its id. */
  start(spec: ContainerSpec, signal?: AbortSignal): Promise<string>;
  exec(containerId: string, req: ExecRequest): Promise<ExecOutcome>;
  /** Extracts a tar archive (whole or streamed) into an existing folder of the container. */
  putArchive(containerId: string, dir: string, tar: Buffer | Readable): Promise<void>;
  /** A container path as a tar stream; undefined when the path does not exist. Read it to the end. */
  getArchive(containerId: string, path: string): Promise<Readable | undefined>;
  /** Force-removes a container and its anonymous volumes; a container already gone is not an error. */
  remove(containerId: string): Promise<void>;
  listByLabel(label: string): Promise<ContainerSummary[]>;
  /** The container's state; undefined when it does not exist. */
  inspect(containerId: string): Promise<ContainerState | undefined>;
  /**
   * Counts the engine's OOM-kill events for a container from now until `stop()` (the engine's
   * OOMKilled flag is only set when the container exits, so a killed verifier in a living container
   * shows up only as an event). Optional: without it a verifier OOM is not told apart.
   */
  watchOom?(containerId: string): Promise<OomWatch>;
  /** The endpoint of the engine holding this container (a pool of engines; see `pool.ts`). */
  endpointOf?(containerId: string): string | undefined;
  /**
   * True when the trial's container was on an engine that stopped answering and was drained: its
   * infra error is the engine's, and the runner redoes the trial elsewhere without spending a retry.
   */
  lostToDrain?(trialId: string): boolean;
  /** A cheap "present on an engine that still answers" (a pool forgets the images of drained engines). */
  knowsImage?(ref: string): boolean;
  /**
   * Removes what the backend created beside containers and outlived them (Kubernetes: a trial's
   * NetworkPolicy whose Pod is gone); called by the reaper. Returns how many were removed.
   */
  reapExtras?(): Promise<number>;
}

export interface OomWatch {
  /** Stops watching; resolves to the OOM kills seen. */
  stop(): Promise<number>;
}

/** A fault of the harness or the engine, never of the agent or the task's verdict. */
export class InfraError extends Error {
  constructor(readonly kind: InfraKind, message: string, readonly retryable = true) {
    super(message);
    this.name = 'InfraError';
  }
}

/** The label key every container and image the project creates carries. */
export const LABEL = 'taskwright';
export const LABEL_RUN = 'taskwright.run';
export const LABEL_TRIAL = 'taskwright.trial';
export const LABEL_PID = 'taskwright.pid';
export const LABEL_HOST = 'taskwright.host';
export const LABEL_TASK = 'taskwright.task';
/** Set on containers whose owner keeps a run lease (see `lease.ts`): the lease, not the pid, says it is alive. */
export const LABEL_LEASE = 'taskwright.lease';
