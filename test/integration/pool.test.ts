import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { connectEngines, runtimeFor } from '../../src/core/sandbox/connect';
import type { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { ImageCache } from '../../src/core/sandbox/image';
import { parseEngineAddress } from '../../src/core/sandbox/engines';
import { EnginePool } from '../../src/core/sandbox/pool';
import { reapOrphans } from '../../src/core/sandbox/reaper';
import { TrialRunner, type TrialJob } from '../../src/core/sandbox/runner';
import { LABEL } from '../../src/core/sandbox/runtime';
import { CLI, FIRST, imageId, makeCerts, ofRun, SECOND, secondPid, startSecond, STATE, tlsFront } from '../support/dockerEngines';
import { harborTask } from '../support/taskFolders';

/**
 * A pool of two real engines: the shared one and a second daemon of this test's own (see
 * test/support/dockerEngines.ts), which the kill case stops with SIGKILL.
 */
const first = FIRST;
const second = SECOND;
const cli = CLI;
let work: string;
let e1: DockerodeRuntime;
let e2: DockerodeRuntime;

/** Tasks whose oracle takes `sleepSec`, so trials are in flight when the engine dies. */
function tasks(prefix: string, n: number, sleepSec: number): string[] {
  return Array.from({ length: n }, (_, i) => harborTask(path.join(work, prefix, `${prefix}-${i + 1}`), {
    'environment/Dockerfile': `FROM debian:bookworm-slim\nWORKDIR /app\nRUN echo ${prefix}-${i + 1} > /etc/task-name\n`,
    'solution/solve.sh': `#!/bin/bash\nsleep ${sleepSec}\necho hello > /app/greeting.txt\n`,
  }));
}

/** Each attempt's tries in order: earlier tries are infra errors, the last is a verdict or an infra record. */
function byAttempt(records: readonly TrialRecord[]): Map<string, TrialRecord[]> {
  const m = new Map<string, TrialRecord[]>();
  for (const r of records) {
    const k = `${r.taskId}#${r.attempt}`;
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  for (const list of m.values()) list.sort((a, b) => (a.try ?? 1) - (b.try ?? 1));
  return m;
}

function assertEachAttemptOnce(records: readonly TrialRecord[], expected: readonly string[]): void {
  const m = byAttempt(records);
  assert.deepEqual([...m.keys()].sort(), [...expected].sort(), 'an attempt was lost or one appeared twice');
  for (const [k, list] of m) {
    const verdicts = list.filter((r) => r.outcome !== 'infra-error');
    assert.ok(verdicts.length <= 1, `${k} has ${verdicts.length} verdicts: ${JSON.stringify(list)}`);
    // Only the last try may be a verdict; a verdict is never followed by another try.
    list.slice(0, -1).forEach((r) => assert.equal(r.outcome, 'infra-error', `${k}: ${JSON.stringify(list)}`));
    assert.deepEqual(list.map((r) => r.try ?? 1), list.map((_, i) => i + 1), `${k}: tries not 1..n`);
  }
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-pool-'));
  startSecond();
  e1 = runtimeFor(parseEngineAddress(first));
  e2 = runtimeFor(parseEngineAddress(second));
});

after(() => {
  // The second daemon is left running for the next test (it was killed in the second case).
  startSecond();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * `taskwright run` over both engines (3 tasks × 3 attempts, each oracle 4 s), returned once the
 * second engine runs two of its trials; `finished()` waits for the exit and checks the ledger.
 */
async function pooledRun(name: string, env: NodeJS.ProcessEnv): Promise<{ output(): string; finished(): Promise<{ runId: string }> }> {
  const dirs = tasks(name, 3, 4);
  const results = path.join(work, `${name}-runs`);
  const child = spawn(process.execPath, [cli, 'run', ...dirs, '--agent', 'oracle', '--attempts', '3', '--concurrency', '2', '--retries', '1',
    '--engine', first, '--engine', second, '--results', results, '--json'], { cwd: work, env: { ...process.env, DOCKER_HOST: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 180_000;
  let running = 0;
  while (Date.now() < deadline) {
    running = (await e2.listByLabel(LABEL).catch(() => [])).filter((c) => c.state === 'running').length;
    if (running >= 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(running >= 2, `the second engine never ran two trials at once\n${stderr}`);
  return {
    output: () => stderr,
    finished: async () => {
      const code = await exited;
      // Exit 1: the lost tries are infra errors in the ledger (counted apart, never as attempts).
      assert.ok(code === 0 || code === 1, `exit ${code}\n${stderr}`);
      assert.match(stderr, new RegExp(`engine ${second.replace(/[/.]/g, '\\$&')} stopped answering and was drained`), stderr);
      const runDir = path.join(results, fs.readdirSync(results)[0]!);
      const { trials, skipped } = readRun(runDir);
      assert.equal(skipped, 0);
      assertEachAttemptOnce(trials, dirs.flatMap((d) => [1, 2, 3].map((a) => `${path.basename(d)}#${a}`)));
      const lost = trials.filter((t) => t.outcome === 'infra-error');
      assert.ok(lost.length >= 2, `the lost engine's trials were not recorded as infra errors: ${JSON.stringify(trials.map((t) => [t.trial, t.outcome]))}`);
      // Redone on the engine left, each lost attempt reached its verdict (the redo is not charged to --retries).
      for (const list of byAttempt(trials).values()) assert.equal(list[list.length - 1]!.outcome, 'passed', JSON.stringify(list));
      assert.equal((JSON.parse(stdout) as { trials: unknown[] }).trials.length, trials.length);
      const runId = path.basename(runDir);
      assert.equal(await ofRun(e1, runId), 0, 'containers left on the surviving engine');
      return { runId };
    },
  };
}

void describe('a pool of two Docker engines (integration)', () => {
  void it('spreads one run over both engines, copies each image once per engine, and leaves nothing behind', { timeout: 300_000 }, async () => {
    const dirs = tasks('spread', 2, 1);
    const { runtime, pool, concurrency } = connectEngines([`${first}?slots=2`, `${second}?slots=2`], 1);
    assert.ok(pool instanceof EnginePool);
    assert.equal(concurrency, 4);
    const store = RunStore.create(path.join(work, 'runs'), { id: newRunId('spread'), kind: 'run', tasks: dirs, concurrency, retries: 1, startedAt: new Date().toISOString(), pid: process.pid });
    const runner = new TrialRunner({ runtime }, store);
    await runner.prepare();
    const jobs: TrialJob[] = [];
    for (let a = 1; a <= 4; a++) for (const d of dirs) jobs.push({ task: await loadTask(d), taskPath: d, agent: new OracleAgent(), attempt: a });
    const started = Date.now();
    const results = await runner.runAll(jobs, { concurrency, retries: 1, retryBaseMs: 100 });
    const wallSec = (Date.now() - started) / 1000;
    store.finish({});
    const records = results.flat().map((r) => r.record);
    assert.deepEqual(records.map((r) => r.outcome), jobs.map(() => 'passed'), JSON.stringify(records.map((r) => [r.trial, r.outcome, r.infra])));
    const stats = pool.stats();
    assert.ok(stats.every((s) => s.started > 0 && !s.drained), JSON.stringify(stats));
    assert.equal(stats.reduce((n, s) => n + s.started, 0), jobs.length);
    // The same image (by id) on both engines: built on one, copied to the other.
    for (const d of dirs) {
      const { ref } = await new ImageCache(e1).ensure(await loadTask(d));
      const [i1, i2] = [first, second].map((h) => imageId(h, ref));
      assert.ok(i1 && i1 === i2, `${ref}: ${i1} vs ${i2}`);
    }
    assert.equal(await ofRun(e1, store.id), 0, 'containers left on the first engine');
    assert.equal(await ofRun(e2, store.id), 0, 'containers left on the second engine');
    fs.writeFileSync(path.join(work, 'spread.json'), JSON.stringify({ wallSec, stats }));
  });

  void it('reaches an engine over tcp:// with TLS (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH), exec streams included', { timeout: 300_000 }, async () => {
    // A TLS front of the second daemon (client certificates required), as a remote `dockerd --tlsverify` would be.
    const certs = makeCerts(path.join(work, 'certs'));
    const front = await tlsFront(certs, path.join(STATE, 'docker.sock'));
    try {
      const port = front.port;
      const env = { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs };
      const { runtime, pool, concurrency } = connectEngines([`${first}?slots=1`, `tcp://localhost:${port}?slots=2`], 1, env);
      assert.ok(pool);
      assert.deepEqual(pool.stats().map((x) => x.endpoint), [first, `tcp://localhost:${port}`]);
      const dirs = tasks('tls', 1, 1);
      const store = RunStore.create(path.join(work, 'runs'), { id: newRunId('tls'), kind: 'run', tasks: dirs, concurrency, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
      const runner = new TrialRunner({ runtime }, store);
      await runner.prepare();
      const jobs: TrialJob[] = [];
      for (let a = 1; a <= 4; a++) jobs.push({ task: await loadTask(dirs[0]!), taskPath: dirs[0]!, agent: new OracleAgent(), attempt: a });
      const results = await runner.runAll(jobs, { concurrency, retries: 0 });
      store.finish({});
      assert.deepEqual(results.flat().map((r) => r.record.outcome), ['passed', 'passed', 'passed', 'passed'], JSON.stringify(results.flat().map((r) => r.record.infra)));
      assert.ok(pool.stats()[1]!.started >= 2, JSON.stringify(pool.stats()));
      assert.equal(await ofRun(e2, store.id), 0);
      // Without the client certificate the TLS front refuses: the address needs them, and says which file is missing.
      assert.throws(() => connectEngines([`tcp://localhost:${port}`], 1, { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: path.join(work, 'none') }), /ca\.pem/);
    } finally {
      front.close();
    }
  });

  void it('kills one engine mid-run: every attempt ends once, with a verdict or an infra record, and nothing is left', { timeout: 420_000 }, async () => {
    const run = await pooledRun('kill', {});
    process.kill(secondPid(), 'SIGKILL');
    const { runId } = await run.finished();

    // The killed engine restarted: the containers it kept are the next run's reaper's (their owner is gone).
    startSecond();
    await reapOrphans(e2);
    assert.equal(await ofRun(e2, runId), 0, 'containers left on the restarted engine');
    assert.equal(await ofRun(e1, runId), 0);
  });

  void it('drains a frozen engine and removes the containers it kept once it answers again', { timeout: 420_000 }, async () => {
    const pid = secondPid();
    const run = await pooledRun('freeze', { TASKWRIGHT_ENGINE_TIMEOUT_SEC: '5' });
    process.kill(pid, 'SIGSTOP');
    try {
      const deadline = Date.now() + 120_000;
      while (!/was drained/.test(run.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const { runId } = await run.finished();
    // The engine answered again before the run ended: what it kept is gone with the run, not left to a reaper.
    assert.equal(await ofRun(e2, runId), 0, 'containers left on the engine that was frozen');
  });
});
