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
import { podLost } from './classify';
import { isGone, KubeApi, statusOf } from './kubeApi';
import { getPodArchive, putPodArchive, type ArchiveTarget } from './podArchive';
import { podExec, wrapCommand, type PodExecEnd, type PodExecRequest } from './podExec';
import { PodSnapshots } from './podSnapshot';
import { buildDenyAllPolicy, buildPod, CONTAINER, DEADLINE_SLACK_SEC, ownerLabels } from './podSpec';
import { PodFates } from './podFates';
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
  /** Each Pod's fate as the watch sees it (podFates.ts). */
  private readonly pods: PodFates;
  private readonly api: KubeApi;
  private readonly policies = new Set<string>();
  private warned = false;

  constructor(private readonly o: KubernetesOptions) {
    this.api = o.api;
    this.endpoint = o.api.endpoint;
    this.budget = new PodBudget(o.slots, o.pendingGraceMs ?? 5_000);
    const pollMs = o.pollMs ?? 2_000;
    this.watch = new PodWatch(this.api, `${LABEL_CLIENT}=${this.clientId}`, {
      onForbidden: (d) => o.onWarning?.(`Pods cannot be watched with these credentials (${d}): their status is read every ${Math.round(pollMs / 1000)} s instead; give the Role the verb watch on pods (docs/kubernetes.md)`),
    });
    this.pods = new PodFates(this.api, this.watch, this.budget, { pendingLimitMs: o.pendingLimitMs ?? fromEnvSec('TASKWRIGHT_K8S_PENDING_SEC', 300), pollMs });
    const maxMb = Number(process.env.TASKWRIGHT_K8S_SNAPSHOT_MAX_MB);
    this.snapshots = new PodSnapshots({
      exec: (pod, req) => this.podExec(pod, req),
      put: (pod, dir, tar) => this.putArchive(pod, dir, tar),
      lost: (pod, d) => this.pods.lost(pod, d),
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
      this.pods.track(name);
      const pod = await this.create(body);
      created = true;
      this.pods.hold(name);
      this.budget.podPending(name);
      if (spec.networkMode === 'none') await this.isolate(pod);
      await this.pods.waitRunning(name, image, signal);
      this.snapshots.started(name, snapshot?.base ?? spec.image, snapshot);
      // The snapshot's files before anything runs; then the state later diffs compare with.
      if (snapshot) await this.snapshots.apply(name, snapshot);
      if (spec.snapshotBaseline) await this.snapshots.baseline(name);
      return name;
    } catch (e) {
      this.budget.podSettled(name);
      if (created) await this.remove(name).catch(() => undefined);
      else { this.pods.forget(name); this.budget.release(); }
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

  private target(pod: string): ArchiveTarget {
    return { kc: this.api.conn.kc, namespace: this.ns, pod, container: CONTAINER, lost: (d) => this.pods.lost(pod, d) };
  }

  async exec(pod: string, req: ExecRequest): Promise<ExecOutcome> {
    const known = this.pods.lostTo(pod);
    if (known) throw known;
    const started = Date.now();
    // The watch saw the Pod taken away: the stream may never say so (a lost node), so end it now.
    const fate = this.pods.signal(pod);
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    if (req.signal?.aborted || fate?.aborted) ctl.abort();
    req.signal?.addEventListener('abort', stop, { once: true });
    fate?.addEventListener('abort', stop, { once: true });
    const stdout = new OutputBuffer();
    const stderr = new OutputBuffer();
    const end = await podExec(this.api.conn.kc, this.ns, pod, CONTAINER, {
      signal: ctl.signal,
      cmd: wrapCommand(req.cmd, { ...(req.env ? { env: req.env } : {}), ...(req.user ? { user: req.user } : {}), ...(req.workdir ? { workdir: req.workdir } : {}) }),
      onStdout: (c) => { stdout.push(c); req.onStdout?.(c); },
      onStderr: (c) => { stderr.push(c); req.onStderr?.(c); },
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      heartbeat: () => this.ping(), heartbeatMs: this.api.callTimeoutMs,
    }).finally(() => { req.signal?.removeEventListener('abort', stop); fate?.removeEventListener('abort', stop); });
    const base = { stdout: stdout.text(), stderr: stderr.text(), durationMs: Date.now() - started };
    const lostNow = this.pods.lostTo(pod);
    if (lostNow && end.end !== 'done') throw lostNow;
    if (end.end === 'lost') return this.pods.lost(pod, end.detail);
    if (end.end === 'done') {
      // Killed by a signal: the agent's own doing, or the cluster evicting the Pod under it.
      if (end.exitCode >= 128) { const lostTo = await this.pods.takenAway(pod); if (lostTo) throw lostTo; }
      return { ...base, exitCode: end.exitCode, timedOut: false, cancelled: false };
    }
    return { ...base, exitCode: null, timedOut: end.end === 'timeout', cancelled: end.end === 'cancelled' };
  }

  async putArchive(pod: string, dir: string, tar: Buffer | Readable): Promise<void> {
    try {
      await putPodArchive(this.target(pod), dir, tar);
    } catch (e) {
      throw (await this.pods.takenAway(pod)) ?? e;
    }
  }

  async getArchive(pod: string, path: string): Promise<Readable | undefined> {
    try {
      return await getPodArchive(this.target(pod), path);
    } catch (e) {
      throw (await this.pods.takenAway(pod)) ?? e;
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
    this.snapshots.forget(pod);
    const held = this.pods.forget(pod);
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
