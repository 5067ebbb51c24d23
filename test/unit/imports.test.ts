import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { tallyRecords } from '../../src/core/band/fromRecords';
import { bandReport } from '../../src/core/band/report';
import { detectResults, loadResults } from '../../src/core/band/sources';
import type { BandReport } from '../../src/core/band/types';
import { readHarborJob } from '../../src/core/imports/harbor';
import { classifyTb1, readTb1Run } from '../../src/core/imports/tb1';
import { RunStore } from '../../src/core/results/store';
import { tempDir } from '../support/tempDir';

const FIX = path.resolve(__dirname, '../../../test/fixtures/imports');
const HARBOR_JOB = path.join(FIX, 'harbor/jobs/2026-11-20__10-00-00');
const TB1_RUN = path.join(FIX, 'tb1/runs/2026-11-20__12-00-00');

function captureIo(cwd: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {}, signal: new AbortController().signal }, out, err };
}

void describe('imports: Harbor job folders', () => {
  void it('maps rewards and exception types to outcomes, model from agent_info.model_info', () => {
    const set = readHarborJob(HARBOR_JOB);
    assert.equal(set.finished, true);
    assert.equal(set.records.length, 8);
    const by = (trial: string) => set.records.find((r) => r.trial === trial)!;
    assert.equal(by('hello-world__Qm3xT7a').outcome, 'passed');
    assert.equal(by('fix-permissions__Bw6yF1e').outcome, 'failed');
    assert.equal(by('build-cython-ext__Kc2jU5f').outcome, 'agent-timeout');
    assert.equal(by('build-cython-ext__Tr7gE3h').outcome, 'verifier-error');
    const infra = by('regex-log__Lf9aN4j');
    assert.equal(infra.outcome, 'infra-error');
    assert.equal(infra.infra?.kind, 'container-start');
    assert.match(infra.infra!.message, /^EnvironmentStartTimeoutError/);
    for (const r of set.records) {
      assert.equal(r.model, 'claude-sonnet-4-5');
      assert.equal(r.agent, 'harbor:terminus-2');
    }
    assert.deepEqual(by('hello-world__Qm3xT7a').usage, { input: 15234, output: 842, cacheRead: 12000 });
    assert.equal(by('hello-world__Qm3xT7a').costUsd, 0.0581);
    assert.equal(by('hello-world__Qm3xT7a').durations.agent, 35);
    assert.deepEqual(set.records.filter((r) => r.taskId === 'hello-world').map((r) => r.attempt), [1, 2]);
  });

  void it('shows an exception type it does not know as possibly infra, never drops it, and names one model', () => {
    const job = tempDir('tw-harbor-unknown-');
    try {
      const src = path.join(HARBOR_JOB, 'regex-log__Lf9aN4j');
      const dst = path.join(job, 'regex-log__Nw1exc0');
      fs.mkdirSync(dst);
      const result = JSON.parse(fs.readFileSync(path.join(src, 'result.json'), 'utf8')) as Record<string, unknown>;
      result.trial_name = 'regex-log__Nw1exc0';
      result.exception_info = { exception_type: 'SandboxVendorQuotaError', exception_message: 'quota exceeded' };
      result.agent_info = { name: 'terminus-2', model_info: { name: 'anthropic/claude-sonnet-4-5' } };
      fs.writeFileSync(path.join(dst, 'result.json'), JSON.stringify(result));
      const [r] = readHarborJob(job).records;
      assert.equal(r!.outcome, 'infra-error');
      assert.equal(r!.infra?.kind, 'possibly-infra');
      assert.match(r!.infra!.message, /^unknown exception type SandboxVendorQuotaError: quota exceeded/);
      assert.equal(r!.model, 'claude-sonnet-4-5', 'the same model name a TB1 run of this model gets');
      const row = bandReport(tallyRecords([readHarborJob(job)]), { k: 2 }).models[0]!.tasks[0]!;
      assert.equal(row.possiblyInfra, 1);
    } finally {
      fs.rmSync(job, { recursive: true, force: true });
    }
  });

  void it('gives per-task bands and keeps the infra error out of the denominator', () => {
    const report = bandReport(tallyRecords([readHarborJob(HARBOR_JOB)]), { k: 2 });
    const m = report.models[0]!;
    const rows = Object.fromEntries(m.tasks.map((t) => [t.id, `${t.band} ${t.successes}/${t.attempts} infra ${t.infraErrors}`]));
    assert.deepEqual(rows, {
      'build-cython-ext': 'too-hard 0/2 infra 0',
      'fix-permissions': 'in-band 1/2 infra 0',
      'hello-world': 'too-easy 2/2 infra 0',
      'regex-log': 'insufficient 1/1 infra 1',
    });
    assert.equal(m.infraErrors, 1);
    assert.ok(Math.abs(m.meanPassAtK! - 2 / 3) < 1e-12);
  });

  void it('treats trial folders without a result as pending while the job runs', () => {
    const tmp = tempDir('tw-harbor-');
    const job = path.join(tmp, 'job');
    fs.cpSync(HARBOR_JOB, job, { recursive: true });
    fs.rmSync(path.join(job, 'result.json'));
    fs.rmSync(path.join(job, 'fix-permissions__Bw6yF1e', 'result.json'));
    const set = readHarborJob(job);
    assert.equal(set.finished, false);
    const row = bandReport(tallyRecords([set])).models[0]!.tasks.find((t) => t.id === 'fix-permissions')!;
    assert.equal(row.pending, true);
    assert.equal(row.passAtK, null);
    assert.equal(row.band, 'insufficient');
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

void describe('imports: Terminal-Bench 1 runs', () => {
  void it('maps is_resolved and failure_mode; unknown_agent_error is possibly-infra, never a failure', () => {
    const set = readTb1Run(TB1_RUN);
    assert.equal(set.finished, true);
    assert.equal(set.expectedAttempts, 2);
    assert.equal(set.records.length, 8);
    const r = set.records.find((x) => x.trial === 'count-dataset.2-of-2.2026-11-20__12-00-00')!;
    assert.equal(r.outcome, 'infra-error');
    assert.equal(r.infra?.kind, 'possibly-infra');
    assert.equal(r.attempt, 2);
    assert.equal(set.records.find((x) => x.trial === 'crack-7z.1-of-2.2026-11-20__12-00-00')!.outcome, 'agent-timeout');
    assert.equal(set.records[0]!.model, 'claude-3-7-sonnet-latest', 'the provider route is dropped, as for Harbor');
    assert.equal(set.records[0]!.agent, 'tb1:terminus');
    assert.equal(classifyTb1(null, 'test_timeout').outcome, 'verifier-timeout');
    assert.equal(classifyTb1(null, 'parse_error').outcome, 'infra-error');
    assert.equal(classifyTb1(null, 'parse_error').infraKind, 'possibly-infra');
    // parse_error is what TB1 reports when the pane capture after tests that passed came back empty.
    assert.deepEqual(classifyTb1(true, 'parse_error'), { outcome: 'infra-error', infraKind: 'possibly-infra' });
    assert.equal(classifyTb1(false, 'context_length_exceeded').outcome, 'failed');
    assert.equal(classifyTb1(null, 'unset').outcome, 'infra-error');
  });

  void it('bands the run with possibly-infra shown apart', () => {
    const m = bandReport(tallyRecords([readTb1Run(TB1_RUN)]), { k: 2 }).models[0]!;
    const rows = Object.fromEntries(m.tasks.map((t) => [t.id, `${t.band} ${t.successes}/${t.attempts} ${t.possiblyInfra ?? 0}`]));
    assert.deepEqual(rows, {
      'count-dataset': 'insufficient 1/1 1',
      'crack-7z': 'too-hard 0/2 0',
      'csv-report': 'in-band 1/2 0',
      'hello-world': 'too-easy 2/2 0',
    });
  });
});

void describe('imports: one model whichever harness ran it', () => {
  void it('reads a Harbor job and a TB1 run of the same model as one model row', () => {
    const tmp = tempDir('tw-same-model-');
    try {
      // The TB1 run names the model by its LiteLLM route, as `tb run --model anthropic/…` records it.
      const run = path.join(tmp, 'run');
      fs.cpSync(TB1_RUN, run, { recursive: true });
      const metaFile = path.join(run, 'run_metadata.json');
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
      meta.model_name = 'anthropic/claude-sonnet-4-5';
      fs.writeFileSync(metaFile, JSON.stringify(meta));
      // The Harbor job's model_info names the bare id (the fixture's), its config the routed one.
      const harbor = readHarborJob(HARBOR_JOB);
      const tb1 = readTb1Run(run);
      assert.equal(tb1.records[0]!.model, harbor.records[0]!.model);
      const report = bandReport(tallyRecords([harbor, tb1]), { k: 2 });
      assert.deepEqual(report.models.map((m) => m.model), ['claude-sonnet-4-5']);
      const ids = report.models[0]!.tasks.map((t) => t.id);
      assert.ok(ids.includes('crack-7z') && ids.includes('fix-permissions'), ids.join(', '));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  void it('counts a TB1 parse_error after passing tests as possibly infra, not a failed attempt', () => {
    const tmp = tempDir('tw-tb1-parse-');
    try {
      const run = path.join(tmp, 'run');
      fs.cpSync(TB1_RUN, run, { recursive: true });
      const file = path.join(run, 'results.json');
      const all = JSON.parse(fs.readFileSync(file, 'utf8')) as { results: Record<string, unknown>[] };
      const r = all.results.find((x) => x.trial_name === 'csv-report.2-of-2.2026-11-20__12-00-00')!;
      assert.ok(r, 'fixture trial csv-report attempt 2');
      r.is_resolved = true;
      r.failure_mode = 'parse_error';
      fs.writeFileSync(file, JSON.stringify(all));
      const set = readTb1Run(run);
      const rec = set.records.find((x) => x.trial === 'csv-report.2-of-2.2026-11-20__12-00-00')!;
      assert.equal(rec.outcome, 'infra-error');
      assert.equal(rec.infra?.kind, 'possibly-infra');
      const row = bandReport(tallyRecords([set]), { k: 2 }).models[0]!.tasks.find((t) => t.id === 'csv-report')!;
      assert.equal(row.possiblyInfra, 1, 'shown apart');
      assert.equal(row.attempts, 1, 'not a failed attempt: it leaves the denominator');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

void describe('imports: detection and `taskwright band`', () => {
  void it('detects each kind of results path', () => {
    assert.equal(detectResults(HARBOR_JOB), 'harbor-job');
    assert.equal(detectResults(path.dirname(HARBOR_JOB)), 'harbor-jobs');
    assert.equal(detectResults(TB1_RUN), 'tb1-run');
    assert.equal(detectResults(path.dirname(TB1_RUN)), 'tb1-runs');
    assert.equal(detectResults(path.join(FIX, 'nope')), undefined);
  });

  void it('gives identical numbers for a Harbor job and a Taskwright run of the same trials', async () => {
    const tmp = tempDir('tw-band-');
    const results = path.join(tmp, '.taskwright', 'runs');
    const harbor = readHarborJob(HARBOR_JOB);
    const store = RunStore.create(results, {
      id: 'r1', kind: 'run', agent: 'anthropic:claude-sonnet-4-5', model: 'claude-sonnet-4-5', tasks: [], attempts: 2,
      concurrency: 1, retries: 0, startedAt: '2026-11-20T10:00:00Z', pid: 1,
    });
    for (const r of harbor.records) store.append({ ...r, agent: 'anthropic:claude-sonnet-4-5', task: `/ws/tasks/${r.taskId}` });
    store.finish({});
    // A torn last line (a killed writer) must be tolerated.
    fs.appendFileSync(path.join(store.dir, 'trials.jsonl'), '{"trial":"torn","ta');

    const a = captureIo(tmp);
    assert.equal(await main(['band', HARBOR_JOB, '--format', 'json'], a.io), 0);
    const b = captureIo(tmp);
    assert.equal(await main(['band', '--format', 'json'], b.io), 0);
    assert.match(b.err.join('\n'), /skipped 1 unreadable line/);
    const ja = JSON.parse(a.out.join('')) as BandReport;
    const jb = JSON.parse(b.out.join('')) as BandReport;
    const numbers = (j: BandReport) => j.models.map((m) => ({
      model: m.model, mean: m.meanPassAtK, interval: m.interval, counts: m.counts, infra: m.infraErrors,
      tasks: m.tasks.map((t) => [t.id, t.attempts, t.successes, t.infraErrors, t.passAt1, t.passAtK, t.band]),
    }));
    assert.deepEqual(numbers(jb), numbers(ja));
    assert.equal(ja.version, 1);
    assert.equal(ja.k, 2);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  void it('prints text and csv, honours --k, --band and --model, and rejects bad thresholds', async () => {
    const t = captureIo(FIX);
    assert.equal(await main(['band', HARBOR_JOB, TB1_RUN], t.io), 0);
    const text = t.out.join('\n');
    assert.match(text, /claude-sonnet-4-5 \(harbor:terminus-2\): mean pass@2 66\.7%/);
    assert.match(text, /^claude-3-7-sonnet-latest \(tb1:terminus\)/m);
    assert.match(text, /insufficient .* count-dataset .*1 possibly infra/);
    const k1 = captureIo(FIX);
    assert.equal(await main(['band', HARBOR_JOB, '--k', '1', '--format', 'json', '--model', 'claude-sonnet-4-5'], k1.io), 0);
    const j = JSON.parse(k1.out.join('')) as BandReport;
    assert.equal(j.models.length, 1);
    assert.equal(j.models[0]!.tasks.find((x) => x.id === 'regex-log')!.band, 'too-easy');
    const csv = captureIo(FIX);
    assert.equal(await main(['band', TB1_RUN, '--format', 'csv', '--band', '0,0.5'], csv.io), 0);
    assert.match(csv.out.join(''), /csv-report,csv-report,2,1,0,0,0\.5000,1\.0000,.*,too-easy,/);
    const bad = captureIo(FIX);
    assert.equal(await main(['band', TB1_RUN, '--band', '0.9,0.1'], bad.io), 2);
  });

  void it('marks tasks broken from a validate run among the inputs', () => {
    const tmp = tempDir('tw-broken-');
    const v = RunStore.create(tmp, { id: 'v1', kind: 'validate', tasks: [], concurrency: 1, retries: 0, startedAt: '2026-01-01T00:00:00Z', pid: 1 });
    const base = { startedAt: '', durations: { build: 1, agent: 1, verifier: 1 }, logs: '', attempt: 1 };
    v.append({ ...base, trial: 'o1', task: 'tasks/hello-world', taskId: 'hello-world', agent: 'oracle', outcome: 'passed', reward: 1 });
    v.append({ ...base, trial: 'n1', task: 'tasks/hello-world', taskId: 'hello-world', agent: 'nop', outcome: 'passed', reward: 1 });
    v.append({ ...base, trial: 'o2', task: 'tasks/fix-permissions', taskId: 'fix-permissions', agent: 'oracle', outcome: 'passed', reward: 1 });
    v.finish({});
    const loaded = loadResults([HARBOR_JOB, path.join(tmp, 'v1')]);
    assert.equal(loaded.sets.length, 1, 'validate runs are not rollouts');
    const rows = bandReport(tallyRecords(loaded.sets), { broken: loaded.broken }).models[0]!.tasks;
    const hello = rows.find((r) => r.id === 'hello-world')!;
    assert.equal(hello.band, 'broken');
    assert.equal(hello.brokenReason, 'nop passes');
    assert.equal(rows.find((r) => r.id === 'fix-permissions')!.band, 'in-band');
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});
