import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NopAgent } from '../../src/core/agents/nop';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import Docker from 'dockerode';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { environmentDockerOptions } from '../../src/core/sandbox/engines';
import { LEASE_REFRESH_MS, LEASE_STALE_FACTOR, leaseDir } from '../../src/core/sandbox/lease';
import { reapOrphans } from '../../src/core/sandbox/reaper';
import { TrialRunner } from '../../src/core/sandbox/runner';
import { LABEL, LABEL_PID, LABEL_RUN } from '../../src/core/sandbox/runtime';
import type { TaskValidation } from '../../src/core/validate/types';
import { validateTasks } from '../../src/core/validate/validate';

const root = path.resolve(__dirname, '../../..');
const fixtures = path.join(root, 'test/fixtures/sandbox');
const examples = path.join(root, 'examples/tasks');
const runtime = new DockerodeRuntime();
let results: string;

function store(kind: string): RunStore {
  return RunStore.create(results, { id: newRunId(kind), kind: 'validate', tasks: [], concurrency: 2, retries: 1, startedAt: new Date().toISOString(), pid: process.pid });
}

async function targets(...names: string[]) {
  return Promise.all(names.map(async (n) => ({ task: await loadTask(path.join(fixtures, n)), path: n })));
}

async function containersOf(label: string, value: string): Promise<string[]> {
  return (await runtime.listByLabel(LABEL)).filter((c) => c.labels[label] === value).map((c) => c.id);
}

const byId = (vs: readonly TaskValidation[], id: string): TaskValidation => {
  const v = vs.find((x) => x.id === id);
  assert.ok(v, `no validation for ${id}`);
  return v;
};
const check = (v: TaskValidation, name: string) => v.checks.find((c) => c.name === name)?.status;

before(async () => {
  results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-integration-'));
  await runtime.ping();
});

after(() => {
  fs.rmSync(results, { recursive: true, force: true });
});

void describe('sandbox validate (integration)', () => {
  void it('tells a valid task from hijackable ones, in both formats (integration)', async () => {
    const s = store('probes');
    const vs = await validateTasks(runtime, s, await targets('harbor-valid', 'tb1-valid', 'conftest-hijack', 'tb1-conftest-hijack'), { runs: 1, concurrency: 2, retries: 1, retryBaseMs: 200 });
    for (const id of ['harbor-valid', 'tb1-valid']) {
      const v = byId(vs, id);
      assert.equal(v.verdict, 'valid', `${id}: ${JSON.stringify(v.checks)}`);
    }
    for (const id of ['conftest-hijack', 'tb1-conftest-hijack']) {
      const v = byId(vs, id);
      assert.equal(v.verdict, 'misaligned', id);
      assert.equal(check(v, 'oracle'), 'pass');
      assert.equal(check(v, 'nop'), 'pass');
      assert.equal(check(v, 'reward-isolation'), 'fail');
      assert.ok(v.findings.some((f) => f.rule === 'reward-not-isolated'));
    }
    // TB1 counts the planted skips as passes: that is how the conftest earns reward there.
    const tb1 = readRun(s.dir).trials.filter((t) => t.taskId === 'tb1-conftest-hijack' && t.trial.includes('probe-conftest'));
    assert.equal(tb1[0]?.outcome, 'passed');
    assert.ok((tb1[0]?.countedSkips ?? 0) > 0);
    assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
  });

  void it('finds tests that pass with no solution, a failing solution, a verdict that ignores pytest, and a failed build (integration)', async () => {
    const s = store('defects');
    const vs = await validateTasks(runtime, s, await targets('nop-passes', 'oracle-fails', 'ignores-status', 'build-fails'), { runs: 1, concurrency: 2, retries: 1, retryBaseMs: 200, probes: false, mutants: 0, behaviour: false });
    const nop = byId(vs, 'nop-passes');
    assert.equal(nop.verdict, 'misaligned');
    assert.equal(nop.findings[0]?.rule, 'nop-passes');
    assert.equal(nop.findings[0]?.file, 'tests/test.sh');
    const oracle = byId(vs, 'oracle-fails');
    assert.equal(oracle.verdict, 'invalid');
    assert.equal(oracle.findings[0]?.rule, 'oracle-fails');
    assert.equal(oracle.findings[0]?.file, 'solution/solve.sh');
    assert.equal(byId(vs, 'ignores-status').verdict, 'misaligned');
    const build = byId(vs, 'build-fails');
    assert.equal(build.verdict, 'infra-error');
    assert.equal(check(build, 'build'), 'fail');
    assert.equal(build.findings[0]?.rule, 'build-fails');
    assert.equal(build.findings[0]?.class, 'infra');
    assert.ok(!build.findings.some((f) => f.class !== 'infra'), 'a failed build is never counted against the task as a failure');
    assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
  });

  void it('flags a verifier that passes at random as flaky (integration)', async () => {
    const vs = await validateTasks(runtime, store('random'), await targets('random-verifier'), { runs: 6, concurrency: 2, retries: 1, retryBaseMs: 200, probes: false, mutants: 0, behaviour: false });
    const v = byId(vs, 'random-verifier');
    assert.equal(check(v, 'agreement'), 'fail');
    assert.ok(v.findings.some((f) => f.rule === 'flaky-verdict' && f.class === 'brittleness'));
    assert.notEqual(v.verdict, 'valid');
  });
});

