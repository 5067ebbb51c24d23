import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { jobState } from '../../src/core/results/attempts';
import { infraRate, jobKey } from '../../src/core/results/infraRate';
import { newRunId, readRun, RunStore, type RunParameters } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { loadTask } from '../../src/core/loader/index';
import { openForResume, openLedger, type OwnerDeps } from '../../src/core/sandbox/resume';
import type { BuildSpec, ContainerRuntime, ContainerState, ContainerSummary, ExecOutcome, ExecRequest } from '../../src/core/sandbox/runtime';
import { packTar } from '../../src/core/sandbox/tar';
import { readFirstRun, readSolved, ValidationLedger, writeFirstRun, writeSolved } from '../../src/core/validate/ledger';
import { checksWithoutVerdict, openValidationResume, resumedOptions, validateSettings } from '../../src/core/validate/resume';
import { validateTasks } from '../../src/core/validate/validate';
import { harborTask } from '../support/taskFolders';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { tempDir } from '../support/tempDir';

/**
 * The ledger logic of `validate --resume`: which check a record is, when a check is done, what a
 * resumed validation keeps and what it runs again (against an engine double without snapshots:
 * nop, oracle and probes), and the take-over shared with `run --resume`.
 */
let tmp: string;
before(() => {
  tmp = tempDir('tw-vresume-');
  process.env.TASKWRIGHT_LEASE_DIR = path.join(tmp, 'leases');
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function rec(task: string, check: string, attempt: number, outcome: TrialRecord['outcome'], extra: Partial<TrialRecord> = {}): TrialRecord {
  const t = extra.try ?? 1;
  return {
    trial: `00${attempt}-x-${check}-a${attempt}${t > 1 ? `-t${t}` : ''}`, task, agent: check.startsWith('probe') ? `probe:${check.slice(6)}` : check, check, attempt, try: t, outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: 'then', durations: { build: 0, agent: 0, verifier: 0 }, logs: 'trials/x', ...extra,
  };
}

/** Every container's verifier writes reward 1 (so nop "passes": the point here is what runs, not the verdict). */
class Engine implements ContainerRuntime {
  readonly endpoint = 'fake://';
  readonly started: string[] = [];
  private readonly verified = new Set<string>();
  ping(): Promise<void> { return Promise.resolve(); }
  imageExists(): Promise<boolean> { return Promise.resolve(true); }
  buildImage(_spec: BuildSpec): Promise<void> { return Promise.resolve(); }
  start(spec: { labels?: Readonly<Record<string, string>> }): Promise<string> {
    const id = `c${this.started.length + 1}`;
    this.started.push(spec.labels?.['taskwright.trial'] ?? id);
    return Promise.resolve(id);
  }
  exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
    if (req.cmd.includes('/tests/test.sh')) this.verified.add(id);
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 });
  }
  putArchive(): Promise<void> { return Promise.resolve(); }
  getArchive(id: string, p: string): Promise<Readable | undefined> {
    if (p !== '/logs/verifier' || !this.verified.has(id)) return Promise.resolve(undefined);
    return Promise.resolve(Readable.from([packTar([{ name: 'verifier', mode: 0o755, type: 'dir' }, { name: 'verifier/reward.txt', mode: 0o644, type: 'file', data: Buffer.from('1') }])]));
  }
  remove(): Promise<void> { return Promise.resolve(); }
  listByLabel(): Promise<ContainerSummary[]> { return Promise.resolve([]); }
  inspect(): Promise<ContainerState | undefined> { return Promise.resolve({ running: true, oomKilled: false, exitCode: null }); }
}

const deadOwner = (): OwnerDeps => ({ alive: () => false, lease: () => 'absent', owner: () => undefined, host: os.hostname(), self: process.pid });

function validation(params: Partial<RunParameters> = {}): RunStore {
  return RunStore.create(path.join(tmp, 'runs'), {
    id: newRunId('validate'), kind: 'validate', tasks: ['t/a'], attempts: 2, concurrency: 1, retries: 0, startedAt: 'then', pid: 999_999, cwd: tmp,
    validate: validateSettings({ probes: false, mutants: 0, behaviour: false }), ...params,
  });
}

