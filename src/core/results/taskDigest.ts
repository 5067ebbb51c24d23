import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { TaskFiles } from '../loader/files';

/**
 * A fingerprint of everything in a task folder that can change a trial's verdict: the instruction,
 * the config, the environment, the tests and the solution. A run records one per task so that a
 * resume can tell when a task was edited in between; attempts of two versions of a task must not
 * be counted as one task's attempts.
 *
 * Every listed file's relative path, kind and content go in (symlinks by their target text, never
 * followed). A file above `FULL_BYTES` is hashed by its size and its first and last `EDGE_BYTES`:
 * a checked-in dataset of gigabytes is not read whole at each run start, and an edit of one is
 * almost always visible in its size or at an end.
 */
export const DIGEST_LIMITS = { fullBytes: 16 * 1024 * 1024, edgeBytes: 1024 * 1024 } as const;

function hashEdges(h: Hash, file: string, size: number): void {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(DIGEST_LIMITS.edgeBytes);
    for (const at of [0, size - DIGEST_LIMITS.edgeBytes]) {
      const n = fs.readSync(fd, buf, 0, buf.length, at);
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}

export function taskDigest(taskDir: string): string {
  const files = new TaskFiles(taskDir);
  const h = createHash('sha256');
  for (const rel of files.listSync()) {
    const abs = files.abs(rel);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      continue; // gone between the listing and now: the next digest differs anyway
    }
    h.update(`${rel}\0`);
    if (st.isSymbolicLink()) {
      h.update(`link\0${fs.readlinkSync(abs)}\0`);
    } else if (!st.isFile()) {
      h.update('other\0');
    } else if (st.size > DIGEST_LIMITS.fullBytes) {
      h.update(`large\0${st.size}\0`);
      hashEdges(h, abs, st.size);
    } else {
      h.update(`file\0${st.size}\0`);
      h.update(fs.readFileSync(abs));
    }
    // Executable bits change what `bash tests/test.sh` vs `./run.sh` does.
    h.update(`\0${st.mode & 0o111 ? 'x' : '-'}\0`);
  }
  return `sha256:${h.digest('hex')}`;
}

/** The tasks of a run whose folder differs from the digest the run recorded (a task without a record is not judged). */
export function changedTasks(recorded: Readonly<Record<string, string>> | undefined, current: ReadonlyMap<string, string>): string[] {
  if (!recorded) return [];
  return [...current].filter(([rel, d]) => recorded[rel] !== undefined && recorded[rel] !== d).map(([rel]) => rel);
}

/** run.json's `taskDigests`: each task path (as the run records it) with its folder's digest. */
export function taskDigests(tasks: readonly { readonly path: string; readonly dir: string }[]): Record<string, string> {
  return Object.fromEntries(tasks.map((t) => [t.path, taskDigest(t.dir)]));
}
