// The fake Kubernetes API server (test/k8s) driven by the real @kubernetes/client-node, with pods
// as real Docker containers: what the Kubernetes backend's tests stand on.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import Docker from 'dockerode';
import { packTar } from '../../src/core/sandbox/tar';
import { apiError, execIn, waitFor } from '../k8s/client';
import { type FakeKube, startFakeKube } from '../k8s/fakeKube';
import { schemaErrorsOf } from '../k8s/validate';

const docker = new Docker();
const NS = 'default';
let fake: FakeKube;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

function podSpec(name: string, image = 'busybox:latest', extra: Partial<k8s.V1PodSpec> = {}): k8s.V1Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'fake-kube-test', 'taskwright.trial': name } },
    spec: {
      restartPolicy: 'Never', automountServiceAccountToken: false, terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image, command: ['sh', '-c', 'sleep 3600'], securityContext: { allowPrivilegeEscalation: false } }],
      ...extra,
    },
  };
}

const phase = (name: string, want: string) => waitFor(`${name} ${want}`, async () => {
  const p = await core.readNamespacedPod({ name, namespace: NS });
  return p.status?.phase === want ? p : undefined;
});

const exec = (pod: string, command: string[], stdin?: Buffer) => execIn(kc, NS, pod, command, stdin);

const containerGone = async (id: string): Promise<boolean> => docker.getContainer(id).inspect().then(() => false, (e: { statusCode?: number }) => e.statusCode === 404);

