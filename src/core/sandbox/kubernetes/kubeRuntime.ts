import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import {
  InfraError, LABEL, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary,
  type ExecOutcome, type ExecRequest,
} from '../runtime';
import type { CommitOptions, FileChange, SnapshotRuntime } from '../snapshot';
import { OutputBuffer } from '../outputBuffer';
import { PodBudget } from './budget';
import { podLost, podStartVerdict } from './classify';
import { isGone, KubeApi, statusOf } from './kubeApi';
import { getPodArchive, putPodArchive, type ArchiveTarget } from './podArchive';
import { podExec, wrapCommand, type PodExecEnd, type PodExecRequest } from './podExec';
import { PodSnapshots } from './podSnapshot';
import { buildDenyAllPolicy, buildPod, CONTAINER, DEADLINE_SLACK_SEC, ownerLabels } from './podSpec';
import { PodWatch } from './podWatch';
import { qualify, type Registry } from './registry';

/** Label naming the runtime (one client process) that created a Pod: its watch selects by it. */
export const LABEL_CLIENT = 'taskwright.client';

/** Builds a task image somewhere the registry can be fed from (the local Docker engine) and pushes it. */
export interface ImagePublisher {
  /** Builds `spec.tag` locally when it is not there, then pushes it as `remoteRef`. */
  publish(spec: BuildSpec, remoteRef: string): Promise<void>;
}

export interface KubernetesOptions {
  readonly api: KubeApi;
  readonly registry: Registry;
  /** Pods of the run at once, cluster-wide. */
  readonly slots: number;
  /** Builds and pushes images the registry lacks; without it a missing image is an infra error naming `images push`. */
  readonly publisher?: ImagePublisher;
  /** How long a Pod may stay Pending (no node, image still pulling) before the trial is an infra error. */
  readonly pendingLimitMs?: number;
  /** Pending longer than this without a node holds back new Pods (back-pressure). */
  readonly pendingGraceMs?: number;
  /** How often a starting Pod is looked at again without news (its pending limit; a read only while the watch is down). */
  readonly pollMs?: number;
  /** Folder for snapshots when the caller names none (default: under the system's temporary folder). */
  readonly snapshotDir?: string;
  /** Largest snapshot archive, bytes (default TASKWRIGHT_K8S_SNAPSHOT_MAX_MB, 2048 MiB). */
  readonly snapshotMaxBytes?: number;
  readonly pullSecrets?: readonly string[];
  /** Said once per runtime (a cluster that may not enforce NetworkPolicies). */
  readonly onWarning?: (text: string) => void;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

function fromEnvSec(name: string, fallbackSec: number): number {
  const n = Number(process.env[name]);
  return (Number.isFinite(n) && n > 0 ? n : fallbackSec) * 1000;
}

/** Trial Pods on a Kubernetes cluster, behind the same interface as the Docker runtime. */
export class KubernetesRuntime implements ContainerRuntime, SnapshotRuntime {
  readonly endpoint: string;
  readonly backend = 'kubernetes' as const;
  /** A Pod from a snapshot gets its files by a copy (podSnapshot.ts). */
  readonly snapshotStart = 'copy' as const;
  readonly budget: PodBudget;
  readonly watch: PodWatch;
  readonly snapshots: PodSnapshots;
  private readonly clientId = randomBytes(6).toString('hex');
  /** Each held Pod's fate as the watch saw it: once taken away, its calls fail at once and in-flight execs end. */
  private readonly fates = new Map<string, { error?: InfraError; readonly ctl: AbortController }>();
  private readonly api: KubeApi;
  private readonly held = new Set<string>();
  private readonly policies = new Set<string>();
  private warned = false;
  private readonly pendingLimitMs: number;
  private readonly pollMs: number;

