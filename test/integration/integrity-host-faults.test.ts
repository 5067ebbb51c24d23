import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Agent, AgentResult, TrialSession } from '../../src/core/agents/agent';
import { OracleAgent } from '../../src/core/agents/oracle';
import { computeBand } from '../../src/core/band/compute';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { TrialRunner, type TrialJob } from '../../src/core/sandbox/runner';
import { LABEL } from '../../src/core/sandbox/runtime';
import { harborTask, tb1Task } from '../support/taskFolders';

/**
 * Host isolation and faults on a daemon of this test's own (its own socket and data root): the
 * frozen-daemon case stops it with SIGSTOP, which must never happen to the shared one.
 */
const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'bin/taskwright.js');
const STATE = process.env.TASKWRIGHT_INTEG_B_DOCKERD ?? '/tmp/tw-integ-b';
let dockerHost = '';
let runtime: DockerodeRuntime;
let work: string;
const SECRET = 'root:$6$host-secret-never-in-a-container';

function startDaemon(): string {
  const out = execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second'], {
    env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE }, encoding: 'utf8', timeout: 120_000,
  });
  const m = /DOCKER_HOST=(\S+)/.exec(out);
  assert.ok(m, out);
  execFileSync('bash', [path.join(root, 'scripts/base-images.sh')], { env: { ...process.env, DOCKER_HOST: m[1] }, stdio: 'ignore', timeout: 600_000 });
  return m[1]!;
}

function daemonPid(): number {
  return Number(fs.readFileSync(path.join(STATE, 'dockerd.pid'), 'utf8').trim());
}

/** Everything under `dir` as text, to look for the host's secret. */
function allText(dir: string): string {
  let s = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) s += fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
  }
  return s;
}

function store(kind: string): RunStore {
  return RunStore.create(path.join(work, 'results'), { id: newRunId(kind), kind: 'run', tasks: [], concurrency: 1, retries: 1, startedAt: new Date().toISOString(), pid: process.pid });
}

async function ours(): Promise<number> {
  return (await runtime.listByLabel(LABEL)).length;
}

/** Reads /tests in the container before the verifier: what the harness put there. */
class LookAgent implements Agent {
  readonly spec = 'look';
  seen = '';
  async run(session: TrialSession, signal: AbortSignal): Promise<AgentResult> {
    const r = await session.exec('ls -la /tests /oracle /solution 2>&1; cat /tests/* /oracle/* 2>/dev/null; true', { signal });
    this.seen += r.stdout;
    return { status: 'completed', steps: 1 };
  }
}

function cliRun(args: string[], env: NodeJS.ProcessEnv): { exited: Promise<{ code: number | null; ms: number }>; stderr: () => string; child: ReturnType<typeof spawn> } {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, DOCKER_HOST: dockerHost, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  child.stdout.on('data', (c: Buffer) => { err += c.toString(); });
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) => child.on('exit', (code) => resolve({ code, ms: Date.now() - started })));
  return { exited, stderr: () => err, child };
}

before(() => {
  dockerHost = startDaemon();
  process.env.DOCKER_HOST = dockerHost;
  runtime = new DockerodeRuntime(undefined, { callTimeoutMs: 20_000 });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-integ-b-'));
});