void describe('fake Kubernetes API server over Docker (integration)', () => {
  before(async () => {
    fake = await startFakeKube({ imageRetryMs: 200 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(fake.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });

  after(async () => {
    const ours = fake.id;
    await fake.close();
    const left = await docker.listContainers({ all: true, filters: { label: [`taskwright.fake-kube=${ours}`] } });
    assert.deepEqual(left.map((c) => c.Names), [], 'the fake left containers behind');
  });

  void it('creates a pod that goes Pending → Running with conditions, container statuses and a real container', async () => {
    const created = await core.createNamespacedPod({ namespace: NS, body: podSpec('p-basic') });
    assert.equal(created.status?.phase, 'Pending');
    assert.ok(created.metadata?.uid && created.metadata.resourceVersion);
    const p = await phase('p-basic', 'Running');
    const types = Object.fromEntries((p.status?.conditions ?? []).map((c) => [c.type, c.status]));
    assert.deepEqual({ ...types }, { PodReadyToStartContainers: 'True', Initialized: 'True', Ready: 'True', ContainersReady: 'True', PodScheduled: 'True' });
    const cs = p.status?.containerStatuses?.[0];
    assert.ok(cs?.state?.running?.startedAt, 'running state');
    assert.match(cs?.containerID ?? '', /^docker:\/\/[0-9a-f]{64}$/);
    const info = await docker.getContainer(cs!.containerID!.slice('docker://'.length)).inspect();
    assert.equal(info.State.Running, true);
    assert.equal(info.Config.Labels.taskwright, '1');
    assert.equal(info.Config.Labels['taskwright.fake-kube.label.taskwright.trial'], 'p-basic');
    assert.deepEqual(info.HostConfig.SecurityOpt, ['no-new-privileges']);
    for (const pod of fake.pods()) assert.deepEqual(await schemaErrorsOf('Pod', pod), [], 'what the fake serves meets the schema');
    const listed = await core.listNamespacedPod({ namespace: NS, labelSelector: 'taskwright.trial=p-basic' });
    assert.deepEqual(listed.items.map((i) => i.metadata?.name), ['p-basic']);
    assert.equal((await core.listNamespacedPod({ namespace: NS, labelSelector: 'taskwright.trial in (nope)' })).items.length, 0);
  });

  void it('execs over WebSocket (v5.channel.k8s.io): stdout, stderr and the exit code on the error channel; InternalError when the command cannot start', async () => {
    const r = await exec('p-basic', ['sh', '-c', 'echo hi; echo oops >&2; exit 3']);
    assert.equal(r.stdout, 'hi\n');
    assert.equal(r.stderr, 'oops\n');
    assert.equal(r.exitCode, 3);
    assert.equal(r.status?.reason, 'NonZeroExitCode');
    const ok = await exec('p-basic', ['true']);
    assert.equal(ok.status?.status, 'Success');
    assert.equal(fake.execs().at(-1)?.protocol, 'v5.channel.k8s.io');
    // A command the runtime cannot start: no output, an InternalError on the error channel (as containerd's kubelet).
    const missing = await exec('p-basic', ['no-such-command']);
    assert.equal(missing.stdout, '');
    assert.equal(missing.status?.reason, 'InternalError');
    assert.equal(missing.status?.code, 500);
    assert.match(missing.status?.message ?? '', /executable file not found in \$PATH/);
    assert.equal(missing.exitCode, undefined);
  });

  void it('pipes stdin through the command and closes it (v5 close frame) so cat ends', async () => {
    const payload = Buffer.from('line one\nline two\n'.repeat(2000));
    const r = await exec('p-basic', ['cat'], payload);
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, payload.toString());
  });

  void it('copies a tar stream in (tar xf - -C /tmp) and out (tar cf -)', async () => {
    const tar = packTar([{ name: 'in/', mode: 0o755, type: 'dir' }, { name: 'in/hello.txt', mode: 0o644, type: 'file', data: Buffer.from('from the host\n') }]);
    const put = await exec('p-basic', ['tar', 'xf', '-', '-C', '/tmp'], tar);
    assert.equal(put.exitCode, 0, put.stderr);
    assert.equal((await exec('p-basic', ['cat', '/tmp/in/hello.txt'])).stdout, 'from the host\n');
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (d: Buffer) => chunks.push(d));
    await new Promise<void>((resolve, reject) => {
      void new k8s.Exec(kc).exec(NS, 'p-basic', 'main', ['tar', 'cf', '-', '-C', '/tmp', 'in'], out, null, null, false, (s) => (s.status === 'Success' ? resolve() : reject(new Error(JSON.stringify(s)))));
    });
    const archive = Buffer.concat(chunks);
    assert.ok(archive.includes(Buffer.from('from the host\n')), 'the archive holds the file');
  });

  void it('answers a missing pod with a NotFound Status body as the API does', async () => {
    const e = await apiError(core.readNamespacedPod({ name: 'nope', namespace: NS }));
    assert.equal(e.code, 404);
    assert.deepEqual(e.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'pods' }, code: 404 });
    const dup = await apiError(core.createNamespacedPod({ namespace: NS, body: podSpec('p-basic') }));
    assert.equal(dup.code, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
  });

  void it('refuses an object that breaks the schema with 422 Invalid and records the violation', async () => {
    const before = fake.violations().length;
    const bad = podSpec('p-bad', 'busybox:latest', { restartPolicy: 'Sometimes' });
    const e = await apiError(core.createNamespacedPod({ namespace: NS, body: bad }));
    assert.equal(e.code, 422);
    assert.equal(e.body.reason, 'Invalid');
    assert.match(String(e.body.message), /^Pod "p-bad" is invalid: .*spec\.restartPolicy: Unsupported value: "Sometimes"/);
    const v = fake.violations().slice(before);
    assert.equal(v.length, 1);
    assert.equal(v[0]?.kind, 'Pod');
    assert.ok(v[0]?.errors.some((x) => x.includes('spec.restartPolicy')));
    assert.equal(fake.pods().some((p) => p.metadata?.name === 'p-bad'), false);
  });

  void it('keeps a pod Pending with PodScheduled False (Unschedulable) until the node has room', async () => {
    fake.setUnschedulable(true);
    await core.createNamespacedPod({ namespace: NS, body: podSpec('p-unsched') });
    const p = await waitFor('Unschedulable', async () => {
      const x = await core.readNamespacedPod({ name: 'p-unsched', namespace: NS });
      return x.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable') ? x : undefined;
    });
    assert.equal(p.status?.phase, 'Pending');
    assert.equal(p.spec?.nodeName, undefined);
    fake.setUnschedulable(false);
    await phase('p-unsched', 'Running');
  });

  void it('shows an image that is not on the engine as ErrImagePull, then ImagePullBackOff', async () => {
    await core.createNamespacedPod({ namespace: NS, body: podSpec('p-pull', 'registry.invalid/taskwright/absent:1') });
    const p = await waitFor('ImagePullBackOff', async () => {
      const x = await core.readNamespacedPod({ name: 'p-pull', namespace: NS });
      return x.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' ? x : undefined;
    });
    assert.equal(p.status?.containerStatuses?.[0]?.state?.waiting?.message, 'Back-off pulling image "registry.invalid/taskwright/absent:1"');
    assert.equal((await core.readNamespacedPod({ name: 'p-pull', namespace: NS })).status?.phase, 'Pending');
  });

  void it('deletes a pod: the answer is the pod, then it is gone and so is its container', async () => {
    const p = await core.readNamespacedPod({ name: 'p-unsched', namespace: NS });
    const id = p.status!.containerStatuses![0]!.containerID!.slice('docker://'.length);
    const gone = await core.deleteNamespacedPod({ name: 'p-unsched', namespace: NS, gracePeriodSeconds: 0 });
    assert.equal(gone.kind, 'Pod');
    assert.equal(gone.metadata?.name, 'p-unsched');
    await waitFor('container removed', async () => ((await containerGone(id)) ? true : undefined), 15_000);
    assert.equal((await apiError(core.readNamespacedPod({ name: 'p-unsched', namespace: NS }))).code, 404);
  });
});