  constructor(private readonly o: KubernetesOptions) {
    this.api = o.api;
    this.endpoint = o.api.endpoint;
    this.budget = new PodBudget(o.slots, o.pendingGraceMs ?? 5_000);
    this.pendingLimitMs = o.pendingLimitMs ?? fromEnvSec('TASKWRIGHT_K8S_PENDING_SEC', 300);
    this.pollMs = o.pollMs ?? 2_000;
    this.watch = new PodWatch(this.api, `${LABEL_CLIENT}=${this.clientId}`, {
      onForbidden: (d) => o.onWarning?.(`Pods cannot be watched with these credentials (${d}): their status is read every ${Math.round(this.pollMs / 1000)} s instead; give the Role the verb watch on pods (docs/kubernetes.md)`),
    });
    const maxMb = Number(process.env.TASKWRIGHT_K8S_SNAPSHOT_MAX_MB);
    this.snapshots = new PodSnapshots({
      exec: (pod, req) => this.podExec(pod, req),
      put: (pod, dir, tar) => this.putArchive(pod, dir, tar),
      lost: (pod, d) => this.lost(pod, d),
    }, o.snapshotDir ?? path.join(os.tmpdir(), `taskwright-k8s-snapshots-${process.pid}`), o.snapshotMaxBytes ?? (Number.isFinite(maxMb) && maxMb > 0 ? maxMb : 2048) * 2 ** 20);
  }

  private podExec(pod: string, req: PodExecRequest): Promise<PodExecEnd> {
    return podExec(this.api.conn.kc, this.ns, pod, CONTAINER, req);
  }

  private get ns(): string {
    return this.api.namespace;
  }

  async ping(): Promise<void> {
    await this.api.call('a list of Pods (ping)', () => this.api.core.listNamespacedPod({ namespace: this.ns, limit: 1 }), 2);
  }

  /** Whether the registry has the image the Pods would pull (the local tag, qualified). */
  imageExists(ref: string): Promise<boolean> {
    if (this.snapshots.has(ref)) return Promise.resolve(true);
    return this.o.registry.hasManifest(qualify(this.o.registry.address, ref));
  }

  async buildImage(spec: BuildSpec): Promise<void> {
    const remote = qualify(this.o.registry.address, spec.tag);
    if (!this.o.publisher) throw new InfraError('image-missing', `image ${remote} is not in the registry; push it with \`taskwright images push --registry ${this.o.registry.address.host}${this.o.registry.address.prefix ? `/${this.o.registry.address.prefix}` : ''} <tasks>\``, false);
    await this.o.publisher.publish(spec, remote);
  }

  async start(spec: ContainerSpec, signal?: AbortSignal): Promise<string> {
    const snapshot = this.snapshots.resolve(spec.image);
    await this.budget.acquire(signal);
    const image = qualify(this.o.registry.address, snapshot?.base ?? spec.image);
    const deadline = (spec.deadlineSec ?? 3600) + DEADLINE_SLACK_SEC;
    const labeled = { ...spec, labels: { ...spec.labels, [LABEL_CLIENT]: this.clientId } };
    const body = buildPod(labeled, { namespace: this.ns, image, activeDeadlineSeconds: deadline, ...(spec.limits.storageBytes ? { storageBytes: spec.limits.storageBytes } : {}), ...(this.o.pullSecrets ? { pullSecrets: this.o.pullSecrets } : {}) });
    const name = body.metadata?.name ?? '';
    let created = false;
    try {
      this.fates.set(name, { ctl: new AbortController() });
      this.watch.track(name, (p) => this.seen(name, p));
      const pod = await this.create(body);
      created = true;
      this.held.add(name);
      this.budget.podPending(name);
      if (spec.networkMode === 'none') await this.isolate(pod);
      await this.waitRunning(name, image, signal);
      this.snapshots.started(name, snapshot?.base ?? spec.image, snapshot);
      // The snapshot's files before anything runs; then the state later diffs compare with.
      if (snapshot) await this.snapshots.apply(name, snapshot);
      if (spec.snapshotBaseline) await this.snapshots.baseline(name);
      return name;
    } catch (e) {
      this.budget.podSettled(name);
      if (created) await this.remove(name).catch(() => undefined);
      else { this.watch.untrack(name); this.fates.delete(name); this.budget.release(); }
      if (signal?.aborted) throw new InfraError('other', 'cancelled while the Pod was started', false);
      throw e;
    }
  }

  /** Creates the Pod; a create answered 5xx may have been carried out: a 409 of our own Pod is success. */
  private async create(body: V1Pod): Promise<V1Pod> {
    const name = body.metadata?.name ?? '';
    try {
      return await this.api.call(`create Pod ${name}`, () => this.api.core.createNamespacedPod({ namespace: this.ns, body }));
    } catch (e) {
      if (statusOf(e) !== 409) throw e;
      const existing = await this.api.call(`read Pod ${name}`, () => this.api.core.readNamespacedPod({ name, namespace: this.ns }));
      const want = body.metadata?.annotations ?? {};
      const mine = Object.entries(want).every(([k, v]) => existing.metadata?.annotations?.[k] === v);
      if (!mine) throw new InfraError('container-start', `Pod ${name} already exists and belongs to another trial`, false);
      return existing;
    }
  }

