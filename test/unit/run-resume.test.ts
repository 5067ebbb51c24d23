import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Agent, AgentResult, TrialSession } from '../../src/core/agents/agent';
import { NopAgent } from '../../src/core/agents/nop';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { loadTask } from '../../src/core/loader/index';
import { RECORD_FILE, writeRecordFile } from '../../src/core/results/recover';
import { newRunId, readRun, RunStore, type RunParameters } from '../../src/core/results/store';
import type { TimeoutPolicy } from '../../src/core/results/timeoutPolicy';
import type { TrialRecord } from '../../src/core/results/trial';
import { openForResume, ResumeError, runOwnerLive, type OwnerDeps } from '../../src/core/sandbox/resume';
import { TrialRunner } from '../../src/core/sandbox/runner';
import {
  InfraError, LABEL, LABEL_RUN, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary, type ExecOutcome, type ExecRequest,
} from '../../src/core/sandbox/runtime';
import { STOP_AGENT_SCRIPT } from '../../src/core/sandbox/stopAgent';
import { packTar } from '../../src/core/sandbox/tar';
import { harborTask } from '../support/taskFolders';
import { tempDir } from '../support/tempDir';

/** An engine double: starts fail `failStarts` times; the verifier writes reward 1; exec calls are kept. */
class FakeRuntime implements ContainerRuntime {
  readonly endpoint = 'fake://';
  starts = 0;
  readonly removed: string[] = [];
  readonly execs: ExecRequest[] = [];
  private readonly verified = new Set<string>();
  constructor(private failStarts = 0, readonly containers: ContainerSummary[] = []) {}
  ping(): Promise<void> { return Promise.resolve(); }
  imageExists(): Promise<boolean> { return Promise.resolve(true); }
  buildImage(_spec: BuildSpec): Promise<void> { return Promise.resolve(); }
  start(_spec: ContainerSpec): Promise<string> {
    this.starts++;
    if (this.failStarts-- > 0) return Promise.reject(new InfraError('container-start', 'engine hiccup'));
    return Promise.resolve(`c${this.starts}`);
  }
  exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
    this.execs.push(req);
    if (req.cmd.includes('/tests/test.sh')) this.verified.add(id);
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 });
  }
  putArchive(): Promise<void> { return Promise.resolve(); }
  getArchive(id: string, p: string): Promise<Readable | undefined> {
    if (p !== '/logs/verifier' || !this.verified.has(id)) return Promise.resolve(undefined);
    return Promise.resolve(Readable.from([packTar([{ name: 'verifier', mode: 0o755, type: 'dir' }, { name: 'verifier/reward.txt', mode: 0o644, type: 'file', data: Buffer.from('1') }])]));
  }
  remove(id: string): Promise<void> { this.removed.push(id); return Promise.resolve(); }
  listByLabel(): Promise<ContainerSummary[]> { return Promise.resolve(this.containers); }
  inspect(): Promise<ContainerState | undefined> { return Promise.resolve({ running: true, oomKilled: false, exitCode: null }); }
}

/** An agent that works until it is stopped (its phase always ends on the task's agent timeout). */
class EndlessAgent implements Agent {
  readonly spec = 'endless';
  run(_s: TrialSession, signal: AbortSignal): Promise<AgentResult> {
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'completed' }), { once: true }));
  }
}

let tmp: string;
before(() => {
  tmp = tempDir('tw-resume-');
  process.env.TASKWRIGHT_LEASE_DIR = path.join(tmp, 'leases');
});

after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function rec(task: string, attempt: number, outcome: TrialRecord['outcome'], extra: Partial<TrialRecord> = {}): TrialRecord {
  return {
    trial: `${String(attempt).padStart(3, '0')}-${task.replace(/\W+/g, '-')}-nop-a${attempt}`, task, agent: 'nop', attempt, outcome,
    reward: outcome === 'passed' ? 1 : null, startedAt: 'now', durations: { build: 0, agent: 0, verifier: 0 }, logs: 'trials/x', ...extra,
  };
}

