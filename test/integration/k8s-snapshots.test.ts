// Validate's snapshot checks and the Pod watch on the Kubernetes backend, against the fake API server
// over Docker (test/k8s), driven by the real @kubernetes/client-node: the checks that start from the
// solved state give the same verdicts as on Docker, check by check, and leave nothing behind; Pod
// status comes from the watch (scheduling, a dropped or compacted watch, an eviction mid-trial).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import Docker from 'dockerode';
import type { Agent } from '../../src/core/agents/agent';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import type { Task } from '../../src/core/model/task';
import { newRunId, RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { KubeApi, loadKube } from '../../src/core/sandbox/kubernetes/kubeApi';
import { KubernetesRuntime } from '../../src/core/sandbox/kubernetes/kubeRuntime';
import { DockerPublisher } from '../../src/core/sandbox/kubernetes/publish';
import { parseRegistry, Registry } from '../../src/core/sandbox/kubernetes/registry';
import { TrialRunner, type TrialJob } from '../../src/core/sandbox/runner';
import { LABEL, LABEL_RUN, type ContainerSpec } from '../../src/core/sandbox/runtime';
import { validateTasks } from '../../src/core/validate/validate';
import type { TaskValidation } from '../../src/core/validate/types';
import { type FakeKube, startFakeKube } from '../k8s/fakeKube';
import { startTinyRegistry, type TinyRegistry } from '../support/tinyRegistry';
import { waitFor } from '../support/waitFor';

const root = path.resolve(__dirname, '../../..');
const docker = new Docker();
let fake: FakeKube;
let registry: TinyRegistry;
let work: string;
let task: Task;
const TASK_PATH = 'examples/tasks/semver-sort';

/** Records when each Pod's start returned, to measure how soon a Running Pod is seen. */
class TimedRuntime extends KubernetesRuntime {
  readonly startedAt = new Map<string, number>();
  /** How many requests the fake had served when each Pod's start returned. */
  readonly requestsAtStart = new Map<string, number>();
  override async start(spec: ContainerSpec, signal?: AbortSignal): Promise<string> {
    const id = await super.start(spec, signal);
    this.startedAt.set(id, Date.now());
    this.requestsAtStart.set(id, fake.requests().length);
    return id;
  }
}

function runtime(over: { pollMs?: number; pendingLimitMs?: number; onWarning?: (t: string) => void } = {}): TimedRuntime {
  const conn = loadKube({ kubeconfigPath: fake.kubeconfigPath });
  const address = parseRegistry(registry.host);
  return new TimedRuntime({
    api: new KubeApi(conn, 30_000, 20), registry: new Registry(address), slots: 2, publisher: new DockerPublisher(address, docker),
    pendingLimitMs: over.pendingLimitMs ?? 120_000, pendingGraceMs: 1_000, pollMs: over.pollMs ?? 100, snapshotDir: path.join(work, 'default-snapshots'),
    ...(over.onWarning ? { onWarning: over.onWarning } : {}),
  });
}

function store(kind: 'run' | 'validate'): RunStore {
  return RunStore.create(path.join(work, 'runs'), {
    id: newRunId(kind), kind, agent: 'oracle', tasks: [], attempts: 1, concurrency: 2, retries: 1, startedAt: new Date().toISOString(), pid: process.pid,
  });
}

async function runJobs(rt: KubernetesRuntime, jobs: TrialJob[]): Promise<TrialRecord[]> {
  const runner = new TrialRunner({ runtime: rt }, store('run'));
  return (await runner.runAll(jobs, { concurrency: 2, retries: 1, retryBaseMs: 10 })).flat().map((r) => r.record);
}


const podReads = (name: string, upTo?: number): string[] => fake.requests().slice(0, upTo).filter((r) => r.method === 'GET' && r.path.startsWith(`/api/v1/namespaces/default/pods/${name}`) && !r.path.includes('/exec')).map((r) => r.path);
const watchRequests = (): string[] => fake.requests().filter((r) => r.method === 'GET' && /\/pods\?.*watch=true/.test(r.path)).map((r) => r.path);

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-k8s-snap-'));
  task = await loadTask(path.join(root, TASK_PATH));
  registry = await startTinyRegistry({ mirror: (repo, tag) => docker.getImage(`${repo}:${tag}`).inspect().then(() => true, () => false) });
  fake = await startFakeKube({ imageRetryMs: 200, bookmarkMs: 500, resolveImage: (r) => r.replace(`${registry.host}/`, '') });
});

