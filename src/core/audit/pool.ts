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
 * on abort, or on the first failure (which it rethrows with the task's folder).
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
  const load = new Map<Worker, number>();
  let nextToSend = 0;
  let nextToYield = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => { const w = wake; wake = undefined; w?.(); };
  const send = (w: Worker): void => {
    while (nextToSend < dirs.length && (load.get(w) ?? 0) < AHEAD_PER_WORKER && nextToSend < nextToYield + REORDER_WINDOW) {
      const msg: WorkerRequest = { i: nextToSend, dir: dirs[nextToSend] as string };
      nextToSend++;
      load.set(w, (load.get(w) ?? 0) + 1);
      w.postMessage(msg);
    }
  };
  const onAbort = (): void => { failure ??= signal?.reason instanceof Error ? signal.reason : new Error('aborted'); notify(); };
  signal?.addEventListener('abort', onAbort);
  try {
    for (let k = 0; k < jobs; k++) {
      const w = new Worker(script, { resourceLimits: WORKER_LIMITS });
      w.on('message', (a: Answer) => {
        load.set(w, (load.get(w) ?? 1) - 1);
        if ('error' in a) failure ??= new Error(a.error);
        else done.set(a.i, a.record);
        notify();
      });
      w.on('error', (e) => { failure ??= new Error(`an audit worker failed: ${e.message}`); notify(); });
      w.on('exit', (code) => { if (code !== 0) { failure ??= new Error(`an audit worker exited with code ${code}`); notify(); } });
      workers.push(w);
      load.set(w, 0);
    }
    for (const w of workers) send(w);
    while (nextToYield < dirs.length) {
      if (failure) throw failure;
      const record = done.get(nextToYield);
      if (!record) {
        await new Promise<void>((r) => { wake = r; });
        continue;
      }
      done.delete(nextToYield);
      nextToYield++;
      for (const w of workers) send(w);
      yield record;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
