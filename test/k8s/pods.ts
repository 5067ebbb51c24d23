// The fake's scheduler and kubelet for pods: defaults the API server fills in, binding to the one
// fake node (or Unschedulable), image "pulls" that succeed only for images already on the Docker
// engine, containers run for real, status phases and conditions as the kubelet reports them,
// activeDeadlineSeconds, evictions and graceful deletion.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IContainerStatus } from 'kubernetes-models/v1/ContainerStatus';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IPodCondition } from 'kubernetes-models/v1/PodCondition';
import { createOptions, localImage, removeContainer, TOKEN_PATH, tokenArchive } from './docker';
import { selectorObject } from './selectors';
import { NETWORK_POLICIES, PODS } from './status';
import { now, type Store } from './store';
import { quantity } from './validate';

export const NODE_NAME = 'fake-kube-node';

export interface PodControllerOptions {
  readonly docker: Docker;
  readonly store: Store;
  readonly serverId: string;
  /** Maps a pod's image reference to a local image (the fake's registry); identity by default. */
  readonly resolveImage: (ref: string) => string;
  readonly imageRetryMs: number;
  readonly restartBackoffMs: number;
  /** Run pods selected by a NetworkPolicy that denies all egress with no network. */
  readonly enforceNetworkPolicies: boolean;
  /** The fake node's allocatable CPU (cores) and memory (bytes); pods whose requests do not fit stay Pending. */
  readonly nodeCpu: number;
  readonly nodeMemory: number;
}

interface Runtime {
  readonly containers: Map<string, string>;
  readonly volumes: Map<string, { docker?: string; tmpfs?: boolean }>;
  readonly timers: Set<NodeJS.Timeout>;
  stopped: boolean;
}

