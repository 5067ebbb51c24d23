import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { attemptReachedOutcome } from '../../src/core/results/attempts';
import { readRun, type RunParameters } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { readValidations } from '../../src/core/results/validations';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { LABEL, LABEL_PID, LABEL_RUN, LABEL_TRIAL } from '../../src/core/sandbox/runtime';
import { readSolved } from '../../src/core/validate/ledger';

/**
 * `validate --resume` against the real engine: the CLI validating two bundled example tasks (one
 * of each format) is killed with SIGKILL once the snapshot checks have begun and a trial is in
 * flight, then resumed. Every check ends in the ledger exactly once with a verdict, the verdicts
 * reached before the kill are kept (never redone), and nothing labelled `taskwright` is left.
 * Its own daemon (as resume.test.ts): another process's reaper on a shared engine could remove the
 * killed run's containers before the resume is shown to.
 */
const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'bin/taskwright.js');
const STATE = process.env.TASKWRIGHT_VRESUME_DOCKERD ?? '/tmp/tw-vresume-dockerd';
const TASKS = ['word-frequency', 'json-config-merge'];
let runtime: DockerodeRuntime;
let work: string;

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-vresume-integ-'));
  process.env.TASKWRIGHT_LEASE_DIR = path.join(work, 'leases');
  const out = execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second', '--copy-images'], {
    env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE }, encoding: 'utf8', timeout: 180_000,
  });
  const m = /DOCKER_HOST=(\S+)/.exec(out);
  assert.ok(m, out);
  process.env.DOCKER_HOST = m[1];
  runtime = new DockerodeRuntime();
  for (const t of TASKS) fs.cpSync(path.join(root, 'examples/tasks', t), path.join(work, 'tasks', t), { recursive: true });
});

after(() => {
  fs.rmSync(work, { recursive: true, force: true });
  try {
    process.kill(Number(fs.readFileSync(path.join(STATE, 'dockerd.pid'), 'utf8').trim()), 'SIGTERM');
  } catch { /* not running */ }
});

function cliRun(args: readonly string[], cwd: string): { child: ReturnType<typeof spawn>; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => { err += c.toString(); });
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => err };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const checkOf = (r: TrialRecord): string => `${r.task} ${r.check ?? '?'} #${r.attempt}`;
const SNAPSHOT_CHECK = /^(mutant|env|order|stale)-/;

