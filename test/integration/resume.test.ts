import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore, type RunParameters } from '../../src/core/results/store';
import type { TimeoutPolicy } from '../../src/core/results/timeoutPolicy';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { TrialRunner } from '../../src/core/sandbox/runner';
import { LABEL, LABEL_PID, LABEL_RUN, LABEL_TRIAL } from '../../src/core/sandbox/runtime';
import { harborTask } from '../support/taskFolders';

/**
 * Run semantics against the real engine: a run killed with SIGKILL mid-way and resumed (each attempt
 * in the ledger exactly once, nothing left on the engine), the `verifier` timeout policy on a real
 * container, and `--max-infra-rate` deciding the exit status. The CLI is spawned by its real path.
 */
const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'bin/taskwright.js');
/**
 * Its own daemon (own socket and data root): the kill -9 test counts the containers a killed run
 * leaves, and on a shared engine another process's reaper (which cannot see this file's leases)
 * may remove them first. Stopped at the end.
 */
const STATE = process.env.TASKWRIGHT_RESUME_DOCKERD ?? '/tmp/tw-resume-dockerd';
let runtime: DockerodeRuntime;
let work: string;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-resume-integ-'));
  process.env.TASKWRIGHT_LEASE_DIR = path.join(work, 'leases');
  const out = execFileSync('bash', [path.join(root, 'scripts/docker-engine.sh'), '--second'], {
    env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE }, encoding: 'utf8', timeout: 120_000,
  });
  const m = /DOCKER_HOST=(\S+)/.exec(out);
  assert.ok(m, out);
  process.env.DOCKER_HOST = m[1];
  execFileSync('bash', [path.join(root, 'scripts/base-images.sh')], { env: process.env, stdio: 'ignore', timeout: 600_000 });
  runtime = new DockerodeRuntime();
  await runtime.ping();
});

after(() => {
  fs.rmSync(work, { recursive: true, force: true });
  try {
    process.kill(Number(fs.readFileSync(path.join(STATE, 'dockerd.pid'), 'utf8').trim()), 'SIGTERM');
  } catch { /* not running */ }
});

async function containersOf(label: string, value: string): Promise<string[]> {
  return (await runtime.listByLabel(LABEL)).filter((c) => c.labels[label] === value).map((c) => c.id);
}

