// batch/v1 Jobs: the job controller's part that a trial uses — one pod at a time from the template
// (parallelism and completions as given), pods replaced until backoffLimit, Complete/Failed
// conditions, activeDeadlineSeconds, ttlSecondsAfterFinished, and deletion by propagationPolicy
// (Orphan is the API's default for Jobs: their pods stay).
import { randomUUID } from 'node:crypto';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IJobCondition } from 'kubernetes-models/batch/v1/JobCondition';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { PodController } from './pods';
import { deleted, JOBS, PODS } from './status';
import { type KubeObject, now, type Store, type StoreEvent } from './store';

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';

interface Tally { readonly succeeded: Set<string>; readonly failed: Set<string>; timers: NodeJS.Timeout[]; finished: boolean }

const ownerOf = (p: IPod): string | undefined => p.metadata?.ownerReferences?.find((o) => o.kind === 'Job' && o.controller)?.uid;

function setCondition(j: IJob, type: string, reason: string, message: string): void {
  const status = (j.status ??= {});
  const list: IJobCondition[] = (status.conditions ??= []);
  const t = now();
  list.push({ type, status: 'True', reason, message, lastProbeTime: t, lastTransitionTime: t });
}

export class JobController {
  private readonly tallies = new Map<string, Tally>();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: Store, private readonly pods: PodController) {
    this.unsubscribe = store.subscribe((e) => this.onEvent(e));
  }

  /** The API server's defaults for a Job (selector and template labels carry the controller uid). */
  defaults(o: KubeObject): KubeObject {
    const job = o as IJob;
    const uid = randomUUID();
    const name = job.metadata?.name ?? '';
    const spec = { ...job.spec } as NonNullable<IJob['spec']>;
    spec.parallelism ??= 1;
    spec.completions ??= 1;
    spec.backoffLimit ??= 6;
    spec.completionMode ??= 'NonIndexed';
    spec.suspend ??= false;
    spec.manualSelector ??= false;
    spec.podReplacementPolicy ??= 'TerminatingOrFailed';
    const labels = { [CONTROLLER_UID]: uid, [JOB_NAME]: name, 'controller-uid': uid, 'job-name': name };
    spec.selector ??= { matchLabels: { [CONTROLLER_UID]: uid } };
    spec.template = { ...spec.template, metadata: { ...spec.template?.metadata, labels: { ...spec.template?.metadata?.labels, ...labels } } };
    // The store assigns the real uid; created() puts it in place of this provisional one.
    return { ...job, metadata: { ...job.metadata, labels: { ...labels, ...job.metadata?.labels } }, spec, status: {} } as KubeObject;
  }

  /** A Job was stored: align the labels' controller uid with the stored uid, start it. */
  created(o: KubeObject): void {
    const job = o as IJob;
    const ns = job.metadata?.namespace ?? '';
    const uid = job.metadata?.uid ?? '';
    const fix = (l: Record<string, string> | undefined): Record<string, string> => ({ ...l, [CONTROLLER_UID]: uid, 'controller-uid': uid });
    const stored = this.store.update<IJob>(JOBS, ns, job.metadata?.name ?? '', (j) => {
      j.metadata = { ...j.metadata, labels: fix(j.metadata?.labels) };
      const spec = j.spec!;
      spec.selector = { matchLabels: { [CONTROLLER_UID]: uid } };
      spec.template = { ...spec.template, metadata: { ...spec.template.metadata, labels: fix(spec.template.metadata?.labels) } };
      j.status = { startTime: now(), active: 0, ready: 0, terminating: 0, uncountedTerminatedPods: {} };
    });
    if (!stored) return;
    const tally: Tally = { succeeded: new Set(), failed: new Set(), timers: [], finished: false };
    this.tallies.set(uid, tally);
    const ads = stored.spec?.activeDeadlineSeconds;
    if (ads) tally.timers.push(setTimeout(() => this.finish(stored, 'Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'), ads * 1000));
    this.sync(stored);
  }

  private podsOf(job: IJob): IPod[] {
    return this.store.list<IPod>(PODS, job.metadata?.namespace).filter((p) => ownerOf(p) === job.metadata?.uid);
  }

  private onEvent(e: StoreEvent): void {
    if (e.resource !== PODS) return;
    const p = e.object as IPod;
    const owner = ownerOf(p);
    const tally = owner ? this.tallies.get(owner) : undefined;
    if (!owner || !tally || tally.finished) return;
    const podUid = p.metadata?.uid ?? '';
    if (p.status?.phase === 'Succeeded') tally.succeeded.add(podUid);
    else if (p.status?.phase === 'Failed') tally.failed.add(podUid);
    else if (e.type !== 'DELETED') return;
    const job = this.store.list<IJob>(JOBS, p.metadata?.namespace).find((j) => j.metadata?.uid === owner);
    if (job) setImmediate(() => this.sync(job));
  }

  private sync(job: IJob): void {
    const uid = job.metadata?.uid ?? '';
    const tally = this.tallies.get(uid);
    const cur = this.store.get<IJob>(JOBS, job.metadata?.namespace, job.metadata?.name ?? '');
    if (!tally || tally.finished || !cur || cur.metadata?.uid !== uid || cur.metadata?.deletionTimestamp) return;
    const spec = cur.spec!;
    const active = this.podsOf(cur).filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata?.deletionTimestamp);
    if (tally.succeeded.size >= (spec.completions ?? 1)) { this.finish(cur, 'Complete', 'CompletionsReached', 'Reached expected number of succeeded pods'); return; }
    if (tally.failed.size > (spec.backoffLimit ?? 6)) { this.finish(cur, 'Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'); return; }
    const want = Math.min(spec.parallelism ?? 1, (spec.completions ?? 1) - tally.succeeded.size) - active.length;
    for (let i = 0; i < want && !spec.suspend; i++) this.createPod(cur);
    this.store.update<IJob>(JOBS, cur.metadata?.namespace, cur.metadata?.name ?? '', (j) => {
      j.status = { ...j.status, active: active.length + Math.max(0, want), succeeded: tally.succeeded.size || undefined, failed: tally.failed.size || undefined };
    });
  }

  private createPod(job: IJob): void {
    const ns = job.metadata?.namespace ?? '';
    const t = job.spec!.template;
    const pod: IPod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        ...t.metadata, name: `${job.metadata?.name ?? ''}-${randomUUID().replace(/-/g, '').slice(0, 5)}`, namespace: ns,
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata?.name ?? '', uid: job.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: t.spec!,
    };
    this.store.create(PODS, this.pods.defaults(pod), ns);
    this.pods.reconcile();
  }

  private finish(job: IJob, type: 'Complete' | 'Failed', reason: string, message: string): void {
    const tally = this.tallies.get(job.metadata?.uid ?? '');
    if (!tally || tally.finished) return;
    tally.finished = true;
    for (const t of tally.timers) clearTimeout(t);
    const ns = job.metadata?.namespace ?? '';
    if (type === 'Failed') for (const p of this.podsOf(job)) if (p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') this.pods.delete(ns, p.metadata?.name ?? '', undefined);
    const out = this.store.update<IJob>(JOBS, ns, job.metadata?.name ?? '', (j) => {
      setCondition(j, type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget', reason, message);
      setCondition(j, type, reason, message);
      j.status = { ...j.status, active: 0, ready: 0, succeeded: tally.succeeded.size || undefined, failed: tally.failed.size || undefined, ...(type === 'Complete' ? { completionTime: now() } : {}) };
    });
    const ttl = out?.spec?.ttlSecondsAfterFinished;
    if (out && ttl !== undefined) {
      tally.timers = [setTimeout(() => { if (this.store.get(JOBS, ns, out.metadata?.name ?? '')?.metadata?.uid === out.metadata?.uid) this.delete(ns, out.metadata?.name ?? '', 'Background'); }, ttl * 1000)];
    }
  }

  /** DELETE by propagationPolicy: Orphan (the default for Jobs) keeps the pods, Background deletes them after, Foreground before. */
  delete(ns: string, name: string, propagation: string | undefined): { code: number; obj: unknown } {
    const job = this.store.mustGet<IJob>(JOBS, ns, name);
    const uid = job.metadata?.uid ?? '';
    const tally = this.tallies.get(uid);
    if (tally) { tally.finished = true; for (const t of tally.timers) clearTimeout(t); this.tallies.delete(uid); }
    const pods = this.podsOf(job);
    const policy = propagation ?? 'Orphan';
    if (policy === 'Background') {
      const gone = this.store.remove<IJob>(JOBS, ns, name);
      for (const p of pods) this.pods.delete(ns, p.metadata?.name ?? '', undefined);
      return { code: 200, obj: deleted(JOBS, name, gone?.metadata?.uid) };
    }
    const finalizer = policy === 'Orphan' ? 'orphan' : 'foregroundDeletion';
    const marked = this.store.update<IJob>(JOBS, ns, name, (j) => { j.metadata = { ...j.metadata, deletionTimestamp: now(), deletionGracePeriodSeconds: 0, finalizers: [finalizer] }; });
    setImmediate(() => {
      if (policy === 'Orphan') {
        for (const p of pods) this.store.update<IPod>(PODS, ns, p.metadata?.name ?? '', (q) => { q.metadata = { ...q.metadata, ownerReferences: (q.metadata?.ownerReferences ?? []).filter((o) => o.uid !== uid) }; });
        this.store.remove(JOBS, ns, name);
        return;
      }
      for (const p of pods) this.pods.delete(ns, p.metadata?.name ?? '', undefined);
      const wait = setInterval(() => {
        if (this.podsOf(job).length === 0) { clearInterval(wait); this.store.remove(JOBS, ns, name); }
      }, 50);
    });
    return { code: 200, obj: { apiVersion: 'batch/v1', kind: 'Job', ...marked } };
  }

  close(): void {
    this.unsubscribe();
    for (const t of this.tallies.values()) { t.finished = true; for (const x of t.timers) clearTimeout(x); }
  }
}