after(async () => {
  await fake.close();
  await registry.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const verdicts = (v: TaskValidation): [string, string, number][] => v.checks.map((c) => [c.name, c.status, c.runs]);

void describe('Kubernetes backend: validate from a snapshot of the solved state (integration, fake API server)', () => {
  void it('runs the snapshot checks with the same verdicts as Docker, check by check, and leaves nothing', async (t) => {
    const opts = { runs: 1, concurrency: 2, retries: 1, onlyProbes: ['image-outputs'], seed: 7 };
    const rt = runtime();
    const ks = store('validate');
    const [kv] = await validateTasks(rt, ks, [{ task, path: TASK_PATH }], opts);
    const ds = store('validate');
    const [dv] = await validateTasks(new DockerodeRuntime(docker), ds, [{ task, path: TASK_PATH }], opts);
    assert.ok(kv && dv);
    const k = verdicts(kv);
    // The checks that start from the snapshot ran (none skipped for want of one) …
    for (const name of ['stale-state', 'mutants', 'environment']) {
      const c = kv.checks.find((x) => x.name === name);
      assert.ok(c, `no ${name} check: ${JSON.stringify(k)}`);
      assert.notEqual(c.status, 'skipped', `${name}: ${c.detail}`);
      assert.ok(c.runs > 0, `${name} ran no trial: ${c.detail}`);
    }
    const probes = (v: TaskValidation): [string, number | null, string][] => (v.probes ?? []).map((p) => [p.name, p.reward, p.outcome]);
    assert.ok(probes(kv).some(([n]) => n === 'image-outputs'), JSON.stringify(probes(kv)));
    assert.deepEqual(probes(kv), probes(dv));
    // … with the verdicts Docker gives, check by check, and the same mutants.
    t.diagnostic(`kubernetes: ${JSON.stringify(k)} ${kv.verdict}; docker: ${JSON.stringify(verdicts(dv))} ${dv.verdict}`);
    assert.deepEqual(k, verdicts(dv));
    assert.equal(kv.verdict, dv.verdict);
    assert.deepEqual(kv.mutants?.survivors.map((s) => [s.file, s.change]), dv.mutants?.survivors.map((s) => [s.file, s.change]));
    assert.equal(kv.mutants?.total, dv.mutants?.total);
    // The snapshot lived under the run and is gone; no Pod, container, image or schema violation is left.
    assert.deepEqual(rt.snapshots.held(), []);
    assert.deepEqual(fs.readdirSync(path.join(ks.dir, 'snapshots')), []);
    assert.deepEqual((await rt.listByLabel(LABEL)).map((p) => p.id), []);
    await waitFor('the fake cluster\'s containers gone', () => (fake.containers().length === 0 ? true : undefined), 20_000);
    for (const s of [ks, ds]) {
      assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${s.id}`] } }), []);
      assert.deepEqual(await docker.listImages({ filters: { label: [`${LABEL_RUN}=${s.id}`] } }), []);
    }
    assert.deepEqual(fake.violations(), []);
    assert.deepEqual(fake.unsupported(), []);
  });

  void it('gives Docker\'s verdicts on tasks whose snapshot checks fail or need deletions carried over', async (t) => {
    // run-twice: stale state fails; one-field: a mutant survives; removes-file: the solution deletes a file
    // and a folder, and the checks from the snapshot pass only if the deletions came with it.
    const names = ['run-twice', 'one-field', 'removes-file'];
    const targets = await Promise.all(names.map(async (n) => ({ task: await loadTask(path.join(root, 'test/fixtures/behaviour', n)), path: n })));
    const opts = { runs: 1, concurrency: 2, retries: 1, probes: false, seed: 7 };
    const rt = runtime();
    const ks = store('validate');
    const kvs = await validateTasks(rt, ks, targets, opts);
    const dvs = await validateTasks(new DockerodeRuntime(docker), store('validate'), targets, opts);
    for (const [i, n] of names.entries()) {
      const kv = kvs[i] as TaskValidation;
      const dv = dvs[i] as TaskValidation;
      t.diagnostic(`${n}: kubernetes ${JSON.stringify(verdicts(kv))} ${kv.verdict}; docker ${JSON.stringify(verdicts(dv))} ${dv.verdict}`);
      assert.deepEqual(verdicts(kv), verdicts(dv), n);
      assert.equal(kv.verdict, dv.verdict, n);
      assert.deepEqual(kv.mutants?.survivors.map((x) => [x.file, x.change]), dv.mutants?.survivors.map((x) => [x.file, x.change]), n);
    }
    const by = (n: string): TaskValidation => kvs[names.indexOf(n)] as TaskValidation;
    assert.equal(by('run-twice').checks.find((c) => c.name === 'stale-state')?.status, 'fail');
    assert.equal(by('one-field').checks.find((c) => c.name === 'mutants')?.status, 'fail');
    for (const c of ['stale-state', 'environment']) assert.equal(by('removes-file').checks.find((x) => x.name === c)?.status, 'pass', c);
    assert.deepEqual(rt.snapshots.held(), []);
    assert.deepEqual(fs.readdirSync(path.join(ks.dir, 'snapshots')), []);
    assert.deepEqual((await rt.listByLabel(LABEL)).map((p) => p.id), []);
    await waitFor('the fake cluster\'s containers gone', () => (fake.containers().length === 0 ? true : undefined), 20_000);
    assert.deepEqual(fake.violations(), []);
  });

  void it('a snapshot of a Pod started without a baseline is refused with the reason (the checks are skipped, not wrong)', async () => {
    const rt = runtime();
    let why = '';
    const agent: Agent = {
      spec: 'commit-without-baseline',
      run: async (session) => {
        await session.exec('echo x > /app/extra.txt');
        why = await rt.commit(session.containerId, {}).then(() => 'committed', (e: unknown) => (e instanceof Error ? e.message : String(e)));
        return { status: 'completed' };
      },
    };
    await runJobs(rt, [{ task, taskPath: TASK_PATH, agent, attempt: 1 }]);
    assert.match(why, /without a baseline/);
  });
});

void describe('Kubernetes backend: Pod status from the watch (integration, fake API server)', () => {
  void it('sees a Pending Pod scheduled on the watch, without polling its status', async () => {
    // A long poll interval: only the watch can make the start prompt.
    const rt = runtime({ pollMs: 5_000 });
    fake.setUnschedulable(true);
    const runningSeen = new Map<string, number>();
    const ctl = await new Watch(loadKube({ kubeconfigPath: fake.kubeconfigPath }).kc).watch('/api/v1/namespaces/default/pods', { labelSelector: LABEL }, (_type, p: V1Pod) => {
      if (p.status?.containerStatuses?.[0]?.state?.running && !runningSeen.has(p.metadata?.name ?? '')) runningSeen.set(p.metadata?.name ?? '', Date.now());
    }, () => undefined);
    const records = runJobs(rt, [{ task, taskPath: TASK_PATH, agent: new OracleAgent(), attempt: 1 }]);
    const name = await waitFor('a Pending trial Pod', () => fake.pods().find((p) => p.status?.phase === 'Pending')?.metadata?.name);
    await new Promise((r) => setTimeout(r, 1_500));
    fake.setUnschedulable(false);
    const got = await records;
    ctl.abort();
    assert.deepEqual(got.map((r) => r.outcome), ['passed']);
    const lag = (rt.startedAt.get(name) ?? Infinity) - (runningSeen.get(name) ?? 0);
    assert.ok(lag < 1_500, `the Pod ran ${lag} ms before its start returned`);
    // While it started: no poll of its status, at most one read (before the watch was open).
    const reads = podReads(name, rt.requestsAtStart.get(name));
    assert.deepEqual(reads.filter((p) => p.includes('/status')), [], 'the Pod\'s status was polled');
    assert.ok(reads.length <= 1, `the Pod was read ${reads.length} times while it started: ${reads.join(', ')}`);
    assert.ok(watchRequests().some((p) => p.includes('taskwright.client')), 'no watch by the client label');
  });

  void it('credentials that may not list or watch Pods: said once, the trial runs on reads of its Pod', async () => {
    const warnings: string[] = [];
    const rt = runtime({ onWarning: (w) => warnings.push(w) });
    // The watch's first list is the first GET of the collection: refused as a Role without list/watch would.
    fake.failNext(1, { code: 403, method: 'GET', path: /\/namespaces\/default\/pods$/ });
    const got = await runJobs(rt, [{ task, taskPath: TASK_PATH, agent: new OracleAgent(), attempt: 1 }]);
    assert.deepEqual(got.map((r) => r.outcome), ['passed']);
    assert.deepEqual(warnings.filter((w) => /cannot be watched/.test(w)).length, 1, warnings.join('\n'));
    // Not asked again every second: within its back-off no watch was opened at all.
    assert.equal(rt.watch.stats.watches, 0);
  });

  void it('a watch dropped mid-trial is resumed; one compacted away is listed again; an eviction then is infra, seen on the watch', async () => {
    const rt = runtime();
    // The agent runs a command, then waits on the host (no call in flight) until the test lets it go on.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => { release = r; });
    let firstDone = false;
    const agent: Agent = {
      spec: 'between-commands',
      run: async (session) => {
        await session.exec('true');
        firstDone = true;
        await gate;
        await session.exec('echo next');
        return { status: 'completed' };
      },
    };
    let infraAt: number | undefined;
    const runner = new TrialRunner({ runtime: rt }, store('run'));
    const records = runner.runAll([{ task, taskPath: TASK_PATH, agent, attempt: 1 }], {
      concurrency: 1, retries: 1, retryBaseMs: 10, onTrial: (r) => { if (r.record.outcome === 'infra-error') infraAt ??= Date.now(); },
    }).then((rs) => rs.flat().map((r) => r.record));
    await waitFor('the agent\'s first command', () => (firstDone ? true : undefined));
    const name = fake.pods().find((p) => p.status?.phase === 'Running')?.metadata?.name ?? '';
    await waitFor('the watch open', () => (rt.watch.healthy ? true : undefined));
    const before = { ...rt.watch.stats };
    fake.closeWatches();
    // Resumed from the version it held: a new watch, no list.
    await waitFor('the watch resumed', () => (rt.watch.healthy && rt.watch.stats.watches > before.watches ? true : undefined));
    assert.equal(rt.watch.stats.lists, before.lists);
    assert.match(watchRequests().at(-1) ?? '', /resourceVersion=\d+/);
    // Compacted while it was away: the server answers 410, the client lists again and watches from there.
    fake.compactHistory();
    fake.closeWatches();
    await waitFor('the watch listed again', () => (rt.watch.healthy && rt.watch.stats.lists > before.lists ? true : undefined));
    const evictedAt = Date.now();
    await fake.evict(name);
    await new Promise((r) => setTimeout(r, 500));
    const callsBefore = fake.requests().length;
    release();
    const got = await records;
    assert.deepEqual(got.map((r) => [r.try, r.outcome, r.infra?.kind]), [[1, 'infra-error', 'evicted'], [2, 'failed', undefined]]);
    assert.match(got[0]?.infra?.message ?? '', /Evicted/);
    // The watch told the runtime: the agent's next command failed without an exec or a read of the Pod.
    const after = fake.requests().slice(callsBefore).filter((r) => r.path.includes(`/pods/${name}`) && r.method === 'GET');
    assert.deepEqual(after.filter((r) => r.path.includes('/exec')), [], 'an exec was tried on the evicted Pod');
    assert.ok((infraAt ?? Infinity) - evictedAt < 5_000, `the eviction was recorded after ${(infraAt ?? Infinity) - evictedAt} ms`);
    assert.deepEqual((await rt.listByLabel(LABEL)).map((p) => p.id), []);
    assert.deepEqual(fake.violations(), []);
  });
});