void describe('validate --resume after kill -9 (integration)', () => {
  void it('resumes a killed validation: each check once with a verdict, verdicts before the kill kept, nothing left (integration)', async (t) => {
    const results = path.join(work, 'runs');
    const first = cliRun(['validate', ...TASKS.map((x) => `tasks/${x}`), '--runs', '2', '--mutants', '1', '--concurrency', '2', '--results', results], work);
    let runDir: string | undefined;
    const inFlight = async (dir: string): Promise<number> => {
      const recorded = new Set(readRun(dir).trials.map((r) => r.trial));
      return (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_PID] === String(first.child.pid) && !recorded.has(c.labels[LABEL_TRIAL] ?? '')).length;
    };
    // Killed once a snapshot check has a verdict (the solved state exists) and another trial runs.
    for (let i = 0; i < 3000; i++) {
      const m = /results in (\S+)/.exec(first.stderr());
      if (m) runDir = path.resolve(work, m[1] as string);
      if (runDir && readRun(runDir).trials.some((r) => SNAPSHOT_CHECK.test(r.check ?? '')) && (await inFlight(runDir)) >= 1) break;
      await sleep(100);
    }
    assert.ok(runDir, first.stderr());
    first.child.kill('SIGKILL');
    await first.exited;
    const runId = path.basename(runDir);
    const before = readRun(runDir).trials;
    const keptVerdicts = before.filter((r) => attemptReachedOutcome(r.outcome));
    assert.ok(keptVerdicts.some((r) => SNAPSHOT_CHECK.test(r.check ?? '')), 'killed after a snapshot check reached its verdict');
    assert.equal(readValidations(runDir), undefined, 'the killed validation wrote no verdicts');
    const left = (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_RUN] === runId).length;
    // As if the kill had landed mid-append.
    fs.appendFileSync(path.join(runDir, 'trials.jsonl'), '{"trial":"torn-by-kill","task":"tas');

    const started = Date.now();
    const second = cliRun(['validate', '--resume', runDir], root);
    const code = await second.exited;
    assert.ok(code === 0 || code === 1, `exit ${code}: ${second.stderr()}`);
    assert.match(second.stderr(), new RegExp(`resuming ${runId}: .*cut a torn last line`));
    // What the kill left is removed by the resume (a removal the killed run had already sent may
    // still land on its own, so the two counts can differ); none is left after it (below).
    const removed = Number(/removed (\d+) container\(s\) it left/.exec(second.stderr())?.[1] ?? 0);
    assert.ok(removed <= left, `removed ${removed} of the ${left} left`);
    t.diagnostic(`figures: killed with ${before.length} trial(s) recorded (${keptVerdicts.length} verdicts) and ${left} container(s) left; the resume removed ${removed}, ran ${readRun(runDir).trials.length - before.length} trial(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const run = readRun(runDir);
    assert.equal(run.skipped, 0, 'the torn line was cut');
    const byCheck = new Map<string, TrialRecord[]>();
    for (const r of run.trials) byCheck.set(checkOf(r), [...(byCheck.get(checkOf(r)) ?? []), r]);
    for (const [check, tries] of byCheck) {
      assert.equal(tries.filter((r) => attemptReachedOutcome(r.outcome)).length, 1, `${check}: exactly one verdict (${tries.map((r) => r.outcome).join(', ')})`);
    }
    for (const r of keptVerdicts) {
      const now = byCheck.get(checkOf(r)) ?? [];
      assert.deepEqual(now.filter((x) => attemptReachedOutcome(x.outcome)).map((x) => x.trial), [r.trial], `${checkOf(r)} kept, not redone`);
    }
    assert.equal(new Set(run.trials.map((r) => r.trial)).size, run.trials.length, 'no trial id reused');
    for (const task of TASKS) {
      const mine = [...byCheck.keys()].filter((k) => k.startsWith(`tasks/${task} `));
      for (const want of ['nop #1', 'nop #2', 'oracle #1', 'oracle #2', 'stale-twice #1', 'env-a #1', 'env-b #1']) {
        assert.ok(mine.includes(`tasks/${task} ${want}`), `${task}: ${want} ran (${mine.join('; ')})`);
      }
    }
    const validations = readValidations(runDir);
    assert.deepEqual(validations?.map((v) => v.path).sort(), TASKS.map((x) => `tasks/${x}`).sort());
    for (const v of validations ?? []) {
      for (const c of v.checks.filter((x) => ['nop', 'oracle', 'stale-state', 'environment'].includes(x.name))) {
        assert.ok(c.status === 'pass' || c.status === 'fail', `${v.id} ${c.name}: ${c.status} ${c.detail}`);
      }
    }
    const params = run.params as RunParameters;
    assert.ok(params.finishedAt);
    assert.equal(params.resumes?.length, 1);
    assert.deepEqual(await runtime.listByLabel(LABEL), [], 'no container labelled taskwright is left');
    const images = execFileSync('docker', ['images', '-q', '--filter', `label=${LABEL_RUN}=${runId}`], { encoding: 'utf8', env: process.env }).trim();
    assert.equal(images, '', 'the snapshot images are removed');
    // The resumed run used the snapshot the killed one left (recorded beside the first oracle trial).
    const firstOracle = run.trials.find((r) => r.check === 'oracle' && r.attempt === 1 && r.outcome === 'passed');
    assert.ok(firstOracle && typeof readSolved(path.join(runDir, firstOracle.logs)) === 'object');

    // A second resume has nothing left to run and changes no verdict.
    const third = cliRun(['validate', '--resume', runId, '--results', results], work);
    assert.ok([0, 1].includes((await third.exited) ?? -1), third.stderr());
    assert.equal(readRun(runDir).trials.length, run.trials.length, 'no check was run again (nor a snapshot taken: every snapshot check has its verdict)');
    assert.deepEqual(await runtime.listByLabel(LABEL), []);
  });
  void it('after Ctrl-C (its snapshots removed) the resume takes the solved snapshot again for the checks still to run (integration)', async (t) => {
    const results = path.join(work, 'runs-int');
    const first = cliRun(['validate', 'tasks/word-frequency', '--runs', '1', '--mutants', '2', '--no-probes', '--concurrency', '2', '--results', results], work);
    let runDir: string | undefined;
    for (let i = 0; i < 3000; i++) {
      const m = /results in (\S+)/.exec(first.stderr());
      if (m) runDir = path.resolve(work, m[1] as string);
      if (runDir && readRun(runDir).trials.some((r) => SNAPSHOT_CHECK.test(r.check ?? ''))) break;
      await sleep(100);
    }
    assert.ok(runDir, first.stderr());
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 130, first.stderr());
    assert.match(first.stderr(), /validate --resume/);
    const runId = path.basename(runDir);
    const before = readRun(runDir).trials;
    const open = new Set(before.filter((r) => SNAPSHOT_CHECK.test(r.check ?? '') && !attemptReachedOutcome(r.outcome)).map(checkOf));
    const images = (): string => execFileSync('docker', ['images', '-q', '--filter', `label=${LABEL_RUN}=${runId}`], { encoding: 'utf8', env: process.env }).trim();
    assert.equal(images(), '', 'Ctrl-C removed the snapshot images');

    const second = cliRun(['validate', '--resume', runId, '--results', results], work);
    assert.ok([0, 1].includes((await second.exited) ?? -1), second.stderr());
    const run = readRun(runDir);
    const byCheck = new Map<string, TrialRecord[]>();
    for (const r of run.trials) byCheck.set(checkOf(r), [...(byCheck.get(checkOf(r)) ?? []), r]);
    for (const [check, tries] of byCheck) {
      if (check.includes(' oracle-snapshot ')) continue;
      assert.equal(tries.filter((r) => attemptReachedOutcome(r.outcome)).length, 1, `${check}: exactly one verdict (${tries.map((r) => r.outcome).join(', ')})`);
    }
    for (const want of ['stale-twice #1', 'env-a #1', 'env-b #1']) assert.ok(byCheck.has(`tasks/word-frequency ${want}`), want);
    const retaken = run.trials.filter((r) => r.check === 'oracle-snapshot');
    const hadVerdict = new Set(before.filter((r) => attemptReachedOutcome(r.outcome)).map(checkOf));
    const ranAfter = [...byCheck.keys()].filter((k) => SNAPSHOT_CHECK.test(k.split(' ')[1] ?? '') && !hadVerdict.has(k));
    t.diagnostic(`figures: interrupted with ${before.length} trial(s) recorded (${open.size} snapshot check(s) cancelled); ${ranAfter.length} snapshot check(s) ran after the snapshot was taken again ${retaken.length} time(s); the resume ran ${run.trials.length - before.length} trial(s)`);
    // A snapshot check still to run needs the solved state again: one oracle trial retakes it; none when none was left.
    assert.deepEqual(retaken.map((r) => r.outcome), ranAfter.length ? ['passed'] : []);
    assert.equal(readValidations(runDir)?.length, 1);
    assert.deepEqual(await runtime.listByLabel(LABEL), [], 'no container labelled taskwright is left');
    assert.equal(images(), '', 'the retaken snapshot is removed');
  });
});