after(() => {
  try { process.kill(daemonPid(), 'SIGCONT'); } catch { /* not frozen */ }
  try { execFileSync('umount', [path.join(work, 'tiny')], { stdio: 'ignore' }); } catch { /* not mounted */ }
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('host isolation on a real engine (integration)', () => {
  void it('refuses tests, solution and compose context that lead outside the task: nothing copied, not infra', async () => {
    const host = fs.mkdtempSync(path.join(work, 'host-'));
    fs.writeFileSync(path.join(host, 'shadow'), `${SECRET}\n`);
    const testsOut = harborTask(path.join(work, 'tasks-out', 'tests-link'));
    fs.rmSync(path.join(testsOut, 'tests'), { recursive: true });
    fs.symlinkSync(host, path.join(testsOut, 'tests'));
    const solOut = tb1Task(path.join(work, 'tasks-out', 'solution-link'));
    fs.rmSync(path.join(solOut, 'solution.sh'));
    fs.symlinkSync(path.join(host, 'shadow'), path.join(solOut, 'solution.sh'));
    const runTestsOut = tb1Task(path.join(work, 'tasks-out', 'run-tests-link'));
    fs.rmSync(path.join(runTestsOut, 'run-tests.sh'));
    fs.symlinkSync(path.join(host, 'shadow'), path.join(runTestsOut, 'run-tests.sh'));
    const composeOut = tb1Task(path.join(work, 'tasks-out', 'compose-out'), { 'docker-compose.yaml': 'services:\n  client:\n    build:\n      context: ../../host-ctx\n' });
    fs.mkdirSync(path.join(work, 'host-ctx'), { recursive: true });
    fs.writeFileSync(path.join(work, 'host-ctx', 'Dockerfile'), 'FROM busybox\n');
    fs.writeFileSync(path.join(work, 'host-ctx', 'shadow'), SECRET);
    // A link that stays inside the task keeps working.
    const inside = harborTask(path.join(work, 'tasks-out', 'inside-link'));
    fs.renameSync(path.join(inside, 'tests', 'test.sh'), path.join(inside, 'tests', 'real-test.sh'));
    fs.symlinkSync('real-test.sh', path.join(inside, 'tests', 'test.sh'));

    const s = store('isolation');
    const runner = new TrialRunner({ runtime }, s);
    const look = new LookAgent();
    const jobs: TrialJob[] = await Promise.all([testsOut, runTestsOut, composeOut].map(async (d) => ({ task: await loadTask(d), taskPath: d, agent: look, attempt: 1 })));
    jobs.push({ task: await loadTask(solOut), taskPath: solOut, agent: new OracleAgent(), attempt: 1 });
    jobs.push({ task: await loadTask(inside), taskPath: inside, agent: new OracleAgent(), attempt: 1 });
    const results = (await runner.runAll(jobs, { concurrency: 2, retries: 1, retryBaseMs: 100 })).map((rs) => rs.map((r) => r.record));
    const [tests, runTests, compose, sol, ok] = results.map((rs) => rs);
    for (const [name, rs] of [['tests', tests], ['run-tests', runTests], ['compose', compose], ['solution', sol]] as const) {
      assert.equal(rs!.length, 1, `${name}: retried ${JSON.stringify(rs)}`);
      const r = rs![0]!;
      assert.equal(r.outcome, 'verifier-error', `${name}: ${JSON.stringify(r)}`);
      assert.equal(r.taskProblem?.rule, 'path-outside-task', name);
      assert.equal(r.infra, undefined, name);
    }
    assert.equal(ok![0]!.outcome, 'passed', JSON.stringify(ok));
    assert.doesNotMatch(look.seen, /host-secret/);
    assert.doesNotMatch(allText(s.dir), /host-secret/);
    assert.equal(await ours(), 0, 'containers left');
  });
});

void describe('same-named tasks on a real engine (integration)', () => {
  void it('gives two tasks called hello two band rows', async () => {
    const a = harborTask(path.join(work, 'suite-a', 'hello'));
    const b = harborTask(path.join(work, 'suite-b', 'hello'), { 'solution/solve.sh': '#!/bin/bash\necho goodbye > /app/greeting.txt\n' });
    const s = store('same-name');
    const runner = new TrialRunner({ runtime }, s);
    const jobs: TrialJob[] = [];
    for (let i = 1; i <= 2; i++) for (const d of [a, b]) jobs.push({ task: await loadTask(d), taskPath: path.relative(work, d), agent: new OracleAgent(), attempt: i });
    await runner.runAll(jobs, { concurrency: 2, retries: 1, retryBaseMs: 100 });
    s.finish({});
    const { report } = computeBand([s.dir], { k: 2 });
    const rows = report.models[0]!.tasks.map((t) => `${t.path} ${t.successes}/${t.attempts}`);
    assert.deepEqual(rows, ['suite-a/hello 2/2', 'suite-b/hello 0/2']);
  });
});

void describe('faults on a daemon of our own (integration)', () => {
  void it('a 2 MB results store: one clear line, no stack trace, no container left, no torn record', async () => {
    const tiny = path.join(work, 'tiny');
    fs.mkdirSync(tiny);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', tiny]);
    const loud = harborTask(path.join(work, 'loud'), {
      'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nhead -c 6000000 /dev/zero | tr "\\\\0" x\necho 1 > /logs/verifier/reward.txt\n',
    });
    const run = cliRun(['run', loud, '--agent', 'oracle', '--attempts', '3', '--concurrency', '1', '--results', tiny], {});
    const { code } = await run.exited;
    const err = run.stderr();
    assert.equal(code, 1, err);
    assert.match(err, /the run stopped: the disk is full/);
    assert.doesNotMatch(err, /\n\s+at .+:\d+:\d+/, 'a stack trace was printed');
    assert.equal(await ours(), 0, 'containers left');
    for (const d of fs.readdirSync(tiny)) {
      const r = readRun(path.join(tiny, d));
      assert.equal(r.skipped, 0, 'a torn or partial record');
      for (const t of r.trials) assert.ok(t.outcome !== 'infra-error' || t.infra?.kind === 'disk-full', JSON.stringify(t));
    }
  });

  void it('a frozen daemon: the run ends within the engine timeout, with a message', async () => {
    const slow = harborTask(path.join(work, 'slow'), { 'solution/solve.sh': '#!/bin/bash\nsleep 40\necho hello > /app/greeting.txt\n' });
    const run = cliRun(['run', slow, '--agent', 'oracle', '--attempts', '2', '--concurrency', '1', '--results', path.join(work, 'frozen-results')], { TASKWRIGHT_ENGINE_TIMEOUT_SEC: '4' });
    // Freeze once the trial's container runs.
    const deadline = Date.now() + 120_000;
    while ((await ours()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.ok((await ours()) > 0, `no trial container started:\n${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 2000));
    const frozenAt = Date.now();
    process.kill(daemonPid(), 'SIGSTOP');
    let ended: { code: number | null; ms: number };
    try {
      ended = await Promise.race([run.exited, new Promise<{ code: number | null; ms: number }>((r) => setTimeout(() => r({ code: -1, ms: -1 }), 60_000))]);
    } finally {
      process.kill(daemonPid(), 'SIGCONT');
    }
    const took = Date.now() - frozenAt;
    process.stdout.write(`# frozen daemon: the run ended ${took} ms after the freeze (engine timeout 4 s)\n`);
    if (ended.code === -1) run.child.kill('SIGKILL');
    const err = run.stderr();
    assert.notEqual(ended.code, -1, `the run hung on a frozen daemon:\n${err}`);
    assert.equal(ended.code, 1, err);
    assert.match(err, /engine-timeout|stopped answering/);
    assert.doesNotMatch(err, /\n\s+at .+:\d+:\d+/, 'a stack trace was printed');
    // Detection (a heartbeat ping) + removal + the runner's check, each bounded by 4 s.
    assert.ok(took < 30_000, `took ${took} ms`);
    // Left by the freeze, removed by the next run's reaper; clean up ours here.
    for (const c of await runtime.listByLabel(LABEL)) await runtime.remove(c.id);
  });
});
