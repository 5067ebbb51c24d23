import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Agent } from '../../src/core/agents/agent';
import { CommandAgent } from '../../src/core/agents/command';
import { OracleAgent } from '../../src/core/agents/oracle';
import { createPolicyAgent } from '../../src/core/agents/policy';
import { tallyRecords } from '../../src/core/band/fromRecords';
import { loadTask } from '../../src/core/loader/index';
import { RECORD_FILE } from '../../src/core/results/recover';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { reapOrphans } from '../../src/core/sandbox/reaper';
import { recoverDeadRuns, TrialRunner } from '../../src/core/sandbox/runner';
import { LABEL, LABEL_HOST, LABEL_LEASE, LABEL_PID, LABEL_RUN } from '../../src/core/sandbox/runtime';

/**
 * Verdict integrity against a real engine: this file runs on its own daemon (it kills one), started
 * with `TASKWRIGHT_DOCKERD2_DIR=/tmp/tw-integ-a bash scripts/docker-engine.sh --second`; set
 * TASKWRIGHT_INTEGRITY_DOCKERD_DIR to use another state folder.
 */
const root = path.resolve(__dirname, '../../..');
const stateDir = process.env.TASKWRIGHT_INTEGRITY_DOCKERD_DIR ?? '/tmp/tw-integ-a';
const dockerHost = `unix://${stateDir}/docker.sock`;
process.env.DOCKER_HOST = dockerHost;
const runtime = new DockerodeRuntime();
let work: string;

function startDaemon(): void {
  execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second'], {
    env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: stateDir }, stdio: 'ignore',
  });
  // A fresh daemon has no images: load the offline stand-ins (from the cache; a no-op once present).
  execFileSync('bash', [path.join(root, 'scripts/base-images.sh')], { env: { ...process.env, DOCKER_HOST: dockerHost }, stdio: 'ignore', timeout: 600_000 });
}

interface TaskSpec {
  readonly name: string;
  readonly solve?: string;
  readonly testSh: string;
  readonly files?: Readonly<Record<string, string>>;
  readonly memoryMb?: number;
  readonly agentSec?: number;
}

/** Writes a small Harbor task (written for these tests, in the shape of the corpora's tasks). */
function harborTask(spec: TaskSpec): string {
  const dir = path.join(work, spec.name);
  fs.mkdirSync(path.join(dir, 'environment'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'solution'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'task.toml'), [
    'version = "1.0"', '', '[verifier]', 'timeout_sec = 60', '', '[agent]', `timeout_sec = ${spec.agentSec ?? 60}`, '',
    '[environment]', 'build_timeout_sec = 120', 'cpus = 1', `memory_mb = ${spec.memoryMb ?? 512}`, '',
  ].join('\n'));
  fs.writeFileSync(path.join(dir, 'instruction.md'), 'Write the word done into /app/out.txt.\n');
  fs.writeFileSync(path.join(dir, 'environment/Dockerfile'), 'FROM python:3.11-slim\nWORKDIR /app\n');
  fs.writeFileSync(path.join(dir, 'solution/solve.sh'), `#!/bin/bash\n${spec.solve ?? 'echo done > /app/out.txt'}\n`);
  fs.writeFileSync(path.join(dir, 'tests/test.sh'), `#!/bin/bash\n${spec.testSh}\n`);
  for (const [rel, text] of Object.entries(spec.files ?? {})) fs.writeFileSync(path.join(dir, 'tests', rel), text);
  return dir;
}

const PYTEST_REWARD = [
  'mkdir -p /logs/verifier',
  'if python3 -m pytest -p no:cacheprovider /tests/test_out.py -rA; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi',
].join('\n');
const TEST_OUT = 'def test_out():\n    assert open("/app/out.txt").read().strip() == "done"\n';

