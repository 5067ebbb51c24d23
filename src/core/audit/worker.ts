import { parentPort } from 'node:worker_threads';
import { setParseCacheBudget } from '../parse/treeSitter';
import { auditDir } from './record';

/**
 * Worker-thread entry of the audit pool (pool.ts): receives `{ i, dir }`, answers `{ i, record }` or
 * `{ i, error }`. Each worker has its own parsers and parse cache.
 */
export interface WorkerRequest {
  readonly i: number;
  readonly dir: string;
}

const port = parentPort;
if (port) {
  // Across tasks only identical files hit the cache; a small one keeps each thread's heap flat.
  setParseCacheBudget(256 * 1024);
  port.on('message', (msg: WorkerRequest) => {
    auditDir(msg.dir).then(
      (record) => port.postMessage({ i: msg.i, record }),
      (e: unknown) => port.postMessage({ i: msg.i, error: `audit of ${msg.dir} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}` }),
    );
  });
}
