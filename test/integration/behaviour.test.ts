import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { LABEL, LABEL_RUN } from '../../src/core/sandbox/runtime';
import type { TaskValidation } from '../../src/core/validate/types';
import { validateTasks, type ValidateOptions } from '../../src/core/validate/validate';

/**
 * The behavioural verifier audit against the real engine, one purpose-built fixture per defect
 * (test/fixtures/behaviour). Each validation turns off the checks its fixtures are not about, to
 * keep the file's time reasonable on a shared machine; one test runs the full default on a clean
 * task. Every test ends with no container and no snapshot image of its run left.
 */
const root = path.resolve(__dirname, '../../..');
const fixtures = path.join(root, 'test/fixtures/behaviour');
const runtime = new DockerodeRuntime();
const docker = new Docker();
let results: string;

function store(kind: string): RunStore {
  return RunStore.create(results, { id: newRunId(kind), kind: 'validate', tasks: [], concurrency: 2, retries: 1, startedAt: new Date().toISOString(), pid: process.pid });
}

async function validate(kind: string, names: readonly string[], opts: Partial<ValidateOptions>): Promise<{ vs: TaskValidation[]; s: RunStore }> {
  const s = store(kind);
  const targets = await Promise.all(names.map(async (n) => ({ task: await loadTask(path.join(fixtures, n)), path: n })));
  const vs = await validateTasks(runtime, s, targets, { runs: 1, concurrency: 2, retries: 1, retryBaseMs: 200, ...opts });
  await assertNothingLeft(s.id);
  return { vs, s };
}

async function assertNothingLeft(runId: string): Promise<void> {
  const containers = (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_RUN] === runId);
  assert.deepEqual(containers.map((c) => c.id), [], 'containers of this run are left');
  const images = await docker.listImages({ filters: { label: [`${LABEL_RUN}=${runId}`] } });
  assert.deepEqual(images.map((i) => i.Id), [], 'snapshot images of this run are left');
}

const byId = (vs: readonly TaskValidation[], id: string): TaskValidation => {
  const v = vs.find((x) => x.id === id);
  assert.ok(v, `no validation for ${id}`);
  return v;
};
const check = (v: TaskValidation, name: string) => v.checks.find((c) => c.name === name);
const rules = (v: TaskValidation): string[] => v.findings.map((f) => f.rule).sort();
const leaked = (v: TaskValidation): string[] => (v.probes ?? []).filter((p) => (p.reward ?? 0) > 0).map((p) => p.name).sort();

before(async () => {
  results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-behaviour-'));
  await runtime.ping();
});

after(() => {
  fs.rmSync(results, { recursive: true, force: true });
});

