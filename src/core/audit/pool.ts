import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { auditDir, type AuditRecord } from './record';
import type { WorkerRequest } from './worker';

export interface PoolOptions {
  /** Worker threads; 1 audits in this thread. Default: the cores Node may use. */
  readonly jobs?: number;
  readonly signal?: AbortSignal;
  /** Old-generation heap of each worker, in MB (default WORKER_LIMITS); a task that needs more is audited in this thread. */
  readonly workerHeapMb?: number;
}

/** Tasks handed to each worker ahead of its answers, so none waits on a round trip. */
const AHEAD_PER_WORKER = 4;
/**
 * Finished tasks held while an earlier one is still running, at most: results are yielded in order,
 * and this bounds what waits for a slow task (memory stays flat whatever the corpus size).
 */
const REORDER_WINDOW = 256;

/**
 * Per-worker heap limits. A worker retains ~25 MB between tasks (parsers, a small parse cache); left
 * alone V8 lets each heap grow to hundreds of MB before collecting. A cap makes it collect sooner,
 * which keeps the whole run under its memory goal; the largest task (files over 512 KiB are not
 * read) needs far less than this.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 16 };

export function defaultJobs(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

/** The worker script: next to the bundle (dist/auditWorker.js) or the transpiled module (worker.js). */
function workerScript(): string {
  for (const name of ['auditWorker.js', 'worker.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`the audit worker script is missing next to ${__dirname} (auditWorker.js or worker.js): rebuild with scripts/build.mjs`);
}

type Answer = { i: number; record: AuditRecord } | { i: number; error: string };

/**
 * Loads and audits every task folder, in the order given, on `jobs` worker threads; yields each task's
 * record as soon as it and every earlier one are done. Stops the workers when the consumer stops,
 * on abort, or on the first failure (which it rethrows with the task's folder); a worker that dies on a
 * task is replaced (see onDeath).
 */
export async function* auditDirs(dirs: readonly string[], options: PoolOptions = {}): AsyncGenerator<AuditRecord> {
  const jobs = Math.min(options.jobs ?? defaultJobs(), Math.max(1, dirs.length));
  const signal = options.signal;
  if (jobs <= 1) {
    for (const dir of dirs) {
      signal?.throwIfAborted();
      yield await auditDir(dir, signal ? { signal } : {});
    }
    return;
  }
  const script = workerScript();
  const workers: Worker[] = [];
  const done = new Map<number, AuditRecord>();
  /** Indices sent to each worker and not answered yet, in the order it takes them. */
  const pending = new Map<Worker, number[]>();
  let nextToSend = 0;
  let nextToYield = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => { const w = wake; wake = undefined; w?.(); };
  const post = (w: Worker, i: number): void => {
    pending.get(w)?.push(i);
    const msg: WorkerRequest = { i, dir: dirs[i] as string };
    w.postMessage(msg);
  };
  const send = (w: Worker): void => {
    while (nextToSend < dirs.length && (pending.get(w)?.length ?? AHEAD_PER_WORKER) < AHEAD_PER_WORKER && nextToSend < nextToYield + REORDER_WINDOW) post(w, nextToSend++);
  };
  const onAbort = (): void => { failure ??= signal?.reason instanceof Error ? signal.reason : new Error('aborted'); notify(); };
  signal?.addEventListener('abort', onAbort);
  /**
   * A worker that dies (its heap limit reached on one huge task) takes only that task with it: the
   * task it was on is audited again in this thread, without the worker's limit, and the rest it held
   * go to a fresh worker. One pathological folder must not cost the other thousands their results.
   */
  const onDeath = (w: Worker, why: string): void => {
    const held = pending.get(w);
    if (!held || failure) return;
    pending.delete(w);
    workers.splice(workers.indexOf(w), 1);
    const [culprit, ...rest] = held;
    if (culprit !== undefined) {
      auditDir(dirs[culprit] as string, signal ? { signal } : {}).then(
        (record) => { done.set(culprit, record); notify(); },
        (e: unknown) => { failure ??= new Error(`an audit worker failed (${why}) and auditing ${dirs[culprit] as string} again failed: ${e instanceof Error ? e.message : String(e)}`); notify(); },
      );
    }
    const fresh = spawn();
    for (const i of rest) post(fresh, i);
    send(fresh);
  };
  const spawn = (): Worker => {
    const w = new Worker(script, { resourceLimits: { ...WORKER_LIMITS, ...(options.workerHeapMb ? { maxOldGenerationSizeMb: options.workerHeapMb } : {}) } });
    pending.set(w, []);
    w.on('message', (a: Answer) => {
      const held = pending.get(w);
      const at = held?.indexOf(a.i) ?? -1;
      if (held && at >= 0) held.splice(at, 1);
      if ('error' in a) failure ??= new Error(a.error);
      else done.set(a.i, a.record);
      notify();
    });
    w.on('error', (e) => onDeath(w, e.message));
    w.on('exit', (code) => { if (code !== 0) onDeath(w, `exit code ${code}`); });
    workers.push(w);
    return w;
  };
  try {
    for (let k = 0; k < jobs; k++) spawn();
    for (const w of [...workers]) send(w);
    while (nextToYield < dirs.length) {
      if (failure) throw failure;
      const record = done.get(nextToYield);
      if (!record) {
        await new Promise<void>((r) => { wake = r; });
        continue;
      }
      done.delete(nextToYield);
      nextToYield++;
      for (const w of [...workers]) send(w);
      yield record;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Terminated on purpose: their exit is no death to recover from.
    const all = [...workers];
    pending.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }
}