void describe('validate resume: the ledger', () => {
  void it('a check is done once any try reached a verdict; else it runs again after its last try', () => {
    assert.equal(jobState([]).reason, 'missing');
    assert.equal(jobState([]).nextTry, 1);
    const infra = jobState([rec('t/a', 'nop', 1, 'infra-error'), rec('t/a', 'nop', 1, 'infra-error', { try: 2 })]);
    assert.deepEqual([infra.reached, infra.reason, infra.nextTry], [undefined, 'infra-error', 3]);
    assert.equal(jobState([rec('t/a', 'nop', 1, 'infra-error'), rec('t/a', 'nop', 1, 'cancelled', { try: 2 })]).reason, 'cancelled');
    const done = jobState([rec('t/a', 'nop', 1, 'failed', { try: 2 }), rec('t/a', 'nop', 1, 'infra-error')]);
    assert.equal(done.reached?.try, 2);
    assert.deepEqual(done.tries.map((r) => r.try), [1, 2], 'tries in order, whatever the ledger order');
    // A verdict that is a failure still counts: a resume never rerolls a check it did not like.
    assert.ok(jobState([rec('t/a', 'oracle', 1, 'verifier-error')]).reached);
  });

  void it('names a check by task path, check and attempt; records without a check are not checks', () => {
    const l = new ValidationLedger([
      rec('./t/a', 'nop', 1, 'passed'), rec('t/a', 'nop', 2, 'infra-error'), rec('t/b', 'nop', 1, 'passed'),
      { ...rec('t/a', 'oracle', 1, 'passed'), check: undefined },
    ]);
    assert.ok(l.state('t/a', 'nop', 1).reached, './t/a and t/a are one task');
    assert.equal(l.state('t/a', 'nop', 2).reason, 'infra-error');
    assert.equal(l.state('t/a', 'oracle', 1).reason, 'missing');
    assert.equal(l.state('t/a', 'mutant-1', 1).reason, 'missing');
    assert.equal(new ValidationLedger().empty, true);
  });

  void it('keeps the solved state and the first verifier run beside the trial, and reads back only well-formed ones', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'trial-'));
    assert.equal(readSolved(dir), undefined);
    const s = { image: 'sha256:abc', outputs: [{ path: '/app/out.txt', size: 3, sha256: 'f', text: 'hi\n', named: true }], locales: ['c.utf8'], pythonSite: '/usr/lib/python3/dist-packages' };
    writeSolved(dir, s);
    assert.deepEqual(readSolved(dir), s);
    writeSolved(dir, 'the solved state could not be snapshotted: boom');
    assert.equal(readSolved(dir), 'the solved state could not be snapshotted: boom');
    fs.writeFileSync(path.join(dir, 'solved.json'), '{"image":"x","outputs":[{"path":1}],"locales":[]}');
    assert.equal(readSolved(dir), undefined, 'a malformed file is no solved state');
    assert.equal(readFirstRun(dir), undefined);
    writeFirstRun(dir, { reward: 1, detail: 'reward 1' });
    assert.deepEqual(readFirstRun(dir), { reward: 1, detail: 'reward 1' });
  });

  void it('a resumed check\'s tries count as one job for the infra rate, though their trial folders differ', () => {
    const old = rec('t/a', 'probe-conftest', 1, 'infra-error', { trial: '004-a-probe-conftest-a1' });
    const resumed = rec('t/a', 'probe-conftest', 1, 'passed', { trial: '011-a-probe-conftest-a1-t2', try: 2 });
    assert.equal(jobKey(old), jobKey(resumed));
    assert.equal(infraRate([old, resumed], 0).infra, 0);
  });

  void it('counts the nop and oracle checks still without a verdict', () => {
    const p = { tasks: ['t/a', 't/b'], attempts: 2 } as unknown as RunParameters;
    assert.equal(checksWithoutVerdict(p, [rec('t/a', 'nop', 1, 'passed'), rec('t/b', 'oracle', 2, 'infra-error')]), 7);
  });
});

