/**
 * Cost of the behavioural verifier audit, against the real engine:
 *  1. the full default `taskwright validate` of a typical example task (build cached) vs the
 *     validate of before the audit — the CLI of a checkout given by `--baseline DIR` (built), or
 *     else this code restricted to nop × 3, oracle × 3 and the four planted-file probes — on the
 *     same task, both through the CLI, interleaved, median of `--reps` (default 2) each; goal ≤ 2×;
 *  2. per-trial overhead of one behavioural check (a fresh container from the solved snapshot,
 *     tests copied in, verifier, reward read back, removed) vs `docker run --rm` of the same
 *     verifier command on the same snapshot image, interleaved, median of `--n` (default 20); goal ≤ 0.85.
 * `node scripts/build.mjs && node out/bench/validate.js [--write] [--reps N] [--task DIR] [--baseline DIR]`
 * (`--write` updates bench/RESULTS.md, section "Validate").
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadTask } from '../src/core/loader/index';
import { newRunId, RunStore } from '../src/core/results/store';
import { DockerodeRuntime } from '../src/core/sandbox/dockerRuntime';
import { TrialRunner } from '../src/core/sandbox/runner';
import { LABEL, LABEL_RUN } from '../src/core/sandbox/runtime';
import { HookAgent } from '../src/core/validate/behaviour';
import { SnapshotImages } from '../src/core/validate/snapshotImages';
import { writeResultsSection } from './resultsFile';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string): string | undefined => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : undefined; };
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2; };

async function main(): Promise<void> {
  const runtime = new DockerodeRuntime();
  await runtime.ping();
  const taskDir = path.resolve(ROOT, arg('task') ?? 'examples/tasks/csv-region-totals');
  const reps = Number(arg('reps') ?? 2);
  const task = await loadTask(taskDir);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-validate-'));
  const mk = (kind: string): RunStore => RunStore.create(results, { id: newRunId(kind), kind: 'validate', tasks: [task.id], concurrency: 2, retries: 1, startedAt: new Date().toISOString(), pid: process.pid });
  const baseline = arg('baseline');
  const cli = async (which: 'before' | 'full'): Promise<{ sec: number; trials: number; verdict: string }> => {
    const bin = which === 'full' || !baseline ? path.join(ROOT, 'bin/taskwright.js') : path.join(path.resolve(baseline), 'bin/taskwright.js');
    const extra = which === 'before' && !baseline ? ['--mutants', '0', '--no-behaviour'] : [];
    const t = performance.now();
    const r = await run(process.execPath, [bin, 'validate', taskDir, '--runs', '3', '--concurrency', '2', '--format', 'json', '--results', results, ...extra], { maxBuffer: 1 << 26 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    const sec = (performance.now() - t) / 1000;
    const json = JSON.parse(r.stdout) as { results: string; tasks: { verdict: string; checks: { name: string; status: string }[] }[] };
    const runDir = path.isAbsolute(json.results) ? json.results : path.resolve(ROOT, json.results);
    const trials = fs.readFileSync(path.join(runDir, 'trials.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    const v = json.tasks[0];
    return { sec, trials, verdict: `${v?.verdict} (${v?.checks.map((c) => `${c.name} ${c.status}`).join(', ')})` };
  };
  // Warm the build caches of both sides (the goal is about a cached build).
  await cli('before');
  await cli('full');

  const times: { before: number[]; full: number[] } = { before: [], full: [] };
  let trials = { before: 0, full: 0 };
  let verdicts = { before: '', full: '' };
  for (let i = 0; i < reps; i++) {
    for (const which of (i % 2 ? ['full', 'before'] : ['before', 'full']) as ('before' | 'full')[]) {
      const r = await cli(which);
      times[which].push(r.sec);
      trials = { ...trials, [which]: r.trials };
      verdicts = { ...verdicts, [which]: r.verdict };
    }
  }
  const full = { beforeSec: Math.round(median(times.before) * 10) / 10, fullSec: Math.round(median(times.full) * 10) / 10 };
  const ratioFull = Math.round((full.fullSec / full.beforeSec) * 100) / 100;

  // 2. One behavioural check trial from a snapshot vs docker run --rm on that image.
  const s = mk('overhead');
  const images = new SnapshotImages(runtime);
  const runner = new TrialRunner({ runtime, images }, s);
  const img = await runner.images.ensure(task);
  const { stdout: cid } = await run('docker', ['run', '-d', '--network', 'none', '--label', `${LABEL}=1`, '--label', `${LABEL_RUN}=${s.id}`, img.ref, 'sleep', '600']);
  await run('docker', ['exec', cid.trim(), 'bash', '-c', 'mkdir -p /app/out && echo solved > /app/out/answer.txt']);
  const snap = await runtime.commit(cid.trim(), { [LABEL]: '1', [LABEL_RUN]: s.id });
  await runtime.remove(cid.trim());
  const verifier = 'mkdir -p /logs/verifier /tests && echo 1 > /logs/verifier/reward.txt && cat /logs/verifier/reward.txt';
  const echo = await loadTask(path.join(ROOT, 'test/fixtures/sandbox/bench-echo'));
  const runnerMs: number[] = [];
  const cliMs: number[] = [];
  const n = Number(arg('n') ?? 20);
  for (let i = 0; i < n + 2; i++) {
    let t = performance.now();
    // As validate runs its checks (removal off the trial's path); each trial its own environment, as
    // the hook-less checks (environment variations) have, so none starts from a ready snapshot.
    const variant = images.variant(echo, snap, { TASKWRIGHT_BENCH_CHECK: String(i) });
    const [r] = await runner.runJob({ task: variant, taskPath: echo.id, agent: new HookAgent('check:bench'), attempt: 1, label: 'bench' }, { concurrency: 1, retries: 0, deferRemoval: true });
    const ms = performance.now() - t;
    await runner.settle();
    if (r?.record.outcome !== 'passed') throw new Error(`bench check trial ended ${r?.record.outcome}: ${JSON.stringify(r?.record.infra)}`);
    t = performance.now();
    await run('docker', ['run', '--rm', '--network', 'none', '--label', `${LABEL}=bench`, snap, 'bash', '-c', verifier]);
    if (i >= 2) { runnerMs.push(ms); cliMs.push(performance.now() - t); } // two warm-ups
  }
  await runner.close();
  await runtime.removeImage(snap);
  const overhead = { runnerMs: Math.round(median(runnerMs)), dockerRunMs: Math.round(median(cliMs)) };
  const ratio = Math.round((overhead.runnerMs / overhead.dockerRunMs) * 100) / 100;
  fs.rmSync(results, { recursive: true, force: true });
  const report = { task: path.relative(ROOT, taskDir), reps, full, ratioFull, trials, verdicts, overhead, ratio, load: os.loadavg().map((x) => Math.round(x * 10) / 10) };
  console.log(JSON.stringify(report, null, 2));
  if (process.argv.includes('--write')) {
    writeResultsSection('validate', [
      '<!-- validate:begin -->',
      '## Validate (behavioural verifier audit)',
      '',
      `Measured ${new Date().toISOString().slice(0, 16)}Z on ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores shared with the team's other jobs (load average ${report.load.join(' / ')} at the end), Docker Engine 20.10 (local socket).`,
      `Command: \`node scripts/build.mjs && node out/bench/validate.js --write --reps ${reps}${baseline ? ' --baseline <checkout of the commit before the audit>' : ''}\` (task: ${report.task}, build cached, \`--runs 3 --concurrency 2\`, both sides through the CLI).`,
      '',
      '| measure | result | goal |',
      '|---|---|---|',
      `| full default validate vs ${baseline ? 'the validate of the commit before the audit' : 'this validate with `--mutants 0 --no-behaviour`'}, interleaved, median of ${reps} | **${ratioFull}×** (${full.fullSec} s, ${trials.full} trials vs ${full.beforeSec} s, ${trials.before} trials) | ≤ 2× |`,
      `| per-trial overhead of one behavioural check (fresh container from the solved snapshot, tests copied in, verifier, reward read back, removed) vs \`docker run --rm\` of the same verifier command on the snapshot image; time to the recorded verdict, median of ${n}, interleaved | **${ratio}** (${overhead.runnerMs} ms vs ${overhead.dockerRunMs} ms) | ≤ 0.85 |`,
      '',
      `Verdicts: before: ${verdicts.before}; full: ${verdicts.full}.`,
      '',
      `The check trials go through the same runner path as every trial: start, the harness folders checked and the tests' archive copied in, one exec, the OOM-event wait overlapped with the reward folder's read-back and the container inspect, the verdict recorded, then the forced removal off the trial's path (validate goes on with the next trial and awaits every removal before it returns). The ratio is measured to the recorded verdict; each bench trial has its own environment, as the hook-less checks (environment variations) do, so none starts from a verifier-ready snapshot (checks with a hook never do). The audit's own saving is elsewhere: one commit per task instead of re-running the solution for each mutant or variation, two combined variation runs (bisected only when the verdict moves), probes only where they can apply, and one work queue, so a task's snapshot checks start as soon as its first oracle run ends.`,
      '<!-- validate:end -->',
    ].join('\n'));
  }
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
