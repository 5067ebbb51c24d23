import type { Readable } from 'node:stream';
import { tarHeaders } from './tar';
import type { ContainerRuntime } from './runtime';

/** Enough of an archive to judge its top folder and whether anything is in it. */
const HEAD_BYTES = 16 * 1024;

/** The first bytes of an archive stream; the rest is never read (an agent may plant gigabytes). */
export async function archiveHead(stream: Readable | undefined, max = HEAD_BYTES): Promise<{ head: Buffer; truncated: boolean } | undefined> {
  if (!stream) return undefined;
  const parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      parts.push(b);
      size += b.length;
      if (size >= max) { truncated = true; break; }
    }
  } finally {
    stream.destroy();
  }
  return { head: Buffer.concat(parts).subarray(0, max), truncated };
}

/**
 * The verifier's folders (`/tests`, `/logs/verifier`) are the harness's, but they exist (or can be
 * made) during the agent's phase: an agent that plants `/tests/conftest.py` or a `reward.txt` there
 * would grade itself. Before the verifier's files go in, each such path must be absent or an empty
 * folder owned by root that no one else may write; anything else is removed, and the result is
 * checked through the engine's archive API, which reads the container's filesystem without running
 * anything the agent could have replaced.
 */
export type HarnessDirsResult = { readonly ok: true; readonly cleared: readonly string[] } | { readonly ok: false; readonly detail: string };

/** Why a path's archive is not a fresh harness folder; undefined when it is (or the path is absent). */
export function notFresh(path: string, archive: Buffer | { head: Buffer; truncated: boolean } | undefined): string | undefined {
  if (!archive) return undefined;
  const { head, truncated } = Buffer.isBuffer(archive) ? { head: archive, truncated: false } : archive;
  const entries = tarHeaders(head);
  const top = entries[0];
  if (!top) return undefined;
  if (top.type !== '5') return `${path} is not a folder (tar type ${top.type})`;
  if (entries.length > 1) return `${path} holds ${truncated ? 'at least ' : ''}${entries.length - 1} entr${entries.length === 2 ? 'y' : 'ies'} left by the agent's phase (${entries[1]!.name}${entries.length > 2 ? ', …' : ''})`;
  if (top.uid !== 0) return `${path} is owned by uid ${top.uid}, not root`;
  if ((top.mode & 0o022) !== 0) return `${path} is writable by others (mode ${(top.mode & 0o7777).toString(8)})`;
  return undefined;
}

export async function freshHarnessDirs(runtime: ContainerRuntime, containerId: string, paths: readonly string[], signal?: AbortSignal): Promise<HarnessDirsResult> {
  // Each path is read at once (each archive call is a process of the engine's own: in parallel,
  // they cost about one).
  const judge = (ps: readonly string[]): Promise<(string | undefined)[]> =>
    Promise.all(ps.map(async (p) => notFresh(p, await archiveHead(await runtime.getArchive(containerId, p)))));
  const dirty = (await judge(paths)).flatMap((why, i) => (why !== undefined ? [paths[i] as string] : []));
  if (!dirty.length) return { ok: true, cleared: [] };
  // As root, whatever user the agent ran as; the engine's view afterwards is the judge.
  await runtime.exec(containerId, { cmd: ['rm', '-rf', '--', ...dirty], user: '0', timeoutMs: 60_000, ...(signal ? { signal } : {}) });
  const after = await judge(dirty);
  const left = after.findIndex((why) => why !== undefined);
  if (left >= 0) return { ok: false, detail: `could not clear what the agent's phase left at ${dirty[left]}: ${after[left]}` };
  return { ok: true, cleared: dirty };
}
