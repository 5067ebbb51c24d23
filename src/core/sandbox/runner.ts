import path from 'node:path';
import type { Agent } from '../agents/agent';
import type { Task } from '../model/task';
import type { TimeoutPolicy } from '../results/timeoutPolicy';
import type { TrialRecord } from '../results/trial';
import { isDiskFull } from '../results/diskFull';
import type { RunStore } from '../results/store';
import { recoverRuns } from '../results/recover';
import { RUN_STOPPING_KINDS } from '../agents/providerErrors';
import { ImageCache } from './image';
import { ReadySnapshots } from './readySnapshots';
import { leaseState, RunLease } from './lease';
import { retryDelayMs } from './outcome';
import { pidAlive, reapOrphans } from './reaper';
import type { ContainerRuntime } from './runtime';
import { runTrial, type BeforeVerifierHook, type TrialResult } from './trial';
import { TrialLines } from './trialLines';

/** One unit of work: an attempt of an agent on a task. */
export interface TrialJob {
  readonly task: Task;
  readonly taskPath: string;
  readonly agent: Agent;
  readonly attempt: number;
  /** Short label used in the trial id (e.g. `oracle`, `nop`, `probe-conftest`) and recorded as its `check`. */
  readonly label?: string;
  readonly beforeVerifier?: BeforeVerifierHook;
  /** The trial's container will be diffed or committed by its hook (see `ContainerSpec.snapshotBaseline`). */
  readonly snapshotted?: boolean;
  /** The try number of this job's first trial (a resumed attempt continues after its recorded tries). */
  readonly firstTry?: number;
}

export interface RunOptions {
  readonly concurrency: number;
  /** Extra tries after an infra error (each try is recorded). */
  readonly retries: number;
  readonly retryBaseMs?: number;
  readonly checkpoint?: string;
  /** What an agent timeout means for every trial of the run (default `fail`). */
  readonly timeoutPolicy?: TimeoutPolicy;
  readonly signal?: AbortSignal;
  readonly onOutput?: (text: string) => void;
  readonly onTrial?: (result: TrialResult, job: TrialJob) => void;
  /**
   * `runJob` returns as soon as each trial's verdict is recorded; the containers of such trials are
   * removed in the background, and inert agents' trials may start from a verifier-ready snapshot
   * (readySnapshots.ts). The caller must `await runner.close()` before the run ends. `runAll`
   * always works this way and closes before it returns.
   */
  readonly deferRemoval?: boolean;
}

export interface SandboxDeps {
  readonly runtime: ContainerRuntime;
  readonly images?: ImageCache;
}

/** Redos of one attempt after losing its engine, beyond `retries`. */
const MAX_DRAIN_REDOS = 3;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 60);
}

/**
 * Runs jobs with bounded concurrency, recording every finished trial (each try of an infra error
 * too) in the store as it ends. Infra errors are retried with exponential back-off; they never
 * turn into failures.
 */
export class TrialRunner {
  readonly images: ImageCache;
  private seq: number;
  private readonly lease: RunLease;
  /** Set when the run had to stop early (a full disk, a frozen engine, a refused key): the one message to show. */
  private stopReason: string | undefined;
  /** Aborted on such a stop: trials in flight end (containers removed), no new one starts. */
  private readonly stopCtl = new AbortController();
  /** Removals of the containers of recorded trials, still under way (see `settle`). */
  private readonly removals = new Set<Promise<void>>();
  /** Verifier-ready snapshots of this run (undefined on a backend without snapshots, or a pool). */
  private readonly ready: ReadySnapshots | undefined;

  constructor(private readonly deps: SandboxDeps, private readonly store: RunStore) {
    this.images = deps.images ?? new ImageCache(deps.runtime);
    this.lease = new RunLease(store.id);
    this.ready = ReadySnapshots.for(deps.runtime, store.id);
    // A resumed run's trial ids go on after the ones its folder already holds: none is reused.
    this.seq = store.lastTrialSeq();
  }

