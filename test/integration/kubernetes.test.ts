// The Kubernetes backend end to end, driven through the real @kubernetes/client-node: against the
// fake API server over Docker (test/k8s) by default, or against a real cluster when
// TASKWRIGHT_TEST_KUBECONFIG names its kubeconfig (docs/kubernetes.md). The fault cases need the
// fake's knobs and are only defined on it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NetworkingV1Api } from '@kubernetes/client-node';
import Docker from 'dockerode';
import type { Agent, AgentResult, TrialSession } from '../../src/core/agents/agent';
import { NopAgent } from '../../src/core/agents/nop';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import type { Task } from '../../src/core/model/task';
import { newRunId, RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { ImageCache } from '../../src/core/sandbox/image';
import { KubeApi, loadKube } from '../../src/core/sandbox/kubernetes/kubeApi';
import { KubernetesRuntime } from '../../src/core/sandbox/kubernetes/kubeRuntime';
import { DockerPublisher } from '../../src/core/sandbox/kubernetes/publish';
import { parseRegistry, Registry } from '../../src/core/sandbox/kubernetes/registry';
import { reapOrphans } from '../../src/core/sandbox/reaper';
import { TrialRunner, type TrialJob } from '../../src/core/sandbox/runner';
import { LABEL } from '../../src/core/sandbox/runtime';
import { validateTasks } from '../../src/core/validate/validate';
import { type FakeKube, startFakeKube } from '../k8s/fakeKube';
import { startTinyRegistry, type TinyRegistry } from '../support/tinyRegistry';
import { waitFor } from '../support/waitFor';

const root = path.resolve(__dirname, '../../..');
const realKubeconfig = process.env.TASKWRIGHT_TEST_KUBECONFIG;
const docker = new Docker();
let fake: FakeKube | undefined;
let registry: TinyRegistry | undefined;
let registryHost: string;
let work: string;
let task: Task;
/** Set by a test: the fake's "registry" fails every pull while true. */
let breakPulls = false;

function runtime(over: { slots?: number; pendingLimitMs?: number } = {}): KubernetesRuntime {
  const conn = loadKube({ kubeconfigPath: realKubeconfig ?? fake?.kubeconfigPath ?? '' });
  const address = parseRegistry(registryHost);
  return new KubernetesRuntime({
    api: new KubeApi(conn, 30_000, 20), registry: new Registry(address), slots: over.slots ?? 2,
    publisher: new DockerPublisher(address, docker), pendingLimitMs: over.pendingLimitMs ?? 120_000, pendingGraceMs: 1_000, pollMs: 100,
  });
}

function store(kind: 'run' | 'validate', agent = 'oracle'): RunStore {
  return RunStore.create(path.join(work, 'runs'), {
    id: newRunId(kind), kind, agent, tasks: [], attempts: 1, concurrency: 2, retries: 1, startedAt: new Date().toISOString(), pid: process.pid,
  });
}

function job(agent: Agent, attempt = 1): TrialJob {
  return { task, taskPath: 'examples/tasks/semver-sort', agent, attempt };
}

async function runJobs(rt: KubernetesRuntime, jobs: TrialJob[], opts: { retries?: number; signal?: AbortSignal; onTrial?: (r: TrialRecord) => void } = {}): Promise<TrialRecord[]> {
  const runner = new TrialRunner({ runtime: rt }, store('run', jobs[0]?.agent.spec));
  const out = await runner.runAll(jobs, { concurrency: 2, retries: opts.retries ?? 1, retryBaseMs: 10, ...(opts.signal ? { signal: opts.signal } : {}), onTrial: (r) => opts.onTrial?.(r.record) });
  return out.flat().map((r) => r.record);
}

async function trialPods(rt: KubernetesRuntime): Promise<string[]> {
  return (await rt.listByLabel(LABEL)).map((p) => p.id);
}

/** An agent that waits (so the test can act on its Pod mid-phase), then leaves the task unsolved. */
class WaitingAgent implements Agent {
  readonly spec = 'waiting';
  constructor(private readonly command = 'sleep 6') {}
  async run(session: TrialSession): Promise<AgentResult> {
    await session.exec(this.command);
    return { status: 'completed' };
  }
}


before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-k8s-'));
  task = await loadTask(path.join(root, 'examples/tasks/semver-sort'));
  if (realKubeconfig) {
    // A real cluster pulls from a real registry (kind's local-registry recipe serves localhost:5001).
    registryHost = process.env.TASKWRIGHT_TEST_REGISTRY ?? 'localhost:5001';
    return;
  }
  // The registry holds what the local engine has (the fake cluster "pulls" from that engine).
  registry = await startTinyRegistry({ mirror: (repo, tag) => docker.getImage(`${repo}:${tag}`).inspect().then(() => true, () => false) });
  registryHost = registry.host;
  fake = await startFakeKube({ imageRetryMs: 200, resolveImage: (r) => (breakPulls ? 'taskwright/no-such-image:none' : r.replace(`${registryHost}/`, '')) });
});