function runFolder(params: Partial<RunParameters> = {}): RunStore {
  return RunStore.create(path.join(tmp, 'runs'), {
    id: newRunId('nop'), kind: 'run', agent: 'nop', tasks: ['t/a', 't/b'], attempts: 2, concurrency: 1, retries: 1,
    startedAt: 'then', pid: 999_999, ...params,
  });
}

const deadOwner = (self = process.pid): OwnerDeps => ({ alive: () => false, lease: () => 'fresh', owner: () => ({ pid: 4242, host: os.hostname() }), host: os.hostname(), self });

void describe('resume: who owns a run', () => {
  const params = { id: 'r', kind: 'run', tasks: [], concurrency: 1, retries: 0, startedAt: '', pid: 77 } as RunParameters;
  const deps = (o: Partial<OwnerDeps>): OwnerDeps => ({ alive: () => false, lease: () => 'absent', owner: () => undefined, host: 'h', self: 1, ...o });
  void it('a fresh lease of a live process is a live run; of a dead process on this host, a killed one', () => {
    assert.match(runOwnerLive(params, deps({ lease: () => 'fresh', owner: () => ({ pid: 5, host: 'h' }), alive: () => true })) ?? '', /pid 5/);
    assert.equal(runOwnerLive(params, deps({ lease: () => 'fresh', owner: () => ({ pid: 5, host: 'h' }), alive: () => false })), undefined);
    assert.match(runOwnerLive(params, deps({ lease: () => 'fresh', owner: () => ({ pid: 5, host: 'other' }), alive: () => false })) ?? '', /on other/);
  });
  void it('a stale lease is a dead run; without a lease an unfinished run with a live pid is taken for live', () => {
    assert.equal(runOwnerLive(params, deps({ lease: () => 'stale', alive: () => true })), undefined);
    assert.match(runOwnerLive(params, deps({ alive: (p) => p === 77 })) ?? '', /pid 77/);
    assert.equal(runOwnerLive({ ...params, finishedAt: 'x' }, deps({ alive: () => true })), undefined);
    assert.match(runOwnerLive({ ...params, resumes: [{ startedAt: '', pid: 88, remaining: 1 }] }, deps({ alive: (p) => p === 88 })) ?? '', /pid 88/);
  });
});

