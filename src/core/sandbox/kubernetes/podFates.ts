import type { V1Pod } from '@kubernetes/client-node';
import { InfraError } from '../runtime';
import type { PodBudget } from './budget';
import { podLost, podStartVerdict } from './classify';
import { isGone, type KubeApi } from './kubeApi';
import { CONTAINER } from './podSpec';
import type { PodWatch } from './podWatch';

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

/**
 * What became of each trial Pod, as the watch (or a read, while the watch is down) tells it: a Pod
 * Pending until it runs or its limit passes, and a held Pod the cluster took away (evicted, deleted,
 * its node lost), whose calls then fail at once as infra and whose in-flight execs end. The runtime
 * (kubeRuntime.ts) creates, execs, copies and deletes; this only watches and judges.
 */
export interface PodFateOptions {
  /** How long a Pod may stay Pending before the trial is an infra error. */
  readonly pendingLimitMs: number;
  /** How often a starting Pod is looked at again without news. */
  readonly pollMs: number;
}

export class PodFates {
  /** Each tracked Pod's fate: once taken away, `error` is set and `ctl` aborted. */
  private readonly fates = new Map<string, { error?: InfraError; readonly ctl: AbortController }>();
  /** Pods created (and so this client's to lose): only their loss is a fate. */
  private readonly held = new Set<string>();

  constructor(private readonly api: KubeApi, private readonly watch: PodWatch, private readonly budget: PodBudget, private readonly o: PodFateOptions) {}

  private get ns(): string {
    return this.api.namespace;
  }

  /** Follows the watch's news of a Pod about to be created. */
  track(name: string): void {
    this.fates.set(name, { ctl: new AbortController() });
    this.watch.track(name, (p) => this.seen(name, p));
  }

  /** The Pod was created: from now on its loss is the trial's infra. */
  hold(name: string): void {
    this.held.add(name);
  }

  /** Stops following a Pod; true when it was held (its budget slot is the caller's to give back). */
  forget(name: string): boolean {
    this.watch.untrack(name);
    this.fates.delete(name);
    return this.held.delete(name);
  }

  /** Aborted when the cluster takes the Pod away. */
  signal(name: string): AbortSignal | undefined {
    return this.fates.get(name)?.ctl.signal;
  }

  /** A Pod's new state from the watch: one the cluster took away ends its calls at once. */
  private seen(name: string, pod: V1Pod | undefined): void {
    const fate = this.fates.get(name);
    if (!fate || fate.error || !this.held.has(name)) return;
    const error = pod ? podLost(pod) : new InfraError('evicted', `Pod ${name} was deleted by someone else during the trial`);
    if (!error) return;
    fate.error = error;
    fate.ctl.abort();
  }

  lostTo(pod: string): InfraError | undefined {
    return this.fates.get(pod)?.error;
  }

  /** The Pod as the watch last streamed it, else read (the watch is down, or has not spoken of it yet). */
  private async current(name: string, what: string): Promise<V1Pod> {
    const w = this.watch.healthy ? this.watch.latest(name) : undefined;
    if (w?.gone) throw new InfraError('evicted', `Pod ${name} was deleted by someone else (${what})`);
    if (w?.pod) return w.pod;
    return this.api.call(`read Pod ${name}`, () => this.api.core.readNamespacedPod({ name, namespace: this.ns }), 2);
  }

  /** Waits on the watch for the Pod to run; its pending limit is looked at every `pollMs` without news. */
  async waitRunning(name: string, image: string, signal?: AbortSignal): Promise<void> {
    const started = Date.now();
    for (;;) {
      if (signal?.aborted) throw new InfraError('other', 'cancelled while the Pod was started', false);
      let pod: V1Pod;
      try {
        pod = await this.current(name, 'while it was started');
      } catch (e) {
        if (isGone(e)) throw new InfraError('evicted', `Pod ${name} was deleted by someone else before it ran`);
        throw e;
      }
      const v = podStartVerdict(pod, Date.now() - started, this.o.pendingLimitMs, image);
      if (v.state === 'ready') { this.budget.podSettled(name); return; }
      if (v.state === 'infra') throw v.error ?? new InfraError('container-start', `Pod ${name} did not start`);
      const sched = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      this.budget.podProgress(name, { scheduled: sched?.status === 'True' || Boolean(pod.spec?.nodeName), unschedulable: Boolean(v.unschedulable) });
      const untilLimit = this.o.pendingLimitMs - (Date.now() - started);
      await this.watch.changed(name, Math.max(50, Math.min(this.o.pollMs, untilLimit)));
    }
  }

  /** After a lost stream: the Pod's fate says whose fault it was. */
  async lost(pod: string, detail: string): Promise<never> {
    const known = this.lostTo(pod);
    if (known) throw known;
    let p: V1Pod | undefined;
    try {
      p = await this.api.call(`read Pod ${pod}`, () => this.api.core.readNamespacedPod({ name: pod, namespace: this.ns }), 2);
    } catch (e) {
      if (isGone(e)) throw new InfraError('evicted', `Pod ${pod} was deleted by someone else during the trial (${detail})`);
      throw new InfraError('exec-lost', `${detail}; the Pod could not be read either (${e instanceof Error ? e.message : String(e)})`);
    }
    throw podLost(p) ?? new InfraError('exec-lost', `Pod ${pod}: ${detail}`);
  }

  /**
   * After a command died by a signal or a copy failed: was the Pod taken away by the cluster? The
   * kubelet kills the containers before it records the eviction, so a stopped container with no
   * reason yet is looked at again for a moment. Undefined: the Pod's own doing (or still running).
   */
  async takenAway(pod: string, settleMs = 3_000): Promise<InfraError | undefined> {
    const end = Date.now() + settleMs;
    let fromWatch = false;
    for (;;) {
      const known = this.lostTo(pod);
      if (known) return known;
      let p: V1Pod;
      try {
        // Read first (the watch may not have the kill yet); after a stopped container, the watch's news.
        const cached = fromWatch ? this.watch.latest(pod) : undefined;
        if (cached?.gone) return new InfraError('evicted', `Pod ${pod} was deleted by someone else during the trial`);
        p = cached?.pod ?? await this.api.call(`read Pod ${pod}`, () => this.api.core.readNamespacedPod({ name: pod, namespace: this.ns }), 2);
      } catch (e) {
        return isGone(e) ? new InfraError('evicted', `Pod ${pod} was deleted by someone else during the trial`) : undefined;
      }
      const lostTo = podLost(p);
      if (lostTo) return lostTo;
      const running = p.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state?.running;
      if (running || Date.now() >= end) return undefined;
      // The watch brings the kubelet's verdict as it is written; without it, read again shortly.
      fromWatch = this.watch.healthy;
      await (fromWatch ? this.watch.changed(pod, 250) : sleep(250));
    }
  }
}