after(async () => {
  await fake?.close();
  await registry?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('Kubernetes backend (integration)', () => {
  void it('runs oracle and nop to the same verdicts and records as Docker, naming the backend', async () => {
    const rt = runtime();
    const k8s = await runJobs(rt, [job(new OracleAgent()), job(new NopAgent())]);
    const dockerRunner = new TrialRunner({ runtime: new DockerodeRuntime(docker) }, store('run'));
    const dock = (await dockerRunner.runAll([job(new OracleAgent()), job(new NopAgent())], { concurrency: 2, retries: 0 })).flat().map((r) => r.record);
    assert.deepEqual(k8s.map((r) => [r.agent, r.outcome, r.reward]), [['oracle', 'passed', 1], ['nop', 'failed', 0]]);
    assert.deepEqual(k8s.map((r) => [r.agent, r.outcome, r.reward]), dock.map((r) => [r.agent, r.outcome, r.reward]));
    // The same record, field for field, but where the trial ran.
    const keys = (r: TrialRecord): string[] => Object.keys(r).sort();
    assert.deepEqual(k8s.map(keys), dock.map(keys));
    for (const r of k8s) assert.match(r.engine ?? '', /^kubernetes:http.*\/namespaces\/default$/);
    assert.deepEqual(await trialPods(rt), []);
    if (fake) {
      assert.deepEqual(fake.violations(), []);
      assert.deepEqual(fake.unsupported(), []);
      assert.deepEqual(fake.containers(), []);
    }
  });

  void it('validates an example task on the cluster: the oracle passes, doing nothing fails', async () => {
    const rt = runtime();
    const s = store('validate');
    const [v] = await validateTasks(rt, s, [{ task, path: 'examples/tasks/semver-sort' }], { runs: 1, concurrency: 2, retries: 1, probes: false, mutants: 0, behaviour: false });
    assert.ok(v);
    const check = (name: string): string | undefined => v.checks.find((c) => c.name === name)?.status;
    assert.equal(check('oracle'), 'pass', JSON.stringify(v.checks));
    assert.equal(check('nop'), 'pass', JSON.stringify(v.checks));
    assert.equal(v.verdict, 'valid', JSON.stringify(v.checks));
    assert.deepEqual(await trialPods(rt), []);
    if (fake) assert.deepEqual(fake.violations(), []);
  });

  void it('cancel deletes the Pods it created', async () => {
    const rt = runtime();
    const ctl = new AbortController();
    const running = runJobs(rt, [job(new WaitingAgent('sleep 60')), job(new WaitingAgent('sleep 60'), 2)], { signal: ctl.signal });
    await waitFor('two trial Pods', async () => ((await trialPods(rt)).length === 2 ? true : undefined));
    ctl.abort();
    const records = await running;
    assert.deepEqual(records.map((r) => r.outcome), ['cancelled', 'cancelled']);
    assert.deepEqual(await trialPods(rt), []);
    // The API has deleted them; the (fake) kubelet removes their containers a moment later.
    if (fake) await waitFor('their containers gone', () => (fake?.containers().length === 0 ? true : undefined), 20_000);
  });
});

if (!realKubeconfig) {
  void describe('Kubernetes backend infra accounting (integration, fake API server)', () => {
    const f = (): FakeKube => fake as FakeKube;

    void it('an Unschedulable Pod is an infra error, retried in a fresh Pod', async () => {
      f().setUnschedulable(true);
      const rt = runtime({ pendingLimitMs: 1_500 });
      const records = await runJobs(rt, [job(new OracleAgent())], { onTrial: () => f().setUnschedulable(false) });
      assert.deepEqual(records.map((r) => [r.try, r.outcome, r.infra?.kind]), [[1, 'infra-error', 'unschedulable'], [2, 'passed', undefined]]);
      assert.match(records[0]?.infra?.message ?? '', /Insufficient cpu/);
      assert.deepEqual(await trialPods(rt), []);
    });

    void it('an image the nodes cannot pull is an infra error, retried', async () => {
      breakPulls = true;
      const rt = runtime();
      const records = await runJobs(rt, [job(new OracleAgent())], { onTrial: () => { breakPulls = false; } });
      assert.deepEqual(records.map((r) => [r.try, r.outcome, r.infra?.kind]), [[1, 'infra-error', 'image-pull'], [2, 'passed', undefined]]);
      assert.deepEqual(await trialPods(rt), []);
    });

    void it('an eviction mid-trial is infra; the whole trial is redone in a fresh Pod', async () => {
      const rt = runtime();
      let evicted = '';
      const records = runJobs(rt, [job(new WaitingAgent('sleep 8'))]);
      const name = await waitFor('a running trial Pod', () => f().pods().find((p) => p.status?.phase === 'Running')?.metadata?.name);
      await new Promise((r) => setTimeout(r, 1_000));
      await f().evict(name);
      evicted = name;
      const got = await records;
      assert.deepEqual(got.map((r) => [r.try, r.outcome, r.infra?.kind]), [[1, 'infra-error', 'evicted'], [2, 'failed', undefined]]);
      assert.ok(evicted);
      assert.deepEqual(await trialPods(rt), []);
    });

    void it('API 500s are retried by the client; past its tries they are infra and the trial is retried', async () => {
      const rt = runtime();
      f().failNext(1, { code: 500, method: 'POST', path: /\/pods$/ });
      const once = await runJobs(rt, [job(new OracleAgent())]);
      assert.deepEqual(once.map((r) => r.outcome), ['passed']);
      f().failNext(4, { code: 503, method: 'POST', path: /\/pods$/ });
      const twice = await runJobs(rt, [job(new OracleAgent())]);
      assert.deepEqual(twice.map((r) => [r.try, r.outcome, r.infra?.kind]), [[1, 'infra-error', 'api-error'], [2, 'passed', undefined]]);
      assert.deepEqual(await trialPods(rt), []);
      assert.deepEqual(f().violations(), []);
    });

    void it('an exec refused before it started is tried again; a stream lost mid-command redoes the trial', async () => {
      const rt = runtime();
      f().failNext(1, { code: 500, path: /\/exec$/ });
      const refused = await runJobs(rt, [job(new OracleAgent())]);
      assert.deepEqual(refused.map((r) => r.outcome), ['passed']);
      // The drop is armed between the agent's two commands: it cuts the second one after its first byte.
      let armed = false;
      const agent: Agent = {
        spec: 'two-commands',
        run: async (session) => {
          await session.exec('true');
          if (!armed) { armed = true; f().dropNextExec({ afterBytes: 1 }); }
          await session.exec('echo started; sleep 3');
          return { status: 'completed' };
        },
      };
      const records = runJobs(rt, [job(agent)]);
      const got = await records;
      assert.equal(got[0]?.outcome, 'infra-error');
      assert.equal(got[0]?.infra?.kind, 'exec-lost');
      assert.deepEqual(got.map((r) => r.try), [1, 2]);
      assert.equal(got[1]?.outcome, 'failed');
      assert.ok(f().execs().some((e) => e.dropped), 'no exec was dropped');
      assert.deepEqual(await trialPods(rt), []);
    });

    void it('the reaper removes Pods of a dead owner and NetworkPolicies left without a Pod', async () => {
      const rt = runtime();
      const id = await rt.start({
        image: (await new ImageCache(rt).ensure(task)).ref,
        name: 'tw-orphan-of-a-dead-run', env: {}, labels: { [LABEL]: '1', 'taskwright.run': 'dead-run', 'taskwright.trial': 'orphan', 'taskwright.pid': '999999', 'taskwright.host': os.hostname() },
        limits: { nanoCpus: 5e8, memoryBytes: 256 * 1024 * 1024, pidsLimit: 256 }, networkMode: 'none', deadlineSec: 60,
      });
      assert.deepEqual(await trialPods(rt), [id]);
      // A second runtime: the first one's memory of its policies must not matter.
      const r = await reapOrphans(runtime(), () => false);
      assert.deepEqual(r.removed, [id]);
      await waitFor('the orphan Pod gone', async () => ((await trialPods(rt)).length === 0 ? true : undefined));
      // Its NetworkPolicy went with it (the reaper sweeps policies whose Pod is gone).
      const conn = loadKube({ kubeconfigPath: f().kubeconfigPath });
      const policies = await conn.kc.makeApiClient(NetworkingV1Api).listNamespacedNetworkPolicy({ namespace: conn.namespace, labelSelector: LABEL });
      assert.deepEqual(policies.items.map((p) => p.metadata?.name), []);
      await waitFor('its container gone', () => (f().containers().length === 0 ? true : undefined), 20_000);
    });
  });
}