function store(kind: string, retries = 0): RunStore {
  return RunStore.create(path.join(work, 'runs'), { id: newRunId(kind), kind: 'run', tasks: [], concurrency: 1, retries, startedAt: new Date().toISOString(), pid: process.pid });
}

async function runOne(taskDir: string, agent: Agent, retries = 0, attempts = 1) {
  const s = store(path.basename(taskDir), retries);
  const task = await loadTask(taskDir);
  const runner = new TrialRunner({ runtime }, s);
  const jobs = Array.from({ length: attempts }, (_, i) => ({ task, taskPath: taskDir, agent, attempt: i + 1 }));
  const results = (await runner.runAll(jobs, { concurrency: 1, retries, retryBaseMs: 100 })).flat();
  return { s, runner, results, records: results.map((r) => r.record) };
}

async function containersOfRun(runId: string): Promise<string[]> {
  return (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_RUN] === runId).map((c) => c.id);
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-integrity-'));
  process.env.TASKWRIGHT_LEASE_DIR = path.join(work, 'leases');
  startDaemon();
  await runtime.ping();
});

after(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('verdict integrity: the agent cannot erase its failures (integration)', () => {
  void it('an agent that kills its container (kill -9 -1, kill 1) is a counted failure, not infra, and is not retried', async () => {
    for (const [name, solve] of [['kills-all', 'echo done > /app/out.txt; kill -9 -1'], ['kills-init', 'echo done > /app/out.txt; kill 1; sleep 5']] as const) {
      const dir = harborTask({ name, solve, testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
      const { s, records } = await runOne(dir, new OracleAgent(), 2);
      assert.equal(records.length, 1, `${name}: retried as if infra: ${JSON.stringify(records)}`);
      assert.equal(records[0]!.outcome, 'agent-error', JSON.stringify(records[0]));
      assert.equal(records[0]!.reward, null);
      assert.match(records[0]!.error ?? '', /stopped during the agent's phase/);
      assert.equal(records[0]!.durations.verifier, null, 'the verifier must not run in a dead container');
      const [tally] = tallyRecords([{ source: s.dir, records, finished: true }]);
      assert.deepEqual([tally!.tasks[0]!.attempts, tally!.tasks[0]!.successes, tally!.tasks[0]!.infraErrors], [1, 0, 0]);
      assert.deepEqual(await containersOfRun(s.id), []);
    }
  });

  void it('a daemon killed mid-trial is infra, not the agent\'s failure', async () => {
    const dir = harborTask({ name: 'daemon-dies', testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
    const pid = Number(fs.readFileSync(path.join(stateDir, 'dockerd.pid'), 'utf8').trim());
    // A host program as the agent: it sleeps while the daemon is killed under it.
    const agent = new CommandAgent(`sleep 2; kill -9 ${pid}; sleep 2`);
    try {
      const { records } = await runOne(dir, agent, 0);
      assert.equal(records.length, 1);
      assert.equal(records[0]!.outcome, 'infra-error', JSON.stringify(records[0]));
      assert.equal(records[0]!.infra?.kind, 'engine-unreachable');
    } finally {
      startDaemon();
      await runtime.ping();
      // The killed daemon's containers are stopped on restart; remove this test's.
      await reapOrphans(runtime, { alive: () => false, lease: () => 'stale' });
    }
  });
});

void describe('verdict integrity: planting in /tests does not pass (integration)', () => {
  void it('a conftest.py and a reward.txt the agent planted are removed before the tests go in: reward 0', async () => {
    const conftest = [
      'import pytest',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    outcome.get_result().outcome = "passed"',
    ].join('\n');
    // The "solution" does not solve: it only plants, in /tests and in the reward folder.
    const solve = [
      'mkdir -p /tests /logs/verifier',
      `printf '%s\\n' '${conftest.split('\n').join("' '")}' > /tests/conftest.py`,
      'echo 1 > /logs/verifier/reward.txt',
      'chmod 777 /tests',
    ].join('\n');
    // A verifier that trusts an existing reward.txt, as careless ones do, to show the reward folder is fresh too.
    const testSh = ['[ -f /logs/verifier/reward.txt ] && exit 0', PYTEST_REWARD].join('\n');
    const dir = harborTask({ name: 'plants-tests', solve, testSh, files: { 'test_out.py': TEST_OUT } });
    const { s, records } = await runOne(dir, new OracleAgent());
    assert.equal(records[0]!.outcome, 'failed', JSON.stringify(records[0]));
    assert.equal(records[0]!.reward, 0);
    const log = fs.readFileSync(path.join(s.dir, records[0]!.logs, 'agent.log'), 'utf8');
    assert.match(log, /removed what the agent's phase left at \/tests, \/logs\/verifier/);
    // Without the plant the same task passes for a real solution: the check is not "always 0".
    const ok = harborTask({ name: 'solves', testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
    const solved = await runOne(ok, new OracleAgent());
    assert.equal(solved.records[0]!.outcome, 'passed');
  });
});

/** A 127.0.0.1 server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void>; connections: () => number }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((sock) => { n++; sockets.add(sock); sock.on('error', () => undefined); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    connections: () => n,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); srv.close(() => r()); }),
  };
}

void describe('verdict integrity: a model server that never answers is never scored (integration)', () => {
  void it('unreachable: infra, retried, the verifier never runs; refused key: the run stops, the key is not written', async () => {
    // A verifier that would pass doing nothing: a real-looking band if it ran.
    const dir = harborTask({ name: 'nop-would-pass', testSh: 'mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt' });
    const silent = await silentServer();
    try {
      const agent = createPolicyAgent(`openai:m@${silent.url}`, { timeoutMs: 1500, maxRetries: 0, secrets: () => undefined });
      const { s, records } = await runOne(dir, agent, 1);
      assert.deepEqual(records.map((r) => r.outcome), ['infra-error', 'infra-error']);
      assert.ok(records.every((r) => r.infra?.kind === 'provider-unreachable' && r.reward === null && r.durations.verifier === null));
      assert.ok(!fs.existsSync(path.join(s.dir, records[0]!.logs, 'verifier.stdout')));
      assert.ok(silent.connections() >= 2);
    } finally {
      await silent.close();
    }
    // Connection refused: a port nothing listens on.
    const closed = await silentServer();
    const refusedUrl = closed.url;
    await closed.close();
    const unreachable = await runOne(dir, createPolicyAgent(`openai:m@${refusedUrl}`, { timeoutMs: 1500, maxRetries: 0, secrets: () => undefined }), 0);
    assert.equal(unreachable.records[0]!.infra?.kind, 'provider-unreachable');

    const key = 'sk-test-0123456789abcdefghijklmnop';
    let requests = 0;
    const echo = http.createServer((req, res) => {
      requests++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization).replace('Bearer ', '')}`, type: 'invalid_request_error' } }));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as net.AddressInfo).port}/v1`;
      const agent = createPolicyAgent(`openai:m@${url}`, { maxRetries: 0, secrets: (n) => (n === 'OPENAI_API_KEY' ? key : undefined) });
      const { s, runner, records } = await runOne(dir, agent, 2, 3);
      assert.equal(records.length, 1, 'the run stops at the first refusal: no retry, no further attempt');
      assert.equal(records[0]!.outcome, 'infra-error');
      assert.equal(records[0]!.infra?.kind, 'provider-refused');
      assert.equal(records[0]!.durations.verifier, null);
      assert.match(runner.stopped ?? '', /401/);
      assert.equal(requests, 1);
      const written = execFileSync('grep', ['-rl', key, s.dir], { encoding: 'utf8' }).trim();
      assert.equal(written, '', `the key was written to ${written}`);
    } catch (e) {
      // grep exits 1 when nothing matched: that is the pass.
      if ((e as { status?: number }).status !== 1) throw e;
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });
});

void describe('verdict integrity: verifier OOM (integration)', () => {
  void it('an OOM-killed verifier is verifier-oom, not a verdict; the agent\'s own OOM stays the agent\'s', async () => {
    const hog = 'python3 -c "x = bytearray(400 * 1024 * 1024)"';
    const dir = harborTask({ name: 'verifier-oom', memoryMb: 64, testSh: `mkdir -p /logs/verifier\n${hog}\necho 1 > /logs/verifier/reward.txt` });
    const { s, records } = await runOne(dir, new OracleAgent());
    assert.equal(records[0]!.outcome, 'verifier-oom', JSON.stringify(records[0]));
    assert.equal(records[0]!.reward, null);
    const [tally] = tallyRecords([{ source: s.dir, records, finished: true }]);
    assert.equal(tally!.tasks[0]!.attempts, 0);
    assert.equal(tally!.tasks[0]!.verifierOom, 1);

    const agentOom = harborTask({ name: 'agent-oom', memoryMb: 64, solve: `${hog} || true`, testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
    const a = await runOne(agentOom, new OracleAgent());
    assert.equal(a.records[0]!.outcome, 'failed', JSON.stringify(a.records[0]));
    assert.equal(a.records[0]!.reward, 0);
  });
});

void describe('verdict integrity: lifecycle (integration)', () => {
  void it('a verdict whose process was killed before its record line is recovered, and its container reaped', async () => {
    const dir = harborTask({ name: 'recover-me', testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
    const results = path.join(work, 'killed-runs');
    const r = spawnSync(process.execPath, [path.join(root, 'bin/taskwright.js'), 'run', dir, '--agent', 'oracle', '--results', results], {
      env: { ...process.env, DOCKER_HOST: dockerHost, TASKWRIGHT_FAILPOINT: 'after-record-file' }, encoding: 'utf8', timeout: 120_000,
    });
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    const [runDir] = fs.readdirSync(results).map((d) => path.join(results, d));
    assert.ok(runDir);
    assert.equal(fs.readFileSync(path.join(runDir, 'trials.jsonl'), 'utf8'), '', 'the failpoint fires before the line is appended');
    const [trialDir] = fs.readdirSync(path.join(runDir, 'trials'));
    assert.ok(fs.existsSync(path.join(runDir, 'trials', trialDir!, RECORD_FILE)));
    const runId = path.basename(runDir);
    assert.equal((await containersOfRun(runId)).length, 1, `killed before removal: its container is left (${JSON.stringify((await runtime.listByLabel(LABEL)).map((c) => [c.labels, c.state]))}; ${r.stderr})`);
    // Read before any repair: the verdict already counts.
    assert.deepEqual(readRun(runDir).trials.map((t) => [t.outcome, t.recovered]), [['passed', true]]);
    // While the dead run's lease is still fresh (3 refresh intervals) it is taken for alive: left alone.
    assert.equal(recoverDeadRuns(results), 0);
    assert.equal((await reapOrphans(runtime)).removed.length, 0);
    const lease = path.join(process.env.TASKWRIGHT_LEASE_DIR!, `${runId}.lease`);
    assert.ok(fs.existsSync(lease), 'the run kept a lease');
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(lease, past, past);
    // The next start on the same results folder appends it and reaps the container.
    assert.equal(recoverDeadRuns(results), 1);
    assert.equal(recoverDeadRuns(results), 0, 'recovered once');
    const line = JSON.parse(fs.readFileSync(path.join(runDir, 'trials.jsonl'), 'utf8')) as { outcome: string; recovered?: boolean };
    assert.deepEqual([line.outcome, line.recovered], ['passed', true]);
    assert.equal((await reapOrphans(runtime)).removed.length, 1);
    assert.deepEqual(await containersOfRun(runId), []);
  });

  void it('the reaper keeps containers of a run with a fresh lease whatever its pid, and reaps stale leases', async () => {
    const host = os.hostname();
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    const livePid = sleeper.pid!;
    const cases = [
      { run: `lease-fresh-${Date.now()}`, pid: 999_999, lease: 'fresh', expect: 'kept' },
      { run: `lease-stale-${Date.now()}`, pid: livePid, lease: 'stale', expect: 'removed' },
      { run: `nolease-dead-${Date.now()}`, pid: 999_999, lease: undefined, expect: 'removed' },
      { run: `nolease-live-${Date.now()}`, pid: livePid, lease: undefined, expect: 'kept' },
    ] as const;
    const leases = process.env.TASKWRIGHT_LEASE_DIR!;
    fs.mkdirSync(leases, { recursive: true });
    const ids = new Map<string, string>();
    try {
      for (const c of cases) {
        if (c.lease) {
          const f = path.join(leases, `${c.run}.lease`);
          fs.writeFileSync(f, '{}\n');
          if (c.lease === 'stale') fs.utimesSync(f, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
        }
        const id = await runtime.start({
          image: 'busybox:latest', name: `tw-${c.run}`, env: {}, networkMode: 'none',
          labels: { [LABEL]: '1', [LABEL_RUN]: c.run, [LABEL_PID]: String(c.pid), [LABEL_HOST]: host, ...(c.lease ? { [LABEL_LEASE]: '1' } : {}) },
          limits: { nanoCpus: 1e8, memoryBytes: 64 * 1024 * 1024, pidsLimit: 64 },
        });
        ids.set(c.run, id);
      }
      const r = await reapOrphans(runtime);
      for (const c of cases) {
        assert.equal(r.removed.includes(ids.get(c.run)!) ? 'removed' : 'kept', c.expect, `${c.run}: pid ${c.pid}, lease ${c.lease ?? 'none'}`);
      }
    } finally {
      sleeper.kill('SIGKILL');
      for (const id of ids.values()) await runtime.remove(id);
    }
  });

  void it('a cancel while the container is being created leaves no container', async () => {
    let leaked = 0;
    for (let i = 0; i < 8; i++) {
      const ctl = new AbortController();
      const name = `tw-cancel-create-${process.pid}-${i}`;
      setTimeout(() => ctl.abort(), i * 8);
      let id: string | undefined;
      try {
        id = await runtime.start({
          image: 'busybox:latest', name, env: {}, networkMode: 'none', labels: { [LABEL]: '1' },
          limits: { nanoCpus: 1e8, memoryBytes: 64 * 1024 * 1024, pidsLimit: 64 },
        }, ctl.signal);
      } catch { /* cancelled: nothing may be left */ }
      if (id) { await runtime.remove(id); continue; }
      await new Promise((r) => setTimeout(r, 1500));
      if (await runtime.inspect(name)) { leaked++; await runtime.remove(name); }
    }
    assert.equal(leaked, 0);
  });

  void it('a command agent\'s host process and its children are stopped with its trial', async () => {
    const dir = harborTask({ name: 'host-agent', agentSec: 3, testSh: PYTEST_REWARD, files: { 'test_out.py': TEST_OUT } });
    const pidFile = path.join(work, 'host-agent-child.pid');
    // The program ignores SIGTERM and leaves a child that does too.
    const agent = new CommandAgent(`trap '' TERM; (trap '' TERM; exec sleep 300) & echo $! > ${pidFile}; sleep 300`, { killGraceMs: 500 });
    const { records } = await runOne(dir, agent);
    assert.equal(records[0]!.outcome, 'agent-timeout');
    const child = Number(fs.readFileSync(pidFile, 'utf8').trim());
    // A zombie (dead, not yet reaped by whoever adopted it) is not running.
    const state = (): string => { try { return fs.readFileSync(`/proc/${child}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? ''; } catch { return 'gone'; } };
    assert.ok(state() === 'gone' || state() === 'Z', `child ${child} survived its trial (state ${state()})`);
  });
});