  /** Why the run stopped before its jobs were done, if it did. */
  get stopped(): string | undefined {
    return this.stopReason;
  }

  /**
   * Checks the engine, removes orphans of killed runs and appends the verdicts such runs wrote to
   * their trial folders but not to their trials.jsonl; call once before the first trial.
   */
  async prepare(signal?: AbortSignal): Promise<{ reaped: number; recovered: number }> {
    await this.deps.runtime.ping(signal);
    const r = await reapOrphans(this.deps.runtime);
    return { reaped: r.removed.length, recovered: recoverDeadRuns(path.dirname(this.store.dir), this.store.id) };
  }

  /** Stops the run: in-flight trials are cancelled (their containers removed), no new one starts. */
  stop(reason: string): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.stopCtl.abort(new Error(reason));
  }

  /**
   * Waits until the container of every trial this runner recorded is removed. Removals run off the
   * trial's path once its verdict is saved (`deferRemoval`); the run lease is held until each ends.
   */
  async settle(): Promise<void> {
    while (this.removals.size) await Promise.all([...this.removals]);
  }

  /** The end of a run with `deferRemoval`: every container removed, then the ready snapshots. */
  async close(): Promise<void> {
    await this.settle();
    await this.ready?.dispose();
  }

  private readonly removeLater = (removal: Promise<void>): void => {
    this.lease.acquire();
    const p: Promise<void> = removal.then(() => undefined, () => undefined).finally(() => {
      this.removals.delete(p);
      this.lease.release();
    });
    this.removals.add(p);
  };

  private signalOf(opts: RunOptions): AbortSignal {
    return opts.signal ? AbortSignal.any([opts.signal, this.stopCtl.signal]) : this.stopCtl.signal;
  }

  async runJob(job: TrialJob, opts: RunOptions): Promise<TrialResult[]> {
    this.lease.acquire();
    try {
      return await this.runJobLeased(job, opts);
    } finally {
      this.lease.release();
    }
  }

  private async runJobLeased(job: TrialJob, opts: RunOptions): Promise<TrialResult[]> {
    const results: TrialResult[] = [];
    const n = ++this.seq;
    const signal = this.signalOf(opts);
    // Tries lost with an engine the pool drained: redone elsewhere at once, not charged to `retries`
    // (bounded, so a pool whose engines all die ends the attempt as an infra error).
    let drainRedos = 0;
    // A resumed attempt numbers its tries after the ones already in the ledger.
    const first = job.firstTry ?? 1;
    for (let t = first; ; t++) {
      if (this.stopReason !== undefined) return results;
      const trialId = `${String(n).padStart(3, '0')}-${safe(job.task.id)}-${safe(job.label ?? job.agent.spec)}-a${job.attempt}${t > 1 ? `-t${t}` : ''}`;
      let result: TrialResult;
      // The record is saved by the trial itself, before its container is removed (a kill -9 after
      // that loses nothing); a full disk replaces it by a short record and stops the run.
      let saved = true;
      // Live output line by line, each line with its trial (several trials write to one log at once).
      const lines = opts.onOutput ? new TrialLines(`[${trialId}] `, opts.onOutput) : undefined;
      try {
        const logDir = this.store.trialDir(trialId);
        result = await runTrial({ runtime: this.deps.runtime, images: this.images, ...(opts.deferRemoval && this.ready ? { ready: this.ready } : {}) }, {
          task: job.task, taskPath: job.taskPath, agent: job.agent, runId: this.store.id, trialId,
          attempt: job.attempt, try: t, ...(job.label ? { check: job.label } : {}), checkpoint: opts.checkpoint, logDir, timeoutPolicy: opts.timeoutPolicy,
          logsRel: path.relative(this.store.dir, logDir).split(path.sep).join('/'),
          beforeVerifier: job.beforeVerifier, ...(job.snapshotted ? { snapshotted: true } : {}), onOutput: lines?.write, onLine: lines?.line, signal,
          record: (r) => { saved = this.save(r); }, leased: true,
          ...(opts.deferRemoval ? { removeLater: this.removeLater } : {}),
        });
      } catch (e) {
        if (!isDiskFull(e)) throw e;
        this.stop(`the disk is full: ${e instanceof Error ? e.message : String(e)}`);
        return results;
      } finally {
        lines?.flush();
      }
      if (!saved) return results;
      results.push(result);
      opts.onTrial?.(result, job);
      const kind = result.record.infra?.kind;
      if (kind === 'disk-full') { this.stop(`the disk is full: ${result.record.infra?.message ?? ''}`); return results; }
      if (kind === 'engine-timeout' && !(await this.engineAnswers())) {
        this.stop(`the Docker Engine at ${this.deps.runtime.endpoint} stopped answering (${result.record.infra?.message ?? 'engine timeout'}); the run stops, its finished trials are kept`);
        return results;
      }
      if (kind && RUN_STOPPING_KINDS.has(kind)) { this.stop(result.record.infra?.message ?? kind); return results; }
      const lost = result.record.outcome === 'infra-error' && this.deps.runtime.lostToDrain?.(trialId) === true && drainRedos < MAX_DRAIN_REDOS;
      if (lost) drainRedos++;
      const retriesUsed = t - first + 1 - drainRedos;
      if ((!result.retryable && !lost) || retriesUsed > opts.retries || signal.aborted) return results;
      if (!lost) await sleep(retryDelayMs(retriesUsed, opts.retryBaseMs ?? 1000), signal);
    }
  }

  /**
   * Records a finished trial. On a full disk the record is replaced by a short `disk-full` infra
   * record when that still fits (a trial never counts from a record that was not saved whole), and
   * the run stops. False when nothing could be saved.
   */
  private save(r: TrialRecord): boolean {
    try {
      this.store.append(r);
      return true;
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      const message = e instanceof Error ? e.message : String(e);
      this.stop(`the disk is full: ${message}`);
      try {
        this.store.append({
          trial: r.trial, task: r.task, ...(r.taskId ? { taskId: r.taskId } : {}), agent: r.agent, ...(r.model ? { model: r.model } : {}),
          attempt: r.attempt, try: r.try, outcome: 'infra-error', reward: null, startedAt: r.startedAt, durations: r.durations,
          infra: { kind: 'disk-full', message }, logs: r.logs,
        });
      } catch {
        // Not even that fits: the trial is not recorded (and so not counted); the run stops.
      }
      return false;
    }
  }

  private async engineAnswers(): Promise<boolean> {
    try {
      await this.deps.runtime.ping();
      return true;
    } catch {
      return false;
    }
  }

  /** Runs all jobs; results are in job order (each job's tries in order). */
  async runAll(jobs: readonly TrialJob[], opts: RunOptions): Promise<TrialResult[][]> {
    const out: TrialResult[][] = new Array<TrialResult[]>(jobs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) {
        const i = next++;
        const job = jobs[i] as TrialJob;
        if (opts.signal?.aborted || this.stopReason !== undefined) { out[i] = []; continue; }
        // The next job starts while the last one's container is still being removed.
        out[i] = await this.runJob(job, { ...opts, deferRemoval: true });
      }
    };
    this.lease.acquire();
    try {
      await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, jobs.length)) }, () => worker()));
    } finally {
      await this.close();
      this.lease.release();
    }
    return out;
  }
}

/** Recovers unrecorded verdicts of the runs under a results folder whose owner is gone. */
export function recoverDeadRuns(resultsDir: string, ownId?: string): number {
  return recoverRuns(resultsDir, (params) => {
    if (!params) return false;
    if (params.id === ownId) return true;
    if (params.finishedAt) return false;
    const lease = leaseState(params.id);
    return lease === 'fresh' || (lease === 'absent' && (params.pid === process.pid || pidAlive(params.pid)));
  });
}

export function countOutcomes(records: readonly TrialRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}
