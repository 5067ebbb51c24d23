import os from 'node:os';
import { leaseState, type LeaseState } from './lease';
import { LABEL, LABEL_HOST, LABEL_LEASE, LABEL_PID, LABEL_RUN, type ContainerRuntime } from './runtime';

/** True when a process with this pid exists on this machine (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ReapResult {
  readonly removed: readonly string[];
  readonly kept: number;
}

export interface ReapOptions {
  readonly alive?: (pid: number) => boolean;
  readonly lease?: (runId: string) => LeaseState;
}

/**
 * Removes containers a killed Taskwright process left behind: labelled `taskwright`, started on
 * this host, by a run that no longer lives. A container whose run keeps a lease is judged by the
 * lease (fresh: alive, whatever the pid looks like from here — another pid namespace; stale: dead,
 * even if the pid now belongs to someone else); without a lease file in sight (older containers, a
 * lease folder this process does not share) the owner's pid decides. Containers of other hosts sharing the
 * engine are left alone.
 */
export async function reapOrphans(runtime: ContainerRuntime, options: ReapOptions | ((pid: number) => boolean) = {}): Promise<ReapResult> {
  const o: ReapOptions = typeof options === 'function' ? { alive: options } : options;
  const alive = o.alive ?? pidAlive;
  const lease = o.lease ?? ((id: string) => leaseState(id));
  const host = os.hostname();
  const removed: string[] = [];
  let kept = 0;
  for (const c of await runtime.listByLabel(LABEL)) {
    // Only the runner's own trial containers carry an owner pid; anything else labelled `taskwright`
    // (base images' build helpers, a user's scratch container) is not ours to judge.
    const ownerLabel = c.labels[LABEL_PID];
    const owner = ownerLabel !== undefined && /^\d+$/.test(ownerLabel) ? Number(ownerLabel) : undefined;
    const sameHost = (c.labels[LABEL_HOST] ?? host) === host;
    const run = c.labels[LABEL_RUN];
    let dead = false;
    if (owner !== undefined && sameHost) {
      // A lease this process cannot see (another TMPDIR) says nothing: then the pid decides.
      const l = c.labels[LABEL_LEASE] === '1' && run ? lease(run) : 'absent';
      dead = l === 'stale' || (l === 'absent' && owner !== process.pid && !alive(owner));
    }
    if (dead) {
      await runtime.remove(c.id);
      removed.push(c.id);
    } else kept++;
  }
  await runtime.reapExtras?.();
  return { removed, kept };
}