void describe('sandbox trials (integration)', () => {
  void it('ends a verifier that overruns its timeout as verifier-timeout and removes its container (integration)', async () => {
    const s = store('timeout');
    const runner = new TrialRunner({ runtime }, s);
    const task = await loadTask(path.join(fixtures, 'verifier-timeout'));
    const [r] = await runner.runJob({ task, taskPath: 'verifier-timeout', agent: new OracleAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    assert.equal(r?.record.outcome, 'verifier-timeout');
    assert.equal(r?.record.reward, null);
    assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
    assert.equal(readRun(s.dir).trials.length, 1);
  });

  void it('sends a multi-step task\'s task-level tests/ under the step\'s own: the step sources the shared helper that writes the reward (integration)', async () => {
    const s = store('multi-step');
    const runner = new TrialRunner({ runtime }, s);
    const task = await loadTask(path.join(fixtures, 'multi-step-shared'));
    const [oracle] = await runner.runJob({ task, taskPath: 'multi-step-shared', agent: new OracleAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    const [nop] = await runner.runJob({ task, taskPath: 'multi-step-shared', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    // Without the shared helpers `pass`/`fail` are unknown commands: no reward file, an infra error instead of these verdicts.
    assert.equal(oracle?.record.outcome, 'passed', JSON.stringify(oracle?.record));
    assert.equal(oracle?.record.reward, 1);
    assert.equal(nop?.record.outcome, 'failed', JSON.stringify(nop?.record));
    assert.equal(nop?.record.reward, 0);
    assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
  });

  void it('never runs the agent in a Harbor sidecar: a compose file of sidecars over environment/Dockerfile is refused as multi-container, not run in the sidecar\'s image (integration)', async () => {
    const s = store('sidecar');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-sidecar-'));
    const task = path.join(dir, 'harbor-sidecar');
    fs.cpSync(path.join(fixtures, 'harbor-valid'), task, { recursive: true });
    fs.writeFileSync(path.join(task, 'environment/docker-compose.yaml'), 'services:\n  helper:\n    image: busybox:1.36\n    command: ["sleep", "3600"]\n');
    try {
      const runner = new TrialRunner({ runtime }, s);
      const [r] = await runner.runJob({ task: await loadTask(task), taskPath: 'harbor-sidecar', agent: new OracleAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
      assert.equal(r?.record.outcome, 'infra-error', JSON.stringify(r?.record));
      assert.equal(r?.record.infra?.kind, 'other');
      assert.match(r?.record.infra?.message ?? '', /beside 'main' \(helper\)/);
      assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('runs a present docker_image as Harbor does, without building environment/Dockerfile; an absent one falls back to the build --force-build would make (integration)', async () => {
    const s = store('prebuilt');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-prebuilt-'));
    const task = path.join(dir, 'harbor-prebuilt');
    fs.cpSync(path.join(fixtures, 'harbor-valid'), task, { recursive: true });
    const runner = new TrialRunner({ runtime }, s);
    // The prebuilt image: the valid task's own build, under a stock-looking tag (labels kept).
    const { ref } = await runner.images.ensure(await loadTask(task));
    const prebuilt = 'taskwright/prebuilt-fixture:1';
    await new Docker(environmentDockerOptions()).getImage(ref).tag({ repo: 'taskwright/prebuilt-fixture', tag: '1' });
    fs.appendFileSync(path.join(task, 'task.toml'), `docker_image = "${prebuilt}"\n`);
    // A Dockerfile that cannot build: a trial that passes never built it.
    fs.appendFileSync(path.join(task, 'environment/Dockerfile'), '\nRUN echo "not built when docker_image is present" && exit 3\n');
    try {
      const [r] = await runner.runJob({ task: await loadTask(task), taskPath: 'harbor-prebuilt', agent: new OracleAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
      assert.equal(r?.record.outcome, 'passed', JSON.stringify(r?.record));
      const log = fs.readFileSync(path.join(s.dir, r?.record.logs ?? '', 'build.log'), 'utf8');
      assert.match(log, /using image taskwright\/prebuilt-fixture:1 \(docker_image, present locally\)/);
      await runtime.removeImage(prebuilt);
      const [b] = await runner.runJob({ task: await loadTask(task), taskPath: 'harbor-prebuilt', agent: new OracleAgent(), attempt: 2 }, { concurrency: 1, retries: 0 });
      assert.equal(b?.record.outcome, 'infra-error', JSON.stringify(b?.record));
      assert.equal(b?.record.infra?.kind, 'build-failed');
      const blog = fs.readFileSync(path.join(s.dir, b?.record.logs ?? '', 'build.log'), 'utf8');
      assert.match(blog, /not present locally and Taskwright never pulls: building environment\/Dockerfile instead/);
      assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
    } finally {
      await runtime.removeImage(prebuilt).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('ends an agent that overruns its timeout as agent-timeout and removes its container (integration)', async () => {
    const s = store('agent-timeout');
    const runner = new TrialRunner({ runtime }, s);
    const task = await loadTask(path.join(fixtures, 'agent-timeout'));
    const [r] = await runner.runJob({ task, taskPath: 'agent-timeout', agent: new OracleAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    assert.equal(r?.record.outcome, 'agent-timeout');
    assert.equal(r?.record.durations.verifier, null);
    assert.deepEqual(await containersOf(LABEL_RUN, s.id), []);
  });

  void it('records a failed build as an infra error, not a failure, and does not retry it (integration)', async () => {
    const s = store('build');
    const runner = new TrialRunner({ runtime }, s);
    const task = await loadTask(path.join(fixtures, 'build-fails'));
    const rs = await runner.runJob({ task, taskPath: 'build-fails', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 2, retryBaseMs: 100 });
    assert.equal(rs.length, 1);
    assert.equal(rs[0]?.record.outcome, 'infra-error');
    assert.equal(rs[0]?.record.infra?.kind, 'build-failed');
    assert.ok(fs.readFileSync(path.join(s.dir, rs[0]?.record.logs ?? '', 'build.log'), 'utf8').includes('fails on purpose'));
  });

  void it('reuses the image of an unchanged task (integration)', async () => {
    const s = store('rebuild');
    const runner = new TrialRunner({ runtime }, s);
    const task = await loadTask(path.join(fixtures, 'harbor-valid'));
    await runner.images.ensure(task);
    const again = await runner.images.ensure(task);
    assert.equal(again.built, false);
    assert.match(again.ref, /^taskwright\/harbor-valid:[0-9a-f]{16}$/);
  });

  void it('gives the examples the verdicts scripts/check-examples.sh expects (integration)', async () => {
    const s = store('examples');
    const runner = new TrialRunner({ runtime }, s);
    const dirs = fs.readdirSync(examples).filter((d) => fs.existsSync(path.join(examples, d, 'task.yaml')) || fs.existsSync(path.join(examples, d, 'task.toml')));
    assert.ok(dirs.length >= 6);
    const tasks = await Promise.all(dirs.map((d) => loadTask(path.join(examples, d))));
    const jobs = tasks.flatMap((task) => [
      { task, taskPath: task.id, agent: new OracleAgent(), attempt: 1 },
      { task, taskPath: task.id, agent: new NopAgent(), attempt: 1 },
    ]);
    const rs = (await runner.runAll(jobs, { concurrency: 2, retries: 1, retryBaseMs: 200 })).map((x) => x[x.length - 1]?.record);
    // The deliberate defects the examples document (scripts/check-examples.sh EXPECT): null agents pass these.
    const nopPasses = new Set(['fix-service-config', 'dedupe-contacts', 'parse-access-log']);
    for (const r of rs) {
      assert.ok(r);
      if (r.agent === 'oracle') assert.equal(r.outcome, 'passed', `${r.taskId}: oracle ${r.outcome}`);
      else assert.equal(r.outcome, nopPasses.has(r.taskId ?? '') ? 'passed' : 'failed', `${r.taskId}: nop ${r.outcome}`);
    }
  });
});

void void describe('solution shipped in the image (integration)', () => {
  void it('finds the copy of solution.sh that semver-sort ships in its image, and runs it for reward (integration)', async () => {
    const task = await loadTask(path.join(examples, 'semver-sort'));
    const vs = await validateTasks(runtime, store('leak'), [{ task, path: 'semver-sort' }], { runs: 1, concurrency: 2, retries: 1, retryBaseMs: 200 });
    const v = byId(vs, 'semver-sort');
    assert.equal(v.verdict, 'misaligned');
    const f = v.findings.find((x) => x.rule === 'answer-or-solution-in-image');
    assert.equal(f?.file, 'Dockerfile');
    assert.ok(!v.findings.some((x) => x.rule === 'reward-not-isolated'), 'the planted-file probes earn nothing on this task');
    assert.deepEqual((v.probes ?? []).filter((p) => (p.reward ?? 0) > 0).map((p) => p.name), ['solution-in-image']);
  });
});

void describe('interrupted runs (integration)', () => {
  const cli = path.join(root, 'bin/taskwright.js');

  async function startRun(): Promise<{ child: ReturnType<typeof spawn>; exited: Promise<number | null>; stderr: () => string }> {
    const child = spawn(process.execPath, [cli, 'run', path.join(fixtures, 'slow-solution'), '--agent', 'oracle', '--results', results], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (c: Buffer) => { err += c.toString(); });
    child.stdout?.resume();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait until its trial container runs (the solution sleeps a minute); generous for a loaded machine.
    for (let i = 0; i < 900; i++) {
      if ((await containersOf(LABEL_PID, String(child.pid))).length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await containersOf(LABEL_PID, String(child.pid))).length, 1, `no trial container appeared: ${err}`);
    return { child, exited, stderr: () => err };
  }

  function runDirOf(stderr: string): string {
    const m = /results in (\S+)/.exec(stderr);
    assert.ok(m, stderr);
    return path.resolve(root, m[1] as string);
  }

  void it('Ctrl-C removes the trial container and keeps the ledger readable (integration)', async () => {
    const { child, exited, stderr } = await startRun();
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr());
    assert.deepEqual(await containersOf(LABEL_PID, String(child.pid)), []);
    const run = readRun(runDirOf(stderr()));
    assert.equal(run.trials.length, 1);
    assert.equal(run.trials[0]?.outcome, 'cancelled');
  });

  void it('kill -9 leaves a container that the next start reaps, and the ledger stays readable (integration)', async () => {
    const { child, exited, stderr } = await startRun();
    child.kill('SIGKILL');
    await exited;
    assert.equal((await containersOf(LABEL_PID, String(child.pid))).length, 1);
    // Its lease is still fresh: for the next 30 s it cannot be told from a live run, so it is kept.
    const lease = fs.readdirSync(leaseDir()).map((f) => path.join(leaseDir(), f))
      .find((f) => { try { return (JSON.parse(fs.readFileSync(f, 'utf8')) as { pid?: number }).pid === child.pid; } catch { return false; } });
    assert.ok(lease, 'the killed run left its lease');
    await reapOrphans(runtime);
    assert.equal((await containersOf(LABEL_PID, String(child.pid))).length, 1, 'a fresh lease keeps the container');
    // The next start comes later: the lease was not refreshed for longer than the stale limit.
    const old = new Date(Date.now() - LEASE_REFRESH_MS * (LEASE_STALE_FACTOR + 1));
    fs.utimesSync(lease, old, old);
    const reaped = await reapOrphans(runtime);
    assert.ok(reaped.removed.length >= 1);
    assert.deepEqual(await containersOf(LABEL_PID, String(child.pid)), []);
    const run = readRun(runDirOf(stderr()));
    assert.equal(run.trials.length, 0);
    assert.equal(run.params?.kind, 'run');
  });
});