const terminal = (p: IPod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function setCondition(p: IPod, type: string, value: boolean, reason?: string, message?: string): void {
  const status = (p.status ??= {});
  const list: IPodCondition[] = (status.conditions ??= []);
  const cur = list.find((c) => c.type === type);
  const v = value ? 'True' : 'False';
  const next: IPodCondition = { type, status: v, lastTransitionTime: cur && cur.status === v ? cur.lastTransitionTime : now(), ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
  if (cur) list.splice(list.indexOf(cur), 1, next); else list.push(next);
}

const requestOf = (c: IContainer, k: string): number => quantity((c.resources?.requests as Record<string, unknown> | undefined)?.[k] ?? (c.resources?.limits as Record<string, unknown> | undefined)?.[k] ?? 0) ?? 0;
const podRequest = (p: IPod, k: string): number => (p.spec?.containers ?? []).reduce((s, c) => s + requestOf(c, k), 0);

function qosClass(p: IPod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const cs = p.spec?.containers ?? [];
  const has = cs.some((c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length);
  if (!has) return 'BestEffort';
  const guaranteed = cs.every((c) => ['cpu', 'memory'].every((k) => {
    const l = (c.resources?.limits as Record<string, unknown> | undefined)?.[k];
    const r = (c.resources?.requests as Record<string, unknown> | undefined)?.[k] ?? l;
    return l !== undefined && quantity(l) === quantity(r);
  }));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export class PodController {
  /** When set, new pods are not bound: PodScheduled False, reason Unschedulable, this message. */
  unschedulable: string | undefined;
  /** At most this many pods bound at once (pods beyond stay Pending: "Too many pods"). */
  maxPods: number | undefined;
  private readonly rt = new Map<string, Runtime>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Whether any pod reached the engine (close() then sweeps it by label). */
  usedDocker = false;

  constructor(private readonly o: PodControllerOptions) {}

  /** What the API server's defaulting and admission add to a pod before it is stored. */
  defaults(pod: IPod): IPod {
    const spec = { ...pod.spec } as NonNullable<IPod['spec']>;
    spec.restartPolicy ??= 'Always';
    spec.terminationGracePeriodSeconds ??= 30;
    spec.dnsPolicy ??= 'ClusterFirst';
    spec.schedulerName ??= 'default-scheduler';
    spec.serviceAccountName ??= 'default';
    spec.serviceAccount = spec.serviceAccountName;
    spec.securityContext ??= {};
    spec.enableServiceLinks ??= true;
    spec.priority ??= 0;
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
    spec.tolerations ??= ['not-ready', 'unreachable'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
    const mountToken = spec.automountServiceAccountToken !== false;
    const tokenVolume = `kube-api-access-${randomUUID().slice(0, 5)}`;
    if (mountToken) spec.volumes = [...(spec.volumes ?? []), { name: tokenVolume, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }];
    spec.containers = (spec.containers ?? []).map((c) => {
      const tag = /:[^/]+$/.test(c.image ?? '') ? (c.image ?? '').split(':').pop() : 'latest';
      const limits = c.resources?.limits as Record<string, string> | undefined;
      const requests = limits ? { ...limits, ...(c.resources?.requests as Record<string, string> | undefined) } : c.resources?.requests;
      return {
        ...c, imagePullPolicy: c.imagePullPolicy ?? (tag === 'latest' && !(c.image ?? '').includes('@') ? 'Always' : 'IfNotPresent'),
        terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log', terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
        resources: { ...c.resources, ...(requests ? { requests } : {}) },
        volumeMounts: mountToken ? [...(c.volumeMounts ?? []), { name: tokenVolume, readOnly: true, mountPath: TOKEN_PATH }] : c.volumeMounts,
      } as IContainer;
    });
    const out: IPod = { ...pod, apiVersion: 'v1', kind: 'Pod', spec, status: { phase: 'Pending', qosClass: qosClass({ ...pod, spec }) } };
    return out;
  }

  private track<T>(p: Promise<T>): void {
    const q = p.catch((e: unknown) => { process.stderr.write(`[fake-kube] ${e instanceof Error ? e.message : String(e)}\n`); });
    this.pending.add(q);
    void q.finally(() => this.pending.delete(q));
  }

  private patch(p: IPod, mutate: (p: IPod) => void): IPod | undefined {
    return this.o.store.update<IPod>(PODS, p.metadata?.namespace, p.metadata?.name ?? '', mutate);
  }

  /** Binds every pod that waits for a node, in creation order, while it fits. */
  reconcile(): void {
    const pods = this.o.store.list<IPod>(PODS).filter((p) => !p.metadata?.deletionTimestamp);
    const bound = pods.filter((p) => p.spec?.nodeName && !terminal(p));
    let cpu = bound.reduce((s, p) => s + podRequest(p, 'cpu'), 0);
    let mem = bound.reduce((s, p) => s + podRequest(p, 'memory'), 0);
    let count = bound.length;
    for (const p of pods.filter((x) => !x.spec?.nodeName && !terminal(x))) {
      const why = this.unschedulable
        ?? (this.maxPods !== undefined && count >= this.maxPods ? '1 Too many pods' : undefined)
        ?? (cpu + podRequest(p, 'cpu') > this.o.nodeCpu ? '1 Insufficient cpu' : undefined)
        ?? (mem + podRequest(p, 'memory') > this.o.nodeMemory ? '1 Insufficient memory' : undefined);
      if (why) {
        const message = why.startsWith('0/') ? why : `0/1 nodes are available: ${why}. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`;
        const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled');
        if (!c || c.message !== message) this.patch(p, (q) => setCondition(q, 'PodScheduled', false, 'Unschedulable', message));
        continue;
      }
      count++; cpu += podRequest(p, 'cpu'); mem += podRequest(p, 'memory');
      const boundPod = this.patch(p, (q) => {
        q.spec = { ...q.spec, nodeName: NODE_NAME } as NonNullable<IPod['spec']>;
        q.status = { ...q.status, phase: 'Pending', hostIP: '127.0.0.1', hostIPs: [{ ip: '127.0.0.1' }], startTime: now() };
        setCondition(q, 'PodReadyToStartContainers', false);
        setCondition(q, 'Initialized', true);
        const names = (q.spec.containers ?? []).map((c) => c.name).join(' ');
        setCondition(q, 'Ready', false, 'ContainersNotReady', `containers with unready status: [${names}]`);
        setCondition(q, 'ContainersReady', false, 'ContainersNotReady', `containers with unready status: [${names}]`);
        setCondition(q, 'PodScheduled', true);
        q.status.containerStatuses = (q.spec.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'ContainerCreating' } } }));
      });
      if (boundPod) this.track(this.start(boundPod));
    }
  }

  private runtime(uid: string): Runtime {
    let r = this.rt.get(uid);
    if (!r) { r = { containers: new Map(), volumes: new Map(), timers: new Set(), stopped: false }; this.rt.set(uid, r); }
    return r;
  }

  private later(rt: Runtime, ms: number, fn: () => void): void {
    const t = setTimeout(() => { rt.timers.delete(t); if (!rt.stopped) fn(); }, ms);
    rt.timers.add(t);
  }

  private setContainer(p: IPod, name: string, mutate: (s: IContainerStatus) => void): IPod | undefined {
    return this.patch(p, (q) => {
      const s = q.status?.containerStatuses?.find((c) => c.name === name);
      if (s) mutate(s);
    });
  }

  private async start(pod: IPod): Promise<void> {
    this.usedDocker = true;
    const uid = pod.metadata?.uid ?? '';
    const rt = this.runtime(uid);
    const ads = pod.spec?.activeDeadlineSeconds;
    if (ads) this.later(rt, ads * 1000, () => this.track(this.fail(pod, 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline')));
    const containers = pod.spec?.containers ?? [];
    const images = new Map<string, { ref: string; id: string }>();
    for (let attempt = 0; ; attempt++) {
      let missing: IContainer | undefined;
      for (const c of containers) {
        const found = await localImage(this.o.docker, this.o.resolveImage(c.image ?? ''));
        if (found) images.set(c.name, found); else { missing = c; break; }
      }
      if (rt.stopped) return;
      if (!missing) break;
      const image = missing.image ?? '';
      const reason = attempt === 0 ? 'ErrImagePull' : 'ImagePullBackOff';
      const message = attempt === 0 ? `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": not found` : `Back-off pulling image "${image}"`;
      this.setContainer(pod, missing.name, (s) => { s.state = { waiting: { reason, message } }; });
      await sleep(this.o.imageRetryMs);
      if (rt.stopped) return;
    }
    for (const v of pod.spec?.volumes ?? []) {
      if (!v.emptyDir) continue;
      if (v.emptyDir.medium === 'Memory') { rt.volumes.set(v.name, { tmpfs: true }); continue; }
      const vol = await this.o.docker.createVolume({ Name: `fake-kube-${uid.slice(0, 8)}-${v.name}`, Labels: { taskwright: '1', 'taskwright.fake-kube': this.o.serverId } });
      rt.volumes.set(v.name, { docker: vol.name });
    }
    const isolated = this.o.enforceNetworkPolicies && this.o.store.list<INetworkPolicy>(NETWORK_POLICIES, pod.metadata?.namespace)
      .some((np) => (np.spec?.policyTypes ?? []).includes('Egress') && !(np.spec?.egress ?? []).length && selectorObject(np.spec?.podSelector ?? {})(pod.metadata?.labels));
    let first: string | undefined;
    for (const c of containers) {
      if (rt.stopped) return;
      let container: Docker.Container;
      try {
        container = await this.o.docker.createContainer(createOptions(c, { serverId: this.o.serverId, pod, image: images.get(c.name)!.ref, volumes: rt.volumes, isolated, ...(first ? { networkOf: first } : {}) }));
      } catch (e) {
        this.setContainer(pod, c.name, (s) => { s.state = { waiting: { reason: 'CreateContainerError', message: e instanceof Error ? e.message : String(e) } }; });
        return;
      }
      rt.containers.set(c.name, container.id);
      first ??= container.id;
      if (rt.stopped) { await removeContainer(this.o.docker, container.id); return; }
      if (c.volumeMounts?.some((m) => m.mountPath === TOKEN_PATH)) await container.putArchive(tokenArchive(pod.metadata?.namespace ?? ''), { path: '/' });
    }
    for (const c of containers) this.track(this.run(pod, c, images.get(c.name)!.id, false));
  }

  /** Starts one container and follows it to its exit (and restarts it as restartPolicy says). */
  private async run(pod: IPod, c: IContainer, imageId: string, restart: boolean): Promise<void> {
    const rt = this.runtime(pod.metadata?.uid ?? '');
    const id = rt.containers.get(c.name);
    if (!id || rt.stopped) return;
    const container = this.o.docker.getContainer(id);
    try { await container.start(); } catch (e) {
      if (rt.stopped) return;
      this.exited(pod, c, imageId, 128, 'StartError', e instanceof Error ? e.message : String(e));
      return;
    }
    // Asked after the start: "not-running" answers at once, with the exit code, if it has already ended.
    const waiting = container.wait({ condition: 'not-running' });
    const info = await container.inspect();
    if (rt.stopped) return;
    const updated = this.setContainer(pod, c.name, (s) => {
      s.state = { running: { startedAt: now() } };
      s.ready = true; s.started = true; s.containerID = `docker://${id}`; s.imageID = imageId;
      if (restart) s.restartCount = (s.restartCount ?? 0) + 1;
    });
    if (updated && (updated.status?.containerStatuses ?? []).every((s) => s.ready)) {
      this.patch(pod, (q) => {
        q.status = { ...q.status, phase: 'Running' };
        const ip = first(info) ?? '';
        if (ip) { q.status.podIP = ip; q.status.podIPs = [{ ip }]; }
        setCondition(q, 'PodReadyToStartContainers', true);
        setCondition(q, 'Ready', true);
        setCondition(q, 'ContainersReady', true);
      });
    }
    const { StatusCode } = (await waiting) as { StatusCode: number };
    if (rt.stopped) return;
    const after = await container.inspect().catch(() => undefined);
    this.exited(pod, c, imageId, StatusCode, after?.State.OOMKilled ? 'OOMKilled' : StatusCode === 0 ? 'Completed' : 'Error');
  }

  private exited(pod: IPod, c: IContainer, imageId: string, exitCode: number, reason: string, message?: string): void {
    const rt = this.runtime(pod.metadata?.uid ?? '');
    const policy = pod.spec?.restartPolicy ?? 'Always';
    const restarts = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    const id = rt.containers.get(c.name) ?? '';
    const terminated = { exitCode, reason, ...(message ? { message } : {}), finishedAt: now(), containerID: `docker://${id}` };
    const p = this.setContainer(pod, c.name, (s) => {
      const startedAt = s.state?.running?.startedAt;
      s.ready = false; s.started = false;
      if (restarts) { s.lastState = { terminated: { ...terminated, ...(startedAt ? { startedAt } : {}) } }; s.state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off restarting failed container ${c.name} in pod ${pod.metadata?.name ?? ''}` } }; }
      else s.state = { terminated: { ...terminated, ...(startedAt ? { startedAt } : {}) } };
    });
    if (!p) return;
    const statuses = p.status?.containerStatuses ?? [];
    const done = statuses.every((s) => s.state?.terminated);
    this.patch(p, (q) => {
      const names = statuses.filter((s) => !s.ready).map((s) => s.name).join(' ');
      if (done) {
        const ok = statuses.every((s) => s.state?.terminated?.exitCode === 0);
        q.status = { ...q.status, phase: ok ? 'Succeeded' : 'Failed' };
        setCondition(q, 'Ready', false, ok ? 'PodCompleted' : 'PodFailed');
        setCondition(q, 'ContainersReady', false, ok ? 'PodCompleted' : 'PodFailed');
        setCondition(q, 'PodReadyToStartContainers', false);
      } else {
        setCondition(q, 'Ready', false, 'ContainersNotReady', `containers with unready status: [${names}]`);
        setCondition(q, 'ContainersReady', false, 'ContainersNotReady', `containers with unready status: [${names}]`);
      }
    });
    if (done) this.reconcile();
    else if (restarts) this.later(rt, this.o.restartBackoffMs, () => this.track(this.run(pod, c, imageId, true)));
  }

  /** Ends a pod the way the kubelet does for a deadline or an eviction: containers killed, phase Failed. */
  async fail(pod: IPod, reason: string, message: string): Promise<IPod | undefined> {
    const cur = this.o.store.get<IPod>(PODS, pod.metadata?.namespace, pod.metadata?.name ?? '');
    if (!cur || terminal(cur) || cur.metadata?.uid !== pod.metadata?.uid) return cur;
    const rt = this.runtime(cur.metadata?.uid ?? '');
    rt.stopped = true;
    for (const t of rt.timers) clearTimeout(t);
    await Promise.all([...rt.containers.values()].map((id) => this.o.docker.getContainer(id).kill().catch(() => undefined)));
    const out = this.patch(cur, (q) => {
      q.status = { ...q.status, phase: 'Failed', reason, message };
      for (const s of q.status.containerStatuses ?? []) {
        const startedAt = s.state?.running?.startedAt;
        if (!s.state?.terminated) s.state = { terminated: { exitCode: 137, reason: 'Error', finishedAt: now(), ...(startedAt ? { startedAt } : {}), ...(s.containerID ? { containerID: s.containerID } : {}) } };
        s.ready = false; s.started = false;
      }
      if (reason === 'Evicted') setCondition(q, 'DisruptionTarget', true, 'TerminationByKubelet', message);
      setCondition(q, 'Ready', false, 'PodFailed');
      setCondition(q, 'ContainersReady', false, 'PodFailed');
      setCondition(q, 'PodReadyToStartContainers', false);
    });
    this.reconcile();
    return out;
  }

  /** DELETE: graceful (deletionTimestamp, containers stopped within the grace period, then gone) or at once. */
  delete(ns: string, name: string, grace: number | undefined): IPod {
    const cur = this.o.store.mustGet<IPod>(PODS, ns, name);
    if (cur.metadata?.deletionTimestamp) return cur;
    const g = grace ?? cur.spec?.terminationGracePeriodSeconds ?? 30;
    const immediate = g === 0 || !cur.spec?.nodeName;
    const rt = this.runtime(cur.metadata?.uid ?? '');
    const out = immediate ? this.o.store.remove<IPod>(PODS, ns, name)! : this.patch(cur, (q) => {
      q.metadata = { ...q.metadata, deletionTimestamp: new Date(Date.now() + g * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'), deletionGracePeriodSeconds: g };
    })!;
    rt.stopped = true;
    for (const t of rt.timers) clearTimeout(t);
    this.track((async () => {
      const running = !terminal(cur);
      await Promise.all([...rt.containers.values()].map(async (id) => {
        if (running && g > 0) await this.o.docker.getContainer(id).stop({ t: g }).catch(() => undefined);
        await removeContainer(this.o.docker, id);
      }));
      await Promise.all([...rt.volumes.values()].filter((v) => v.docker).map((v) => this.o.docker.getVolume(v.docker!).remove().catch(() => undefined)));
      this.rt.delete(cur.metadata?.uid ?? '');
      if (!immediate) this.o.store.remove(PODS, ns, name);
      this.reconcile();
    })());
    return out;
  }

  /** The Docker container behind a pod's container, for exec and logs. */
  containerId(pod: IPod, container: string): string | undefined {
    return this.rt.get(pod.metadata?.uid ?? '')?.containers.get(container);
  }

  /** A container's output so far, stdout and stderr interleaved as `kubectl logs` shows it. */
  async logs(id: string, tail?: number): Promise<string> {
    const raw = (await this.o.docker.getContainer(id).logs({ stdout: true, stderr: true, follow: false, ...(tail !== undefined ? { tail } : {}) })) as unknown as Buffer;
    const out: Buffer[] = [];
    for (let i = 0; i + 8 <= raw.length;) {
      const size = raw.readUInt32BE(i + 4);
      out.push(raw.subarray(i + 8, i + 8 + size));
      i += 8 + size;
    }
    return Buffer.concat(out).toString('utf8');
  }

  /** Docker container ids of every pod still held. */
  dockerIds(): string[] {
    return [...this.rt.values()].flatMap((r) => [...r.containers.values()]);
  }

  /** Stops every pod's timers and waits for the work under way (removals, starts). */
  async close(): Promise<void> {
    for (const r of this.rt.values()) { r.stopped = true; for (const t of r.timers) clearTimeout(t); }
    // Removing the containers first ends the waits the pending work is blocked in.
    await Promise.all(this.dockerIds().map((id) => removeContainer(this.o.docker, id)));
    while (this.pending.size) await Promise.all([...this.pending]);
    await Promise.all(this.dockerIds().map((id) => removeContainer(this.o.docker, id)));
  }
}

function first(info: Docker.ContainerInspectInfo): string | undefined {
  return Object.values(info.NetworkSettings.Networks ?? {}).map((n) => n.IPAddress).find((ip) => ip);
}

export const defaultNodeCpu = (): number => os.cpus().length;
export const defaultNodeMemory = (): number => os.totalmem();