  private async isolate(pod: V1Pod): Promise<void> {
    const body = buildDenyAllPolicy(pod);
    const name = body.metadata?.name ?? '';
    try {
      await this.api.call(`create NetworkPolicy ${name}`, () => this.api.net.createNamespacedNetworkPolicy({ namespace: this.ns, body }));
    } catch (e) {
      if (statusOf(e) !== 409) throw e;
    }
    this.policies.add(name);
    if (!this.warned) {
      this.warned = true;
      this.o.onWarning?.(`trials have no network: each Pod gets a deny-all NetworkPolicy, which only a network plugin that enforces NetworkPolicies (Calico, Cilium, …; not kindnet or flannel alone) applies — the API accepts it either way and this cannot be checked from here (docs/kubernetes.md)`);
    }
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

  private lostTo(pod: string): InfraError | undefined {
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
  private async waitRunning(name: string, image: string, signal?: AbortSignal): Promise<void> {
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
      const v = podStartVerdict(pod, Date.now() - started, this.pendingLimitMs, image);
      if (v.state === 'ready') { this.budget.podSettled(name); return; }
      if (v.state === 'infra') throw v.error ?? new InfraError('container-start', `Pod ${name} did not start`);
      const sched = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      this.budget.podProgress(name, { scheduled: sched?.status === 'True' || Boolean(pod.spec?.nodeName), unschedulable: Boolean(v.unschedulable) });
      const untilLimit = this.pendingLimitMs - (Date.now() - started);
      await this.watch.changed(name, Math.max(50, Math.min(this.pollMs, untilLimit)));
    }
  }

  /** After a lost stream: the Pod's fate says whose fault it was. */
  private async lost(pod: string, detail: string): Promise<never> {
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
  private async takenAway(pod: string, settleMs = 3_000): Promise<InfraError | undefined> {
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

  private target(pod: string): ArchiveTarget {
    return { kc: this.api.conn.kc, namespace: this.ns, pod, container: CONTAINER, lost: (d) => this.lost(pod, d) };
  }

  async exec(pod: string, req: ExecRequest): Promise<ExecOutcome> {
    const known = this.lostTo(pod);
    if (known) throw known;
    const started = Date.now();
    // The watch saw the Pod taken away: the stream may never say so (a lost node), so end it now.
    const fate = this.fates.get(pod);
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    if (req.signal?.aborted || fate?.ctl.signal.aborted) ctl.abort();
    req.signal?.addEventListener('abort', stop, { once: true });
    fate?.ctl.signal.addEventListener('abort', stop, { once: true });
    const stdout = new OutputBuffer();
    const stderr = new OutputBuffer();
    const end = await podExec(this.api.conn.kc, this.ns, pod, CONTAINER, {
      signal: ctl.signal,
      cmd: wrapCommand(req.cmd, { ...(req.env ? { env: req.env } : {}), ...(req.user ? { user: req.user } : {}), ...(req.workdir ? { workdir: req.workdir } : {}) }),
      onStdout: (c) => { stdout.push(c); req.onStdout?.(c); },
      onStderr: (c) => { stderr.push(c); req.onStderr?.(c); },
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      heartbeat: () => this.ping(), heartbeatMs: this.api.callTimeoutMs,
    }).finally(() => { req.signal?.removeEventListener('abort', stop); fate?.ctl.signal.removeEventListener('abort', stop); });
    const base = { stdout: stdout.text(), stderr: stderr.text(), durationMs: Date.now() - started };
    const lostNow = this.lostTo(pod);
    if (lostNow && end.end !== 'done') throw lostNow;
    if (end.end === 'lost') return this.lost(pod, end.detail);
    if (end.end === 'done') {
      // Killed by a signal: the agent's own doing, or the cluster evicting the Pod under it.
      if (end.exitCode >= 128) { const lostTo = await this.takenAway(pod); if (lostTo) throw lostTo; }
      return { ...base, exitCode: end.exitCode, timedOut: false, cancelled: false };
    }
    return { ...base, exitCode: null, timedOut: end.end === 'timeout', cancelled: end.end === 'cancelled' };
  }

  async putArchive(pod: string, dir: string, tar: Buffer | Readable): Promise<void> {
    try {
      await putPodArchive(this.target(pod), dir, tar);
    } catch (e) {
      throw (await this.takenAway(pod)) ?? e;
    }
  }

  async getArchive(pod: string, path: string): Promise<Readable | undefined> {
    try {
      return await getPodArchive(this.target(pod), path);
    } catch (e) {
      throw (await this.takenAway(pod)) ?? e;
    }
  }

  diff(pod: string): Promise<FileChange[]> {
    return this.snapshots.diff(pod);
  }

  commit(pod: string, labels: Readonly<Record<string, string>>, opts?: CommitOptions): Promise<string> {
    return this.snapshots.commit(pod, labels, opts?.dir);
  }

  /** A snapshot's files go; a registry's images are not this client's to remove. */
  removeImage(ref: string): Promise<void> {
    this.snapshots.remove(ref);
    return Promise.resolve();
  }

  async remove(pod: string): Promise<void> {
    this.watch.untrack(pod);
    this.snapshots.forget(pod);
    this.fates.delete(pod);
    const held = this.held.delete(pod);
    try {
      if (this.policies.delete(pod)) {
        await this.api.call(`delete NetworkPolicy ${pod}`, () => this.api.net.deleteNamespacedNetworkPolicy({ name: pod, namespace: this.ns })).catch((e: unknown) => { if (!isGone(e)) throw e; });
      }
      await this.api.call(`delete Pod ${pod}`, () => this.api.core.deleteNamespacedPod({ name: pod, namespace: this.ns, gracePeriodSeconds: 0, propagationPolicy: 'Background' })).catch((e: unknown) => { if (!isGone(e)) throw e; });
    } finally {
      if (held) {
        this.budget.podSettled(pod);
        this.budget.release();
      }
    }
  }

  async listByLabel(label: string): Promise<ContainerSummary[]> {
    const list = await this.api.call('list Pods', () => this.api.core.listNamespacedPod({ namespace: this.ns, labelSelector: label }));
    return list.items.map((p) => ({ id: p.metadata?.name ?? '', labels: ownerLabels(p.metadata), state: p.status?.phase ?? 'Unknown' }));
  }

  /**
   * Trial NetworkPolicies whose Pod is gone (a cluster's garbage collector removes them through their
   * owner reference; this covers API servers without one). Policies are listed before Pods: a policy
   * is only created after its Pod, so one listed first whose Pod is missing later is an orphan.
   */
  async reapExtras(): Promise<number> {
    const policies = await this.api.call('list NetworkPolicies', () => this.api.net.listNamespacedNetworkPolicy({ namespace: this.ns, labelSelector: LABEL }));
    if (!policies.items.length) return 0;
    const pods = new Set((await this.listByLabel(LABEL)).map((p) => p.id));
    let n = 0;
    for (const p of policies.items) {
      const name = p.metadata?.name;
      if (!name || pods.has(name) || this.policies.has(name)) continue;
      await this.api.call(`delete NetworkPolicy ${name}`, () => this.api.net.deleteNamespacedNetworkPolicy({ name, namespace: this.ns })).catch((e: unknown) => { if (!isGone(e)) throw e; });
      n++;
    }
    return n;
  }

  async inspect(pod: string): Promise<ContainerState | undefined> {
    let p: V1Pod;
    try {
      p = await this.api.call(`read Pod ${pod}`, () => this.api.core.readNamespacedPod({ name: pod, namespace: this.ns }));
    } catch (e) {
      if (isGone(e)) return undefined;
      throw e;
    }
    // Taken away by the cluster: the trial's infra, never "the container died".
    const lostTo = podLost(p);
    if (lostTo) throw lostTo;
    const cs = p.status?.containerStatuses?.find((c) => c.name === CONTAINER);
    const t = cs?.state?.terminated;
    if (!t) return { running: p.status?.phase === 'Running' || p.status?.phase === 'Pending', oomKilled: false, exitCode: null };
    const lifetimeMs = t.startedAt && t.finishedAt ? new Date(t.finishedAt).getTime() - new Date(t.startedAt).getTime() : NaN;
    return { running: false, oomKilled: t.reason === 'OOMKilled', exitCode: t.exitCode ?? null, ...(Number.isFinite(lifetimeMs) && lifetimeMs >= 0 ? { lifetimeMs } : {}) };
  }
}
