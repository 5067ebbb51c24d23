import type { Readable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import {
  InfraError, LABEL, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary,
  type ExecOutcome, type ExecRequest,
} from '../runtime';
import { OutputBuffer } from '../outputBuffer';
import { PodBudget } from './budget';
import { podLost, podStartVerdict } from './classify';
import { isGone, KubeApi, statusOf } from './kubeApi';
import { getPodArchive, putPodArchive, type ArchiveTarget } from './podArchive';
import { podExec, wrapCommand } from './podExec';
import { buildDenyAllPolicy, buildPod, CONTAINER, DEADLINE_SLACK_SEC, ownerLabels } from './podSpec';
import { qualify, type Registry } from './registry';

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
  readonly pollMs?: number;
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
export class KubernetesRuntime implements ContainerRuntime {
  readonly endpoint: string;
  readonly backend = 'kubernetes' as const;
  readonly budget: PodBudget;
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
    this.pollMs = o.pollMs ?? 250;
  }

  private get ns(): string {
    return this.api.namespace;
  }

  async ping(): Promise<void> {
    await this.api.call('a list of Pods (ping)', () => this.api.core.listNamespacedPod({ namespace: this.ns, limit: 1 }), 2);
  }

  /** Whether the registry has the image the Pods would pull (the local tag, qualified). */
  imageExists(ref: string): Promise<boolean> {
    return this.o.registry.hasManifest(qualify(this.o.registry.address, ref));
  }

  async buildImage(spec: BuildSpec): Promise<void> {
    const remote = qualify(this.o.registry.address, spec.tag);
    if (!this.o.publisher) throw new InfraError('image-missing', `image ${remote} is not in the registry; push it with \`taskwright images push --registry ${this.o.registry.address.host}${this.o.registry.address.prefix ? `/${this.o.registry.address.prefix}` : ''} <tasks>\``, false);
    await this.o.publisher.publish(spec, remote);
  }

  async start(spec: ContainerSpec, signal?: AbortSignal): Promise<string> {
    await this.budget.acquire(signal);
    const image = qualify(this.o.registry.address, spec.image);
    const deadline = (spec.deadlineSec ?? 3600) + DEADLINE_SLACK_SEC;
    const body = buildPod(spec, { namespace: this.ns, image, activeDeadlineSeconds: deadline, ...(spec.limits.storageBytes ? { storageBytes: spec.limits.storageBytes } : {}), ...(this.o.pullSecrets ? { pullSecrets: this.o.pullSecrets } : {}) });
    const name = body.metadata?.name ?? '';
    let created = false;
    try {
      const pod = await this.create(body);
      created = true;
      this.held.add(name);
      this.budget.podPending(name);
      if (spec.networkMode === 'none') await this.isolate(pod);
      await this.waitRunning(name, image, signal);
      return name;
    } catch (e) {
      this.budget.podSettled(name);
      if (created) await this.remove(name).catch(() => undefined);
      else this.budget.release();
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

  private async waitRunning(name: string, image: string, signal?: AbortSignal): Promise<void> {
    const started = Date.now();
    let wait = this.pollMs;
    for (;;) {
      if (signal?.aborted) throw new InfraError('other', 'cancelled while the Pod was started', false);
      const pod = await this.api.call(`read Pod ${name}`, () => this.api.core.readNamespacedPodStatus({ name, namespace: this.ns }));
      const v = podStartVerdict(pod, Date.now() - started, this.pendingLimitMs, image);
      if (v.state === 'ready') { this.budget.podSettled(name); return; }
      if (v.state === 'infra') throw v.error ?? new InfraError('container-start', `Pod ${name} did not start`);
      const sched = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      this.budget.podProgress(name, { scheduled: sched?.status === 'True' || Boolean(pod.spec?.nodeName), unschedulable: Boolean(v.unschedulable) });
      await sleep(wait, signal);
      wait = Math.min(2_000, Math.round(wait * 1.5));
    }
  }

  /** After a lost stream: the Pod's fate says whose fault it was. */
  private async lost(pod: string, detail: string): Promise<never> {
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
    for (;;) {
      let p: V1Pod;
      try {
        p = await this.api.call(`read Pod ${pod}`, () => this.api.core.readNamespacedPod({ name: pod, namespace: this.ns }), 2);
      } catch (e) {
        return isGone(e) ? new InfraError('evicted', `Pod ${pod} was deleted by someone else during the trial`) : undefined;
      }
      const lostTo = podLost(p);
      if (lostTo) return lostTo;
      const running = p.status?.containerStatuses?.find((c) => c.name === CONTAINER)?.state?.running;
      if (running || Date.now() >= end) return undefined;
      await sleep(250);
    }
  }

  private target(pod: string): ArchiveTarget {
    return { kc: this.api.conn.kc, namespace: this.ns, pod, container: CONTAINER, lost: (d) => this.lost(pod, d) };
  }

  async exec(pod: string, req: ExecRequest): Promise<ExecOutcome> {
    const started = Date.now();
    const stdout = new OutputBuffer();
    const stderr = new OutputBuffer();
    const end = await podExec(this.api.conn.kc, this.ns, pod, CONTAINER, {
      cmd: wrapCommand(req.cmd, { ...(req.env ? { env: req.env } : {}), ...(req.user ? { user: req.user } : {}), ...(req.workdir ? { workdir: req.workdir } : {}) }),
      onStdout: (c) => { stdout.push(c); req.onStdout?.(c); },
      onStderr: (c) => { stderr.push(c); req.onStderr?.(c); },
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      heartbeat: () => this.ping(), heartbeatMs: this.api.callTimeoutMs,
    });
    const base = { stdout: stdout.text(), stderr: stderr.text(), durationMs: Date.now() - started };
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

  async remove(pod: string): Promise<void> {
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