void describe('behavioural verifier audit (integration)', () => {
  void it('tells a strict verifier from one that checks existence or one field of three, by output mutants (integration)', async () => {
    const { vs } = await validate('mutants', ['exists-only', 'one-field', 'strict'], { probes: false, behaviour: false, mutants: 3 });
    const exists = byId(vs, 'exists-only');
    assert.equal(exists.verdict, 'misaligned');
    assert.deepEqual({ total: exists.mutants?.total, killed: exists.mutants?.killed }, { total: 3, killed: 0 });
    assert.deepEqual(exists.mutants?.survivors.map((s) => s.change), ['changed 5 to 6 on line 1', 'emptied the file', 'duplicated line 1 ("5")']);
    const f = exists.findings.find((x) => x.rule === 'surviving-mutant');
    assert.equal(f?.file, 'tests/test_outputs.py');
    assert.equal(f?.range?.start.line, 3, 'the finding sits on the test function that reads the output');
    assert.match(f?.message ?? '', /with \/app\/count\.txt changed \(changed 5 to 6 on line 1; emptied the file; duplicated line 1 \("5"\)\) it still gave reward \(passed: test_count_written\)/);

    const one = byId(vs, 'one-field');
    assert.equal(one.verdict, 'misaligned');
    assert.deepEqual(one.mutants?.survivors.map((s) => s.change), ['changed `region` from "north" to "htron"', 'changed `total` from 60 to 61']);
    assert.equal(one.mutants?.killed, 1);
    assert.deepEqual(rules(one), ['surviving-mutant']);

    const strict = byId(vs, 'strict');
    assert.equal(strict.verdict, 'valid', JSON.stringify(strict.checks));
    assert.deepEqual({ total: strict.mutants?.total, killed: strict.mutants?.killed }, { total: 3, killed: 3 });
    assert.equal(check(strict, 'mutants')?.status, 'pass');
    assert.deepEqual(strict.findings, []);
  });

  void it('names the hole: a literal answer, a pytest.py in the working directory, a curl on PATH, a plant in /tests (integration)', async () => {
    const { vs, s } = await validate('cheats', ['literal-constant', 'pytest-shadow', 'trusts-curl', 'tests-plant'], { mutants: 0, behaviour: false });
    const lit = byId(vs, 'literal-constant');
    assert.deepEqual(leaked(lit), ['literal-answer']);
    assert.deepEqual(rules(lit), ['reward-not-isolated']);
    assert.match(lit.findings[0]?.message ?? '', /probe 'literal-answer'.*derive it from the task's input/);

    const shadow = byId(vs, 'pytest-shadow');
    assert.deepEqual(leaked(shadow), ['path-trojan', 'pytest-shadow', 'python-startup']);
    const shadowFinding = shadow.findings.find((x) => x.message.includes("probe 'pytest-shadow'"));
    assert.match(shadowFinding?.message ?? '', /python3 -I -m pytest/);

    const curl = byId(vs, 'trusts-curl');
    assert.deepEqual(leaked(curl), ['path-trojan']);
    assert.match(curl.findings.find((x) => x.rule === 'reward-not-isolated')?.message ?? '', /absolute path/);

    // /tests planted during the agent phase: a finding exactly when the harness left the plant there
    // (the verifier lists the folder), so the probe is truthful before and after the runner clears /tests.
    const plant = byId(vs, 'tests-plant');
    const trial = readRun(s.dir).trials.find((t) => t.taskId === 'tests-plant' && t.trial.includes('probe-tests-dir'));
    assert.ok(trial, 'the tests-dir probe ran');
    const listing = fs.readFileSync(path.join(s.dir, trial.logs, 'verifier.stdout'), 'utf8');
    const survived = /tests folder: .*conftest\.py/.test(listing);
    assert.deepEqual(leaked(plant), survived ? ['tests-dir'] : [], listing);
    assert.equal(plant.verdict, survived ? 'misaligned' : 'valid');
    if (survived) assert.match(plant.findings[0]?.message ?? '', /probe 'tests-dir'.*clear \/tests/);
  });

  void it('finds verdicts that move with TZ, the locale, the terminal width, or a second run (integration)', async () => {
    const { vs } = await validate('env', ['tz-dependent', 'locale-dependent', 'width-dependent', 'run-twice'], { probes: false, mutants: 0 });
    const tz = byId(vs, 'tz-dependent');
    assert.equal(tz.verdict, 'brittle');
    assert.equal(check(tz, 'environment')?.detail, 'the verdict changed with TZ far east of UTC (UTC+14)');
    assert.deepEqual(rules(tz), ['environment-dependent']);
    assert.equal(check(tz, 'test-order')?.status, 'pass');
    assert.equal(check(tz, 'stale-state')?.status, 'pass');

    const loc = byId(vs, 'locale-dependent');
    // The image says LANG=C.UTF-8 and the test counts characters: under LANG=C wc counts bytes.
    assert.equal(check(loc, 'environment')?.detail, 'the verdict changed with LANG=C');
    assert.match(loc.findings[0]?.message ?? '', /LC_ALL=C\.UTF-8/);

    const width = byId(vs, 'width-dependent');
    assert.equal(check(width, 'environment')?.detail, 'the verdict changed with a narrow terminal (COLUMNS=40); a wide terminal (COLUMNS=250)');

    const twice = byId(vs, 'run-twice');
    assert.equal(twice.verdict, 'brittle');
    assert.equal(check(twice, 'stale-state')?.status, 'fail');
    assert.equal(check(twice, 'environment')?.status, 'pass');
    assert.deepEqual(rules(twice), ['stale-state']);
  });

  void it('keeps a sound task clean under the full default validate (integration)', async () => {
    const { vs } = await validate('clean', ['strict'], {});
    const v = byId(vs, 'strict');
    assert.equal(v.verdict, 'valid', JSON.stringify(v.checks, null, 1));
    assert.deepEqual(v.findings, []);
    for (const name of ['mutants', 'environment', 'test-order', 'stale-state', 'reward-isolation']) assert.equal(check(v, name)?.status, 'pass', name);
    // The probes that can apply ran and earned nothing; the ones this verifier's pytest call closes
    // (--noconftest, -c, python -I) were skipped rather than run for show.
    const names = (v.probes ?? []).map((p) => p.name);
    assert.ok(names.includes('reward-file'), names.join(', '));
    for (const closed of ['conftest', 'pytest-ini', 'pytest-shadow', 'python-startup']) assert.ok(!names.includes(closed), `${closed} cannot apply here: ${names.join(', ')}`);
    for (const p of v.probes ?? []) assert.ok(p.reward !== 1, `${p.name} earned reward ${p.reward}`);
  });

  void it('leaves no container and no snapshot image when interrupted mid-way (integration)', async () => {
    const s = store('abort');
    const ctl = new AbortController();
    const task = await loadTask(path.join(fixtures, 'strict'));
    const vs = await validateTasks(runtime, s, [{ task, path: 'strict' }], {
      runs: 1, concurrency: 2, retries: 0, probes: false, signal: ctl.signal,
      // Abort as soon as the snapshot's checks start: their containers and the snapshot image exist then.
      onProgress: (m) => { if (/check:/.test(m)) ctl.abort(); },
    });
    assert.equal(vs.length, 1);
    assert.ok(readRun(s.dir).trials.some((t) => t.outcome === 'cancelled' || t.agent.startsWith('check:')), 'the run reached the snapshot checks');
    await assertNothingLeft(s.id);
  });
});
