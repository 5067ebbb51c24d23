// The fake Kubernetes API server's HTTP side, without Docker: auth, Status bodies, schema and
// semantic checks, selectors, watch, fault knobs — driven by the real @kubernetes/client-node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { apiError } from '../k8s/client';
import { type FakeKube, startFakeKube } from '../k8s/fakeKube';
import { labelSelector } from '../k8s/selectors';

let fake: FakeKube;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let net: k8s.NetworkingV1Api;
let batch: k8s.BatchV1Api;

/** A raw request, for bodies client-node's typed serializer would not send. */
async function raw(method: string, path: string, body?: unknown, token = fake.token): Promise<{ code: number; body: Record<string, unknown> }> {
  const r = await fetch(`${fake.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { code: r.status, body: (await r.json()) as Record<string, unknown> };
}

const denyAll = (name: string, labels: Record<string, string> = {}): k8s.V1NetworkPolicy => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, labels }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
});

void describe('fake Kubernetes API server: HTTP, Status bodies and checks', () => {
  before(async () => {
    fake = await startFakeKube({ namespaces: ['taskwright'], watchHistory: 20 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(fake.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    net = kc.makeApiClient(k8s.NetworkingV1Api);
    batch = kc.makeApiClient(k8s.BatchV1Api);
  });
  after(async () => { await fake.close(); });

  void it('writes a kubeconfig client-node loads (plain http), and refuses requests without the token', async () => {
    assert.equal(kc.getCurrentCluster()?.server, fake.url);
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name).sort();
    assert.deepEqual(names, ['default', 'kube-system', 'taskwright']);
    const r = await raw('GET', '/api/v1/namespaces', undefined, 'wrong');
    assert.equal(r.code, 401);
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  void it('answers a pod in a missing namespace with namespaces "x" not found', async () => {
    const e = await apiError(core.createNamespacedPod({ namespace: 'nowhere', body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } }));
    assert.equal(e.code, 404);
    assert.equal(e.body.message, 'namespaces "nowhere" not found');
    assert.deepEqual(e.body.details, { name: 'nowhere', kind: 'namespaces' });
  });

  void it('refuses values of the wrong type with 400 (as decoding fails) and semantic errors with 422 and field causes', async () => {
    const before = fake.violations().length;
    const typed = await raw('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'typed' }, spec: { activeDeadlineSeconds: 'soon', containers: [{ name: 'c', image: 'busybox' }] } });
    assert.equal(typed.code, 400);
    assert.equal(typed.body.reason, 'BadRequest');
    assert.match(String(typed.body.message), /^Pod in version "v1" cannot be handled as a Pod: .*spec\.activeDeadlineSeconds/);
    const e = await apiError(core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'Bad_Name', labels: { 'taskwright.host': 'a'.repeat(70) } }, spec: { containers: [{ name: 'main' }] } } }));
    assert.equal(e.code, 422);
    const fields = ((e.body.details as { causes: { field: string; reason: string }[] }).causes).map((c) => `${c.reason} ${c.field}`).sort();
    assert.deepEqual(fields, ['FieldValueInvalid metadata.labels', 'FieldValueInvalid metadata.name', 'FieldValueRequired spec.containers[0].image']);
    assert.match(String(e.body.message), /^Pod "Bad_Name" is invalid: \[/);
    const job = await apiError(batch.createNamespacedJob({ namespace: 'default', body: { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'busybox' }] } } } } }));
    assert.equal(job.code, 422);
    assert.match(String(job.body.message), /^Job\.batch "j" is invalid: spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"$/);
    assert.deepEqual(fake.violations().slice(before).map((v) => [v.kind, v.code]), [['Pod', 400], ['Pod', 422], ['Job', 422]]);
    assert.equal(fake.pods().length, 0);
  });

  void it('stores network policies: create, list by label, get, delete answers a Success Status', async () => {
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('deny-a', { run: 'r1' }) });
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('deny-b', { run: 'r2' }) });
    const listed = await net.listNamespacedNetworkPolicy({ namespace: 'taskwright', labelSelector: 'run=r1' });
    assert.deepEqual(listed.items.map((i) => i.metadata?.name), ['deny-a']);
    assert.equal((await net.readNamespacedNetworkPolicy({ name: 'deny-b', namespace: 'taskwright' })).spec?.policyTypes?.join(), 'Ingress,Egress');
    const st = await net.deleteNamespacedNetworkPolicy({ name: 'deny-a', namespace: 'taskwright' });
    assert.equal(st.status, 'Success');
    assert.deepEqual(st.details && { name: st.details.name, group: st.details.group, kind: st.details.kind }, { name: 'deny-a', group: 'networking.k8s.io', kind: 'networkpolicies' });
    const e = await apiError(net.readNamespacedNetworkPolicy({ name: 'deny-a', namespace: 'taskwright' }));
    assert.equal(e.body.message, 'networkpolicies.networking.k8s.io "deny-a" not found');
    await net.deleteCollectionNamespacedNetworkPolicy({ namespace: 'taskwright' });
    assert.equal((await net.listNamespacedNetworkPolicy({ namespace: 'taskwright' })).items.length, 0);
  });

  void it('watches: synthetic ADDED for what exists, then ADDED/DELETED as they happen, label selector applied', async () => {
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('w-1', { run: 'w' }) });
    const events: string[] = [];
    let done: (e: unknown) => void = () => undefined;
    const ended = new Promise((r) => { done = r; });
    const ctl = await new k8s.Watch(kc).watch('/apis/networking.k8s.io/v1/namespaces/taskwright/networkpolicies', { labelSelector: 'run=w' },
      (type, obj: k8s.V1NetworkPolicy) => { events.push(`${type} ${obj.metadata?.name ?? ''} ${obj.kind ?? ''}`); }, (e) => done(e));
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('w-other', { run: 'x' }) });
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('w-2', { run: 'w' }) });
    await net.deleteNamespacedNetworkPolicy({ name: 'w-1', namespace: 'taskwright' });
    for (let i = 0; i < 50 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events, ['ADDED w-1 NetworkPolicy', 'ADDED w-2 NetworkPolicy', 'DELETED w-1 NetworkPolicy']);
    fake.closeWatches();
    assert.equal(await ended, null, 'a server-side close ends the watch without an error');
    ctl.abort();
  });

  void it('replays a watch from a resourceVersion, and answers one older than the history with ERROR 410 Expired', async () => {
    const rv = (await net.listNamespacedNetworkPolicy({ namespace: 'taskwright' })).metadata?.resourceVersion ?? '';
    await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll('r-1') });
    const seen: string[] = [];
    const replay = await new k8s.Watch(kc).watch('/apis/networking.k8s.io/v1/namespaces/taskwright/networkpolicies', { resourceVersion: rv }, (t, o: k8s.V1NetworkPolicy) => { seen.push(`${t} ${o.metadata?.name ?? ''}`); }, () => undefined);
    for (let i = 0; i < 50 && seen.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    replay.abort();
    assert.deepEqual(seen, ['ADDED r-1']);
    for (let i = 0; i < 25; i++) await net.createNamespacedNetworkPolicy({ namespace: 'taskwright', body: denyAll(`fill-${i}`) });
    const errors: unknown[] = [];
    await new Promise<void>((resolve) => {
      void new k8s.Watch(kc).watch('/apis/networking.k8s.io/v1/namespaces/taskwright/networkpolicies', { resourceVersion: rv }, (t, o: Record<string, unknown>) => { if (t === 'ERROR') errors.push(o); }, () => resolve());
    });
    assert.equal(errors.length, 1);
    assert.deepEqual({ ...(errors[0] as Record<string, unknown>), message: undefined }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: undefined, reason: 'Expired', code: 410 });
    await net.deleteCollectionNamespacedNetworkPolicy({ namespace: 'taskwright' });
  });

  void it('sends BOOKMARK events when asked, applies a field selector to a watch, and answers 410 after a compaction', async () => {
    const f2 = await startFakeKube({ bookmarkMs: 100 });
    try {
      const kc2 = new k8s.KubeConfig();
      kc2.loadFromFile(f2.kubeconfigPath);
      const net2 = kc2.makeApiClient(k8s.NetworkingV1Api);
      const rv = (await net2.listNamespacedNetworkPolicy({ namespace: 'default' })).metadata?.resourceVersion ?? '';
      const events: { type: string; name: string; rv: string }[] = [];
      const ctl = await new k8s.Watch(kc2).watch('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { resourceVersion: rv, allowWatchBookmarks: true, fieldSelector: 'metadata.name=b-1' },
        (type, o: k8s.V1NetworkPolicy) => { events.push({ type, name: o.metadata?.name ?? '', rv: o.metadata?.resourceVersion ?? '' }); }, () => undefined);
      await net2.createNamespacedNetworkPolicy({ namespace: 'default', body: denyAll('b-0') });
      await net2.createNamespacedNetworkPolicy({ namespace: 'default', body: denyAll('b-1') });
      for (let i = 0; i < 100 && !events.some((e) => e.type === 'BOOKMARK'); i++) await new Promise((r) => setTimeout(r, 20));
      ctl.abort();
      assert.deepEqual(events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.name}`), ['ADDED b-1'], 'the field selector leaves b-0 out');
      const mark = events.find((e) => e.type === 'BOOKMARK');
      assert.ok(mark && Number(mark.rv) >= Number(events[0]?.rv), 'a bookmark carries the current resourceVersion');
      // Compaction: the version just held is too old now.
      const held = (await net2.listNamespacedNetworkPolicy({ namespace: 'default' })).metadata?.resourceVersion ?? '';
      f2.compactHistory();
      const errors: { code?: number; reason?: string }[] = [];
      await new Promise<void>((resolve) => {
        void new k8s.Watch(kc2).watch('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { resourceVersion: held }, (t, o: { code?: number; reason?: string }) => { if (t === 'ERROR') errors.push(o); }, () => resolve());
      });
      assert.deepEqual(errors.map((e) => [e.code, e.reason]), [[410, 'Expired']]);
    } finally {
      await f2.close();
    }
  });

  void it('fails the next requests on demand: 429 with Retry-After, 500 InternalError, 403 Forbidden; then serves again', async () => {
    fake.failNext(2, { code: 429, retryAfterSeconds: 3, path: /\/pods$/ });
    fake.failNext(1, { code: 500, method: 'GET' });
    const other = await apiError(core.listNamespace());
    assert.equal(other.code, 500, 'the 429s match /pods only, the 500 any GET');
    assert.equal(other.body.reason, 'InternalError');
    for (let i = 0; i < 2; i++) {
      const e = await apiError(core.listNamespacedPod({ namespace: 'default' }));
      assert.equal(e.code, 429);
      assert.equal(e.headers['retry-after'], '3');
      assert.deepEqual(e.body.details, { retryAfterSeconds: 3 });
    }
    assert.equal((await core.listNamespacedPod({ namespace: 'default' })).items.length, 0);
    fake.failNext(1, { code: 403 });
    const f = await apiError(core.deleteNamespacedPod({ name: 'x', namespace: 'default' }));
    assert.equal(f.code, 403);
    assert.equal(f.body.message, 'pods "x" is forbidden: User "system:serviceaccount:default:taskwright" cannot delete resource "pods" in API group "" in the namespace "default"');
    assert.deepEqual(fake.requests().slice(-5).map((r) => r.code), [500, 429, 429, 200, 403], 'requests are logged with their codes');
  });

  void it('parses label selectors as the API does', () => {
    const m = labelSelector('app=web,tier!=db,env in (prod, stage),!legacy,owner');
    assert.equal(m({ app: 'web', env: 'prod', owner: 'me' }), true);
    assert.equal(m({ app: 'web', env: 'dev', owner: 'me' }), false);
    assert.equal(m({ app: 'web', env: 'prod', owner: 'me', legacy: '1' }), false);
    assert.equal(m({ app: 'web', env: 'stage', owner: 'me', tier: 'db' }), false);
    assert.throws(() => labelSelector('a b c'), /unable to parse requirement/);
  });
});