void describe('resume: taking over a killed run', () => {
  void it('removes its containers, cuts a torn line, records verdicts left in trial folders once, and plans the rest', async () => {
    const store = runFolder();
    store.append(rec('t/a', 1, 'passed'));
    store.append(rec('t/b', 1, 'infra-error', { infra: { kind: 'engine-unreachable', message: 'x' } }));
    // Killed mid-append: a torn line; and a verdict whose line never made it.
    fs.appendFileSync(path.join(store.dir, 'trials.jsonl'), '{"trial":"004-t-b-nop-a2","ta');
    const orphan = rec('t/a', 2, 'failed', { trial: '003-t-a-nop-a2' });
    fs.mkdirSync(path.join(store.dir, 'trials', orphan.trial), { recursive: true });
    writeRecordFile(path.join(store.dir, 'trials', orphan.trial), orphan);
    fs.mkdirSync(path.join(store.dir, 'trials', '004-t-b-nop-a2'), { recursive: true });
    const rt = new FakeRuntime(0, [
      { id: 'mine', labels: { [LABEL]: '1', [LABEL_RUN]: store.id }, state: 'running' },
      { id: 'theirs', labels: { [LABEL]: '1', [LABEL_RUN]: 'another-run' }, state: 'running' },
    ]);
    const s = await openForResume(rt, store.dir, deadOwner());
    try {
      assert.deepEqual(rt.removed, ['mine']);
      assert.equal(s.removedContainers, 1);
      assert.ok(s.repairedBytes > 0);
      assert.equal(s.recovered, 1);
      assert.deepEqual(s.plan.remaining.map((r) => [r.task, r.attempt, r.reason, r.nextTry]), [['t/b', 1, 'infra-error', 2], ['t/b', 2, 'missing', 1]]);
      // A second resumer is refused while this one holds the run.
      await assert.rejects(openForResume(rt, store.dir, { ...deadOwner(1), alive: () => true }), (e: unknown) => e instanceof ResumeError && /still running/.test(e.message));
    } finally {
      s.release();
    }
    const run = readRun(store.dir);
    assert.equal(run.skipped, 0, 'no torn line is left');
    assert.deepEqual(run.trials.map((t) => t.trial).sort(), ['001-t-a-nop-a1', '001-t-b-nop-a1', '003-t-a-nop-a2']);
    assert.ok(fs.existsSync(path.join(store.dir, 'trials', orphan.trial, RECORD_FILE)));
    // Reopened again, nothing is recovered twice.
    const again = await openForResume(rt, store.dir, deadOwner());
    again.release();
    assert.equal(again.recovered, 0);
  });

  void it('takes over the lock a killed resumer left, and refuses one whose holder lives', async () => {
    const store = runFolder();
    fs.writeFileSync(path.join(store.dir, 'resume.lock'), '999999\n');
    const s = await openForResume(new FakeRuntime(), store.dir, { ...deadOwner(), alive: (pid) => pid !== 999_999 && pid !== 4242 });
    s.release();
    assert.equal(fs.existsSync(path.join(store.dir, 'resume.lock')), false, 'released');
    fs.writeFileSync(path.join(store.dir, 'resume.lock'), '31337\n');
    await assert.rejects(openForResume(new FakeRuntime(), store.dir, { ...deadOwner(), alive: (pid) => pid === 31337 }), /being resumed by pid 31337/);
  });

  void it('refuses a validate run, and a run whose owner lives', async () => {
    const v = runFolder({ kind: 'validate' });
    await assert.rejects(openForResume(new FakeRuntime(), v.dir, deadOwner()), /is a validation/);
    const live = runFolder();
    await assert.rejects(openForResume(new FakeRuntime(), live.dir, { ...deadOwner(1), alive: () => true }), /still running/);
  });

  void it('a resumed runner numbers its trials after the folder\'s and continues an attempt\'s tries', async () => {
    const store = runFolder({ retries: 1 });
    fs.mkdirSync(path.join(store.dir, 'trials', '007-harbor-valid-nop-a1-t2'), { recursive: true });
    const task = await loadTask(path.resolve(__dirname, '../../../test/fixtures/sandbox/harbor-valid'));
    const rs = await new TrialRunner({ runtime: new FakeRuntime(5) }, store).runJob(
      { task, taskPath: 'harbor-valid', agent: new NopAgent(), attempt: 1, firstTry: 3 }, { concurrency: 1, retries: 1, retryBaseMs: 1 },
    );
    assert.deepEqual(rs.map((r) => [r.record.trial, r.record.try]), [['008-harbor-valid-nop-a1-t3', 3], ['008-harbor-valid-nop-a1-t4', 4]]);
  });
});

void describe('timeout policy in a trial (engine double)', () => {
  async function timedOut(policy: TimeoutPolicy) {
    const dir = harborTask(fs.mkdtempSync(path.join(tmp, 'task-')), {
      'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 60\n\n[agent]\ntimeout_sec = 1\n\n[environment]\nbuild_timeout_sec = 120\n',
    });
    const store = runFolder({ retries: 0 });
    const rt = new FakeRuntime();
    const [r] = await new TrialRunner({ runtime: rt }, store).runJob({ task: await loadTask(dir), taskPath: 'late', agent: new EndlessAgent(), attempt: 1 }, { concurrency: 1, retries: 0, timeoutPolicy: policy });
    return { record: r!.record, rt, ledger: readRun(store.dir).trials };
  }

  void it('fail (the default): the attempt is an agent timeout and the verifier never runs', async () => {
    const { record, rt, ledger } = await timedOut('fail');
    assert.deepEqual([record.outcome, record.reward, record.timeoutPolicy, record.agentTimedOut], ['agent-timeout', null, 'fail', true]);
    assert.ok(!rt.execs.some((e) => e.cmd.includes('/tests/test.sh')));
    assert.equal(ledger[0]!.timeoutPolicy, 'fail');
  });

  void it('verifier: the agent\'s commands are stopped as root, then the verifier\'s verdict stands and is recorded with the policy', async () => {
    const { record, rt, ledger } = await timedOut('verifier');
    assert.deepEqual([record.outcome, record.reward, record.timeoutPolicy, record.agentTimedOut], ['passed', 1, 'verifier', true]);
    const stops = rt.execs.filter((e) => e.cmd[2] === STOP_AGENT_SCRIPT);
    assert.ok(stops.length >= 1 && stops.every((e) => e.user === '0'));
    const iStop = rt.execs.findIndex((e) => e.cmd[2] === STOP_AGENT_SCRIPT);
    const iVerify = rt.execs.findIndex((e) => e.cmd.includes('/tests/test.sh'));
    assert.ok(iStop >= 0 && iStop < iVerify, 'stopped before the verifier runs');
    assert.deepEqual([ledger[0]!.outcome, ledger[0]!.agentTimedOut, ledger[0]!.timeoutPolicy], ['passed', true, 'verifier']);
  });
});