void describe('validate resume: taking over and running the rest', () => {
  void it('refuses a run of the other kind, and a validation that did not record its checks', async () => {
    const v = validation();
    await assert.rejects(openForResume(new Engine(), v.dir, deadOwner()), /is a validation \(`taskwright validate`\): resume it with `taskwright validate --resume/);
    const r = RunStore.create(path.join(tmp, 'runs'), { id: newRunId('nop'), kind: 'run', agent: 'nop', tasks: ['t/a'], attempts: 1, concurrency: 1, retries: 0, startedAt: 'then', pid: 999_999 });
    await assert.rejects(openLedger(new Engine(), r.dir, 'validate', deadOwner()), /is a rollout \(`taskwright run`\): resume it with `taskwright run --resume/);
    const old = validation({ validate: undefined });
    await assert.rejects(openLedger(new Engine(), old.dir, 'validate', deadOwner()), /does not record which checks/);
    for (const s of [v, r, old]) s.finish({});
  });

  void it('keeps the checks with a verdict, runs the missing and infra ones once with their tries numbered on, and rereads the options from run.json', async () => {
    const taskDir = harborTask(path.join(tmp, 'tasks', 'a'));
    const store = validation({ tasks: ['tasks/a'], retries: 1, validate: validateSettings({ probes: false, mutants: 0, behaviour: false, seed: 7 }) });
    store.append(rec('tasks/a', 'nop', 1, 'failed', { trial: '001-a-nop-a1' }));
    store.append(rec('tasks/a', 'oracle', 1, 'passed', { trial: '002-a-oracle-a1' }));
    store.append(rec('tasks/a', 'oracle', 2, 'infra-error', { trial: '003-a-oracle-a2', infra: { kind: 'engine-timeout', message: 'x' } }));
    fs.mkdirSync(path.join(store.dir, 'trials', '004-a-nop-a2'), { recursive: true });
    const engine = new Engine();
    const task = await loadTask(taskDir);
    const r = await openValidationResume(engine, store.dir, { tasks: new Map([['tasks/a', task]]), changed: [], changedDigests: {} }, deadOwner());
    let results;
    try {
      assert.equal(r.remaining, 2);
      assert.deepEqual(resumedOptions(r.session.params), { runs: 2, retries: 1, probes: false, mutants: 0, behaviour: false, seed: 7, maxInfraRate: 0.05 });
      const { maxInfraRate: _m, ...options } = r.options;
      results = await validateTasks(engine, r.session.store, r.targets, { ...options, concurrency: 1 });
    } finally {
      r.session.release();
    }
    assert.equal(engine.started.length, 2, `only nop #2 and oracle #2 ran (${engine.started.join(', ')})`);
    const ledger = readRun(store.dir).trials;
    const ran = ledger.slice(3);
    assert.deepEqual(ran.map((x) => [x.check, x.attempt, x.try]).sort(), [['nop', 2, 1], ['oracle', 2, 2]]);
    assert.ok(ran.every((x) => Number(x.trial.slice(0, 3)) > 4), 'trial folders numbered after the ones the run holds');
    // The analysis reads kept and new verdicts together: nop #1 kept as failed, nop #2 new (reward 1 here).
    const v = results[0];
    assert.deepEqual(v?.trials.filter((x) => x.check === 'nop').map((x) => x.outcome).sort(), ['failed', 'passed']);
    assert.deepEqual(v?.trials.filter((x) => x.check === 'oracle').map((x) => x.outcome), ['passed', 'infra-error', 'passed']);
    assert.equal(readRun(store.dir).params?.resumes?.[0]?.remaining, 2);
  });
});

void describe('cli: validate --resume (no engine needed)', () => {
  const io = (): { io: CliIo; err: string[] } => {
    const err: string[] = [];
    return { io: { out: () => undefined, err: (t) => err.push(t), cwd: tmp, env: {}, signal: new AbortController().signal }, err };
  };

  void it('refuses options that differ from the validation\'s run.json, and a run that is not a validation (exit 2)', async () => {
    const v = validation({ attempts: 2, validate: validateSettings({ probes: true, mutants: 3, behaviour: true, seed: 5 }) });
    let c = io();
    assert.equal(await main(['validate', '--resume', v.dir, '--runs', '3', '--no-probes', '--seed', '5', '--concurrency', '4'], c.io), 2);
    const msg = c.err.join('\n').split('\n')[0] ?? '';
    assert.match(msg, /--runs 3 \(the run has 2\)/);
    assert.match(msg, /--no-probes \(the run has no-probes false\)/);
    assert.doesNotMatch(msg, /--seed|--concurrency/, 'the same seed and another concurrency are no conflict');
    const r = RunStore.create(path.join(tmp, 'runs'), { id: newRunId('nop'), kind: 'run', agent: 'nop', tasks: ['t/a'], attempts: 1, concurrency: 1, retries: 0, startedAt: 'then', pid: 999_999 });
    c = io();
    assert.equal(await main(['validate', '--resume', path.basename(r.dir), '--results', path.join(tmp, 'runs')], c.io), 2);
    assert.match(c.err.join('\n'), /is a rollout \(`taskwright run`\): resume it with `taskwright run --resume/);
    for (const s of [v, r]) s.finish({});
  });
});