function cliRun(args: readonly string[], cwd: string): { child: ReturnType<typeof spawn>; exited: Promise<number | null>; stderr: () => string; stdout: () => string } {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stderr?.on('data', (c: Buffer) => { err += c.toString(); });
  child.stdout?.on('data', (c: Buffer) => { out += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => err, stdout: () => out };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function ledgerLines(runDir: string): number {
  try {
    return fs.readFileSync(path.join(runDir, 'trials.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

void describe('run --resume after kill -9 (integration)', () => {
  void it('resumes a killed run: every attempt in the ledger exactly once, no verdict redone, no container left (integration)', async (t) => {
    const task = harborTask(path.join(work, 'tasks', 'steady'), { 'solution/solve.sh': '#!/bin/bash\nsleep 8\necho hello > /app/greeting.txt\n' });
    const results = path.join(work, 'runs');
    const attempts = 4;
    const first = cliRun(['run', path.relative(work, task), '--agent', 'oracle', '--attempts', String(attempts), '--concurrency', '1', '--results', results], work);
    // Kill it once at least one trial is recorded and a trial not yet recorded has its container
    // (not the recorded one's, which is removed right after its line is written).
    let runDir: string | undefined;
    const inFlight = async (dir: string): Promise<number> => {
      const recorded = new Set(readRun(dir).trials.map((t) => t.trial));
      return (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_PID] === String(first.child.pid) && !recorded.has(c.labels[LABEL_TRIAL] ?? '')).length;
    };
    for (let i = 0; i < 1800; i++) {
      const m = /results in (\S+)/.exec(first.stderr());
      if (m) runDir = path.resolve(work, m[1] as string);
      if (runDir && ledgerLines(runDir) >= 1 && (await inFlight(runDir)) === 1) break;
      await sleep(100);
    }
    assert.ok(runDir, first.stderr());
    const before = ledgerLines(runDir);
    assert.ok(before >= 1 && before < attempts, `killed mid-way: ${before} of ${attempts} recorded`);
    first.child.kill('SIGKILL');
    await first.exited;
    const runId = path.basename(runDir);
    assert.ok((await containersOf(LABEL_RUN, runId)).length >= 1, 'the killed run left its trial container');
    // As if the kill had landed mid-append: a torn last line.
    fs.appendFileSync(path.join(runDir, 'trials.jsonl'), '{"trial":"torn-by-kill","task":"tas');
    const kept = readRun(runDir).trials.map((t) => t.trial);

    // Resumed from another folder: run.json knows where the task paths are relative to.
    const resumeStarted = Date.now();
    const second = cliRun(['run', '--resume', runDir], root);
    assert.equal(await second.exited, 0, second.stderr());
    t.diagnostic(`figures: killed after ${kept.length} of ${attempts} attempt(s) recorded; the resume ran ${attempts - kept.length} in ${((Date.now() - resumeStarted) / 1000).toFixed(1)} s`);
    assert.match(second.stderr(), new RegExp(`resuming ${runId}: .*removed 1 container\\(s\\) it left`));
    assert.match(second.stderr(), /cut a torn last line/);
    assert.match(second.stderr(), new RegExp(`${kept.length} of ${attempts} attempt\\(s\\) already have an outcome and are kept; ${attempts - kept.length} to run`));

    const run = readRun(runDir);
    assert.equal(run.skipped, 0, 'the torn line was cut, nothing unreadable is left');
    const byAttempt = new Map<number, string[]>();
    for (const t of run.trials) byAttempt.set(t.attempt, [...(byAttempt.get(t.attempt) ?? []), t.outcome]);
    assert.deepEqual([...byAttempt.keys()].sort(), [1, 2, 3, 4]);
    for (const [a, outcomes] of byAttempt) assert.deepEqual(outcomes, ['passed'], `attempt ${a} exactly once`);
    assert.equal(new Set(run.trials.map((t) => t.trial)).size, run.trials.length, 'no trial id reused');
    for (const id of kept) assert.ok(run.trials.some((t) => t.trial === id), `the verdict of ${id} was kept, not redone`);
    assert.deepEqual(await containersOf(LABEL_RUN, runId), [], 'nothing left on the engine');
    const params = run.params as RunParameters;
    assert.ok(params.finishedAt);
    assert.equal(params.resumes?.length, 1);
    assert.ok(params.resumes?.[0]?.finishedAt);
    assert.equal(params.resumes?.[0]?.remaining, attempts - kept.length);

    // A second resume has nothing to do and changes nothing.
    const third = cliRun(['run', '--resume', runId, '--results', results], work);
    assert.equal(await third.exited, 0, third.stderr());
    assert.match(third.stderr(), new RegExp(`${attempts} of ${attempts} attempt\\(s\\) already have an outcome and are kept; 0 to run`));
    assert.equal(readRun(runDir).trials.length, attempts);
  });
});

void describe('timeout policy on a real container (integration)', () => {
  // The solution does its work, then stays busy (in the foreground and in the background) past the
  // 3 s agent timeout; the verifier passes only when the work is there and nothing of the agent's
  // command is still running.
  const late = (): string => harborTask(path.join(work, 'tasks', `late-${Math.random().toString(36).slice(2, 6)}`), {
    'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 60\n\n[agent]\ntimeout_sec = 3\n\n[environment]\nbuild_timeout_sec = 120\ncpus = 1\nmemory_mb = 256\n',
    'solution/solve.sh': '#!/bin/bash\necho hello > /app/greeting.txt\nsleep 600 &\nsleep 600\n',
    'tests/test.sh': [
      '#!/bin/bash', 'mkdir -p /logs/verifier', 'busy=0',
      'for f in /proc/[0-9]*/cmdline; do c=$(tr "\\0" " " < "$f" 2>/dev/null); case "$c" in *"sleep 600"*) busy=1;; esac; done',
      'echo "busy=$busy"',
      'if [ "$(cat /app/greeting.txt 2>/dev/null)" = hello ] && [ $busy = 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi', '',
    ].join('\n'),
  });

  async function run(policy: TimeoutPolicy) {
    const dir = late();
    const store = RunStore.create(path.join(work, 'policy-runs'), { id: newRunId(`late-${policy}`), kind: 'run', tasks: [dir], concurrency: 1, retries: 0, startedAt: new Date().toISOString(), pid: process.pid, timeoutPolicy: policy });
    const [r] = (await new TrialRunner({ runtime }, store).runAll([{ task: await loadTask(dir), taskPath: dir, agent: new OracleAgent(), attempt: 1 }], { concurrency: 1, retries: 0, timeoutPolicy: policy })).flat();
    assert.deepEqual(await containersOf(LABEL_RUN, store.id), []);
    return { record: r!.record, dir: store.dir };
  }

  void it('fail: the timed-out attempt is an agent timeout; verifier: its commands are stopped and the verifier\'s pass stands (integration)', async () => {
    const fail = await run('fail');
    assert.deepEqual([fail.record.outcome, fail.record.timeoutPolicy, fail.record.agentTimedOut], ['agent-timeout', 'fail', true]);
    const verifier = await run('verifier');
    assert.deepEqual([verifier.record.outcome, verifier.record.reward, verifier.record.timeoutPolicy, verifier.record.agentTimedOut], ['passed', 1, 'verifier', true],
      fs.readFileSync(path.join(verifier.dir, verifier.record.logs, 'verifier.stdout'), 'utf8'));
  });
});

void describe('--max-infra-rate decides the exit status (integration)', () => {
  void it('a run that lost half its attempts to infrastructure exits 1 above the threshold and 0 within it (integration)', async () => {
    const ok = harborTask(path.join(work, 'infra', 'builds'));
    const broken = harborTask(path.join(work, 'infra', 'does-not-build'), { 'environment/Dockerfile': 'FROM debian:bookworm-slim\nRUN exit 3\n' });
    const results = path.join(work, 'infra-runs');
    const strict = cliRun(['run', ok, broken, '--agent', 'oracle', '--retries', '0', '--max-infra-rate', '0.4', '--results', results], work);
    assert.equal(await strict.exited, 1, strict.stderr());
    assert.match(strict.stderr(), /1 of 2 attempt\(s\) \(50\.0%\) ended in infrastructure errors after retries — more than --max-infra-rate 0\.4 \(40\.0%\): exit status 1/);
    const tolerant = cliRun(['run', ok, broken, '--agent', 'oracle', '--retries', '0', '--max-infra-rate', '0.5', '--results', results], work);
    assert.equal(await tolerant.exited, 0, tolerant.stderr());
    assert.match(tolerant.stderr(), /within --max-infra-rate 0\.5/);
    const runs = fs.readdirSync(results).map((d) => readRun(path.join(results, d)).params?.maxInfraRate).sort();
    assert.deepEqual(runs, [0.4, 0.5], 'the threshold is recorded in run.json');
  });
});
