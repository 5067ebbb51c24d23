import { InfraError } from '../runtime';

/**
 * The run's Pods as one cluster-wide budget: at most `slots` Pods of the run exist at once,
 * wherever the scheduler puts them, and while one of them waits for a node (Pending as
 * Unschedulable, or not bound to a node after `pendingGraceMs`) no new Pod is created — a cluster that is
 * full is not sent more Pods to queue, and the run's trials wait here instead of on their wall clocks.
 */
export class PodBudget {
  private held = 0;
  /** Pods created and not yet running, with when they were created and whether the scheduler said Unschedulable. */
  private readonly pending = new Map<string, { since: number; unschedulable: boolean; scheduled: boolean }>();
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly slots: number, private readonly pendingGraceMs = 5_000, private readonly now: () => number = Date.now) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error('the Pod budget needs at least one slot');
  }

  /** Pods holding a slot. */
  get inUse(): number {
    return this.held;
  }

  /** True while a Pod of the run waits for a node: new Pods are held back. */
  get congested(): boolean {
    const t = this.now();
    // A Pod on a node pulling its image is coming; one no node has taken is the cluster being full.
    for (const p of this.pending.values()) if (p.unschedulable || (!p.scheduled && t - p.since >= this.pendingGraceMs)) return true;
    return false;
  }

  /** Waits for a slot (and for no Pod to be stuck Pending); rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => { this.waiters = this.waiters.filter((f) => f !== attempt); attempt(); };
      const attempt = (): void => {
        if (settled) return;
        if (signal?.aborted) {
          settled = true;
          signal.removeEventListener('abort', onAbort);
          reject(new InfraError('other', 'cancelled while waiting for room on the cluster', false));
          return;
        }
        if (this.held < this.slots && !this.congested) {
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          this.held++;
          resolve();
          return;
        }
        this.waiters.push(attempt);
        this.arm();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      attempt();
    });
  }

  /** A Pod was created and is not running yet. */
  podPending(name: string): void {
    if (!this.pending.has(name)) this.pending.set(name, { since: this.now(), unschedulable: false, scheduled: false });
    this.arm();
  }

  /** What the scheduler said of a Pending Pod: bound to a node, or Unschedulable (it still waits). */
  podProgress(name: string, o: { readonly scheduled: boolean; readonly unschedulable: boolean }): void {
    const p = this.pending.get(name);
    if (!p) return;
    const wasBlocking = p.unschedulable || !p.scheduled;
    p.scheduled = o.scheduled;
    p.unschedulable = o.unschedulable;
    if (wasBlocking && !p.unschedulable && p.scheduled) this.wake();
  }

  /** The Pod runs (or is gone): it no longer holds the others back. */
  podSettled(name: string): void {
    if (this.pending.delete(name)) this.wake();
  }

  release(): void {
    this.held = Math.max(0, this.held - 1);
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** While someone waits on congestion, look again now and then (pending Pods age into it and out of it). */
  private arm(): void {
    if (this.timer || !this.waiters.length) return;
    this.timer = setTimeout(() => { this.timer = undefined; this.wake(); }, Math.max(50, Math.min(1000, this.pendingGraceMs)));
    this.timer.unref();
  }
}
