// The fake Kubernetes API server's pod lifecycle, faults and Jobs, with real containers: watch
// streams, exits and logs, deadlines, evictions, graceful deletion, dropped exec streams, the v4
// protocol, service-account tokens, enforced deny-all policies, back-pressure and Jobs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import Docker from 'dockerode';
import WebSocket from 'ws';
import { execIn, waitFor } from '../k8s/client';
import { type FakeKube, startFakeKube } from '../k8s/fakeKube';

const docker = new Docker();
const NS = 'default';
let fake: FakeKube;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let batch: k8s.BatchV1Api;

function pod(name: string, script = 'sleep 3600', spec: Partial<k8s.V1PodSpec> = {}, labels: Record<string, string> = {}): k8s.V1Pod {
  return {
    metadata: { name, labels: { suite: 'lifecycle', ...labels } },
    spec: { restartPolicy: 'Never', automountServiceAccountToken: false, terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox:latest', command: ['sh', '-c', script] }], ...spec },
  };
}

const read = (name: string) => core.readNamespacedPod({ name, namespace: NS });
const until = (name: string, what: string, ok: (p: k8s.V1Pod) => boolean, ms?: number) => waitFor(`${name}: ${what}`, async () => { const p = await read(name); return ok(p) ? p : undefined; }, ms);
const running = (name: string) => until(name, 'Running', (p) => p.status?.phase === 'Running');
const remove = (name: string) => core.deleteNamespacedPod({ name, namespace: NS, gracePeriodSeconds: 0 });

void describe('fake Kubernetes API server: lifecycle, faults and Jobs (integration)', () => {
  before(async () => {
    fake = await startFakeKube({ imageRetryMs: 200, restartBackoffMs: 200, enforceNetworkPolicies: true });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(fake.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    batch = kc.makeApiClient(k8s.BatchV1Api);
  });

  after(async () => {
    const ours = fake.id;
    await fake.close();
    const left = await docker.listContainers({ all: true, filters: { label: [`taskwright.fake-kube=${ours}`] } });
    assert.deepEqual(left.map((c) => c.Names), [], 'the fake left containers behind');
  });

  void it('streams a pod through watch: ADDED Pending, image pull reasons, Running, graceful deletion, DELETED', async () => {
    const events: { type: string; pod: k8s.V1Pod }[] = [];
    const ctl = await new k8s.Watch(kc).watch(`/api/v1/namespaces/${NS}/pods`, { labelSelector: 'watched=1' }, (type, obj: k8s.V1Pod) => { events.push({ type, pod: obj }); }, () => undefined);
    await core.createNamespacedPod({ namespace: NS, body: pod('w-pull', 'sleep 3600', { containers: [{ name: 'main', image: 'registry.invalid/absent:1' }] }, { watched: '1' }) });
    await waitFor('ImagePullBackOff in the stream', async () => (events.some((e) => e.pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff') ? true : undefined));
    const reasons = [...new Set(events.map((e) => e.pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).filter((r) => r))];
    assert.deepEqual(reasons, ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff']);
    await remove('w-pull');
    await core.createNamespacedPod({ namespace: NS, body: pod('w-run', 'sleep 3600', { terminationGracePeriodSeconds: 30 }, { watched: '1' }) });
    await running('w-run');
    const started = Date.now();
    const answer = await core.deleteNamespacedPod({ name: 'w-run', namespace: NS, gracePeriodSeconds: 1 });
    assert.ok(answer.metadata?.deletionTimestamp, 'a graceful delete answers the pod marked for deletion');
    assert.equal(answer.metadata?.deletionGracePeriodSeconds, 1);
    await waitFor('w-run DELETED', async () => (events.some((e) => e.type === 'DELETED' && e.pod.metadata?.name === 'w-run') ? true : undefined));
    assert.ok(Date.now() - started >= 900, 'sleep ignores SIGTERM as pid 1: the grace period runs out before the kill');
    ctl.abort();
    const forRun = events.filter((e) => e.pod.metadata?.name === 'w-run');
    assert.equal(forRun[0]?.type, 'ADDED');
    assert.equal(forRun[0]?.pod.status?.phase, 'Pending');
    assert.ok(forRun.some((e) => e.type === 'MODIFIED' && e.pod.status?.phase === 'Running'));
    assert.ok(forRun.some((e) => e.type === 'MODIFIED' && e.pod.metadata?.deletionTimestamp));
    const rvs = forRun.map((e) => Number(e.pod.metadata?.resourceVersion));
    assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b), 'resourceVersions grow');
  });

  void it('reports a container exit (phase Failed, exit code, reason Error), serves its log, and refuses exec into it', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('exit-2', 'echo bye; exit 2') });
    const p = await until('exit-2', 'Failed', (x) => x.status?.phase === 'Failed');
    const t = p.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(t?.exitCode, 2);
    assert.equal(t?.reason, 'Error');
    assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodFailed');
    assert.equal(await core.readNamespacedPodLog({ name: 'exit-2', namespace: NS }), 'bye\n');
    // client-node rejects with the socket's error event: the upgrade was answered 400.
    await assert.rejects(execIn(kc, NS, 'exit-2', ['true']), (e: { message?: string }) => /Unexpected server response: 400/.test(e.message ?? ''));
    await remove('exit-2');
  });

  void it('restarts a failing container under restartPolicy OnFailure (restartCount, lastState)', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('crash', 'exit 1', { restartPolicy: 'OnFailure' }) });
    const p = await until('crash', 'restarted', (x) => (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
    assert.equal(p.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode, 1);
    assert.notEqual(p.status?.phase, 'Failed');
    await remove('crash');
  });

  void it('enforces activeDeadlineSeconds (Failed, DeadlineExceeded) and the kubelet eviction (Failed, Evicted)', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('deadline', 'sleep 3600', { activeDeadlineSeconds: 2 }) });
    await core.createNamespacedPod({ namespace: NS, body: pod('evictee') });
    await running('evictee');
    await fake.evict('evictee');
    const ev = await read('evictee');
    assert.equal(ev.status?.phase, 'Failed');
    assert.equal(ev.status?.reason, 'Evicted');
    assert.equal(ev.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.status, 'True');
    const d = await until('deadline', 'DeadlineExceeded', (x) => x.status?.reason === 'DeadlineExceeded', 15_000);
    assert.equal(d.status?.phase, 'Failed');
    assert.equal(d.status?.message, 'Pod was active on the node longer than the specified deadline');
    assert.equal(d.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 137);
    await remove('deadline');
    await remove('evictee');
  });

  void it('drops exec streams on demand: mid-output (no Status), or before the command starts (it never runs)', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('dropper') });
    await running('dropper');
    fake.dropNextExec({ afterBytes: 1 });
    const mid = await execIn(kc, NS, 'dropper', ['sh', '-c', 'echo one; sleep 2; echo two']);
    assert.equal(mid.status, undefined, 'a dropped stream carries no Status');
    assert.equal(mid.stdout, 'one\n');
    fake.dropNextExec({ beforeStart: true });
    const early = await execIn(kc, NS, 'dropper', ['touch', '/tmp/never']);
    assert.equal(early.status, undefined);
    assert.equal((await execIn(kc, NS, 'dropper', ['test', '-e', '/tmp/never'])).exitCode, 1, 'the dropped command never ran');
    assert.deepEqual(fake.execs().slice(-3).map((e) => e.dropped ?? false), [true, true, false]);
  });

  void it('speaks v4.channel.k8s.io to a client that offers only v4, and refuses a client with no supported protocol', async () => {
    const q = new URLSearchParams([['command', 'sh'], ['command', '-c'], ['command', 'echo v4; exit 5'], ['stdout', 'true'], ['stderr', 'true']]);
    const url = `${fake.url.replace('http', 'ws')}/api/v1/namespaces/${NS}/pods/dropper/exec?${q.toString()}`;
    const headers = { authorization: `Bearer ${fake.token}` };
    const frames: Buffer[] = [];
    const ws = new WebSocket(url, ['v4.channel.k8s.io'], { headers });
    ws.on('message', (d: Buffer) => frames.push(d));
    await new Promise((r) => ws.on('close', r));
    assert.equal(ws.protocol, 'v4.channel.k8s.io');
    assert.deepEqual(frames.filter((f) => f[0] === 1).map((f) => f.subarray(1).toString()), ['v4\n']);
    const status = JSON.parse(frames.find((f) => f[0] === 3)!.subarray(1).toString()) as Record<string, unknown>;
    assert.deepEqual(status.details, { causes: [{ reason: 'ExitCode', message: '5' }] });
    const old = new WebSocket(url, ['channel.k8s.io'], { headers });
    const code = await new Promise<number | undefined>((r) => old.on('unexpected-response', (_req, res) => r(res.statusCode)));
    assert.equal(code, 400);
    await remove('dropper');
  });

  void it('mounts a service-account token unless automountServiceAccountToken is false, and isolates pods a deny-all policy selects', async () => {
    const net = kc.makeApiClient(k8s.NetworkingV1Api);
    await net.createNamespacedNetworkPolicy({ namespace: NS, body: { metadata: { name: 'deny' }, spec: { podSelector: { matchLabels: { isolated: '1' } }, policyTypes: ['Ingress', 'Egress'] } } });
    await core.createNamespacedPod({ namespace: NS, body: pod('tokened', 'sleep 3600', { automountServiceAccountToken: undefined }, { isolated: '1' }) });
    const p = await running('tokened');
    assert.ok(p.spec?.volumes?.some((v) => v.name.startsWith('kube-api-access-')));
    assert.equal((await execIn(kc, NS, 'tokened', ['cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace'])).stdout, NS);
    assert.equal((await execIn(kc, NS, 'tokened', ['ls', '/sys/class/net'])).stdout.trim(), 'lo', 'no network but loopback');
    await remove('tokened');
    await net.deleteNamespacedNetworkPolicy({ name: 'deny', namespace: NS });
  });

  void it('holds pods Pending ("Too many pods") past maxPods and binds them as room frees', async () => {
    fake.setMaxPods(1);
    await core.createNamespacedPod({ namespace: NS, body: pod('first') });
    await running('first');
    await core.createNamespacedPod({ namespace: NS, body: pod('second') });
    const waiting = await until('second', 'Unschedulable', (x) => x.status?.conditions?.some((c) => c.reason === 'Unschedulable') === true);
    assert.match(waiting.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? '', /Too many pods/);
    await remove('first');
    await running('second');
    fake.setMaxPods(undefined);
    await remove('second');
  });

  void it('runs a Job to Complete (pods owned, labelled job-name) and to Failed at its backoffLimit; deletes by propagationPolicy', async () => {
    const job = (name: string, script: string, backoffLimit: number): k8s.V1Job => ({
      metadata: { name }, spec: { backoffLimit, ttlSecondsAfterFinished: 600, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:latest', command: ['sh', '-c', script] }] } } },
    });
    await batch.createNamespacedJob({ namespace: NS, body: job('ok-job', 'echo done', 0) });
    await batch.createNamespacedJob({ namespace: NS, body: job('bad-job', 'exit 1', 1) });
    const cond = (name: string, type: string) => waitFor(`${name} ${type}`, async () => {
      const j = await batch.readNamespacedJob({ name, namespace: NS });
      return j.status?.conditions?.some((c) => c.type === type && c.status === 'True') ? j : undefined;
    });
    const ok = await cond('ok-job', 'Complete');
    assert.equal(ok.status?.succeeded, 1);
    const okPods = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'batch.kubernetes.io/job-name=ok-job' })).items;
    assert.equal(okPods.length, 1);
    assert.equal(okPods[0]?.metadata?.ownerReferences?.[0]?.uid, ok.metadata?.uid);
    assert.equal(okPods[0]?.status?.phase, 'Succeeded');
    const bad = await cond('bad-job', 'Failed');
    assert.equal(bad.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(bad.status?.failed, 2, 'backoffLimit 1: one retry, two failed pods');
    const st = await batch.deleteNamespacedJob({ name: 'ok-job', namespace: NS, propagationPolicy: 'Background' });
    assert.equal(st.status, 'Success');
    await waitFor('ok-job pods gone', async () => ((await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=ok-job' })).items.length === 0 ? true : undefined));
    await batch.deleteNamespacedJob({ name: 'bad-job', namespace: NS });
    await waitFor('bad-job gone', async () => ((await batch.listNamespacedJob({ namespace: NS })).items.length === 0 ? true : undefined));
    const orphans = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=bad-job' })).items;
    assert.equal(orphans.length, 2, 'Orphan, the API default for Jobs, keeps the pods');
    assert.ok(orphans.every((p) => (p.metadata?.ownerReferences ?? []).length === 0));
    await core.deleteCollectionNamespacedPod({ namespace: NS, labelSelector: 'job-name=bad-job', gracePeriodSeconds: 0 });
    assert.deepEqual(fake.violations(), []);
    assert.deepEqual(fake.unsupported(), []);
  });
});