function captureIo(cwd: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {}, signal: new AbortController().signal }, out, err };
}

void describe('cli: run --resume, --timeout-policy, --max-infra-rate (no engine needed)', () => {
  void it('refuses flags that differ from the run\'s run.json, naming each with both values', async () => {
    const store = runFolder({ agent: 'oracle', attempts: 2, timeoutPolicy: 'fail' });
    const { io, err } = captureIo(tmp);
    const code = await main(['run', '--resume', store.dir, '--agent', 'nop', '--attempts', '3', '--timeout-policy', 'verifier', '--concurrency', '4'], io);
    assert.equal(code, 2);
    const msg = err.join('\n').split('\n')[0]!;
    assert.match(msg, /--agent nop \(the run has oracle\)/);
    assert.match(msg, /--attempts 3 \(the run has 2\)/);
    assert.match(msg, /--timeout-policy verifier \(the run has fail\)/);
    assert.doesNotMatch(msg, /--concurrency/, 'concurrency may differ');
  });

  void it('finds a run by id under --results; a validate run, a missing run and a run whose task is gone get one clear line (exit 2)', async () => {
    const v = runFolder({ kind: 'validate' });
    let c = captureIo(tmp);
    assert.equal(await main(['run', '--resume', path.basename(v.dir), '--results', path.join(tmp, 'runs')], c.io), 2);
    assert.match(c.err.join('\n'), /is a validation \(`taskwright validate`\): resume it with `taskwright validate --resume /);
    c = captureIo(tmp);
    assert.equal(await main(['run', '--resume', 'no-such-run', '--results', path.join(tmp, 'runs')], c.io), 2);
    assert.match(c.err.join('\n'), /--resume no-such-run: no run\.json there/);
    const gone = runFolder({ tasks: ['vanished/task'], cwd: tmp });
    c = captureIo(tmp);
    assert.equal(await main(['run', '--resume', gone.dir, '--agent', 'nop'], c.io), 2, 'the same agent is no conflict');
    assert.match(c.err.join('\n'), /task vanished\/task of run .* is gone/);
  });

  void it('checks the new options\' values', async () => {
    for (const [args, re] of [
      [['--timeout-policy', 'lenient'], /--timeout-policy takes one of fail\|verifier/],
      [['--max-infra-rate', '5%'], /--max-infra-rate takes a share from 0 to 1/],
      [['--max-infra-rate', '1.5'], /--max-infra-rate takes a share from 0 to 1/],
    ] as const) {
      const c = captureIo(tmp);
      assert.equal(await main(['run', 'x', '--agent', 'nop', ...args], c.io), 2);
      assert.match(c.err.join('\n'), re);
    }
    const c = captureIo(tmp);
    assert.equal(await main(['validate', 'x', '--max-infra-rate', '2'], c.io), 2);
    assert.match(c.err.join('\n'), /--max-infra-rate takes a share/);
  });
});
