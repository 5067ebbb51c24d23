import os from 'node:os';
import { LABEL, LABEL_HOST, LABEL_PID, type ContainerRuntime } from './runtime';

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

/**
 * Removes containers a killed Taskwright process left behind: labelled `taskwright`, started on
 * this host by a pid that no longer runs. Containers of live runs (here or on other hosts sharing
 * the engine) are left alone.
 */
export async function reapOrphans(runtime: ContainerRuntime, alive: (pid: number) => boolean = pidAlive): Promise<ReapResult> {
  const host = os.hostname();
  const removed: string[] = [];
  let kept = 0;
  for (const c of await runtime.listByLabel(LABEL)) {
    // Only the runner's own trial containers carry an owner pid; anything else labelled `taskwright`
    // (base images' build helpers, a user's scratch container) is not ours to judge.
    const ownerLabel = c.labels[LABEL_PID];
    const owner = ownerLabel !== undefined && /^\d+$/.test(ownerLabel) ? Number(ownerLabel) : undefined;
    const sameHost = (c.labels[LABEL_HOST] ?? host) === host;
    if (owner !== undefined && sameHost && owner !== process.pid && !alive(owner)) {
      await runtime.remove(c.id);
      removed.push(c.id);
    } else kept++;
  }
  return { removed, kept };
}
