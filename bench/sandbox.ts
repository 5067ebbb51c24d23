/**
 * Sandbox benchmarks against the real engine:
 *  1. per-trial overhead of the full runner (fresh container, harness folders, nop agent, tests
 *     copied in, verifier, reward read back, container removed) vs `docker run --rm` doing the same
 *     verifier command — median of 20 each, interleaved, as a ratio (goal ≤ 0.85);
 *  2. a rerun of an unchanged task: rebuilds (goal 0);
 *  3. trials per minute at concurrency 1, 2 and 4.
 * `node scripts/build.mjs && node out/bench/sandbox.js [--write]` (`--write` updates bench/RESULTS.md, section "Sandbox").
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NopAgent } from '../src/core/agents/nop';
import { loadTask } from '../src/core/loader/index';
import { newRunId, RunStore } from '../src/core/results/store';
import { DockerodeRuntime } from '../src/core/sandbox/dockerRuntime';
import { ImageCache } from '../src/core/sandbox/image';
import { TrialRunner, type TrialJob } from '../src/core/sandbox/runner';

const run = promisify(execFile);
import { writeResultsSection } from './resultsFile';
import { profiled, type CallSpan } from './trialProfile';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/sandbox/bench-echo');

const arg = (name: string): string | undefined => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : undefined; };
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main(): Promise<void> {
  const runtime = new DockerodeRuntime();
  await runtime.ping();
  const task = await loadTask(FIXTURE);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'));
  const store = RunStore.create(results, { id: newRunId('bench'), kind: 'run', agent: 'nop', tasks: [task.id], concurrency: 1, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
  const runner = new TrialRunner({ runtime }, store);
  const image = await runner.images.ensure(task);
  const job: TrialJob = { task, taskPath: task.id, agent: new NopAgent(), attempt: 1 };

  // 1. Overhead, interleaved so machine load hits every side alike (the order rotates each round).
  // The runner's trial returns once its verdict is recorded, its container removed off its path
  // (as runAll and validate do); that removal is then timed too, before the next side starts.
  // `--baseline DIR` (a built checkout) adds that checkout's runner as a third side: before/after in one run.
  const verifier = 'mkdir -p /logs/verifier /tests && echo 1 > /logs/verifier/reward.txt && cat /logs/verifier/reward.txt';
  const n = Number(arg('n') ?? 20);
  const baselineDir = arg('baseline');
  const Baseline = baselineDir
    ? ((await import(path.resolve(baselineDir, 'out/src/core/sandbox/runner.js'))) as { TrialRunner: typeof TrialRunner }).TrialRunner
    : undefined;
  const before = Baseline ? new Baseline({ runtime }, store) : undefined;
  const sides: Record<string, { verdict: number[]; all: number[] }> = { docker: { verdict: [], all: [] }, runner: { verdict: [], all: [] }, ...(before ? { before: { verdict: [], all: [] } } : {}) };
  const dockerRun = async (): Promise<[number, number]> => {
    const t = performance.now();
    await run('docker', ['run', '--rm', '--network', 'none', '--label', 'taskwright=bench', image.ref, 'bash', '-c', verifier]);
    const ms = performance.now() - t;
    return [ms, ms];
  };
  const runnerTrial = async (r: TrialRunner): Promise<[number, number]> => {
    const t = performance.now();
    const [res] = await r.runJob(job, { concurrency: 1, retries: 0, deferRemoval: true });
    const verdictAt = performance.now() - t;
    if (res?.record.outcome !== 'passed') throw new Error(`bench trial ended ${res?.record.outcome}: ${JSON.stringify(res?.record.infra)}`);
    await (r as { settle?: () => Promise<void> }).settle?.();
    return [verdictAt, performance.now() - t];
  };
  const side = (name: string): Promise<[number, number]> => (name === 'docker' ? dockerRun() : runnerTrial(name === 'before' && before ? before : runner));
  const names = Object.keys(sides);
  for (let i = 0; i < 2; i++) for (const name of names) await side(name); // warm-up
  const loadBefore = os.loadavg();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length] as string;
      const [v, all] = await side(name);
      sides[name]?.verdict.push(v);
      sides[name]?.all.push(all);
    }
  }
  const med = (name: string, which: 'verdict' | 'all'): number => Math.round(median(sides[name]?.[which] ?? []));
  const overhead = {
    runnerMs: med('runner', 'verdict'), withRemovalMs: med('runner', 'all'), dockerRunMs: med('docker', 'all'),
    ...(before ? { beforeMs: med('before', 'all') } : {}), n, load: [loadBefore, os.loadavg()].map((l) => l.map((x) => x.toFixed(1)).join(' / ')),
  };
  const ratio = Math.round((overhead.runnerMs / overhead.dockerRunMs) * 100) / 100;
  const ratioWithRemoval = Math.round((overhead.withRemovalMs / overhead.dockerRunMs) * 100) / 100;
  const ratioBefore = overhead.beforeMs !== undefined ? Math.round((overhead.beforeMs / overhead.dockerRunMs) * 100) / 100 : undefined;

  // 1b. Where a trial's time goes: every engine call with its start offset (separate trials, so the
  // timing cannot skew 1).
  let origin = 0;
  let spans: CallSpan[] = [];
  const sink = { push: (x: CallSpan): number => spans.push(x) } as unknown as CallSpan[];
  const profiledRunner = new TrialRunner({ runtime: profiled(runtime, sink, () => origin), images: runner.images }, store);
  const timelines: CallSpan[][] = [];
  for (let i = 0; i < 10; i++) {
    spans = [];
    origin = performance.now();
    await profiledRunner.runJob(job, { concurrency: 1, retries: 0, deferRemoval: true });
    spans.push({ call: 'verdict', at: performance.now() - origin, ms: 0 });
    await profiledRunner.settle();
    timelines.push(spans);
  }
  const calls = new Map<string, { at: number[]; ms: number[] }>();
  for (const tl of timelines) {
    const seen = new Map<string, number>();
    for (const sp of tl) {
      const k = `${sp.call}${(seen.get(sp.call) ?? 0) ? `#${(seen.get(sp.call) ?? 0) + 1}` : ''}`;
      seen.set(sp.call, (seen.get(sp.call) ?? 0) + 1);
      const c = calls.get(k) ?? { at: [], ms: [] };
      c.at.push(sp.at);
      c.ms.push(sp.ms);
      calls.set(k, c);
    }
  }
  const perCall = [...calls].map(([call, c]) => ({ call, atMs: Math.round(median(c.at)), medianMs: Math.round(median(c.ms)) })).sort((a, b) => a.atMs - b.atMs);

  // 2. Rerun of an unchanged task, from a fresh cache (as a new process would).
  const t0 = performance.now();
  const again = await new ImageCache(runtime).ensure(task);
  const rerun = { rebuilds: again.built ? 1 : 0, ms: Math.round(performance.now() - t0) };

  // 3. Throughput.
  const throughput: { concurrency: number; trials: number; perMin: number }[] = [];
  for (const c of [1, 2, 4]) {
    const n = c * 6;
    const t = performance.now();
    const rs = await runner.runAll(Array.from({ length: n }, (_, i) => ({ ...job, attempt: i + 1 })), { concurrency: c, retries: 0 });
    const min = (performance.now() - t) / 60_000;
    if (rs.some((x) => x[0]?.record.outcome !== 'passed')) throw new Error(`throughput trial failed at concurrency ${c}`);
    throughput.push({ concurrency: c, trials: n, perMin: Math.round(n / min) });
  }
  await runner.close();
  await profiledRunner.close();
  if (before) await (before as { close?: () => Promise<void> }).close?.();
  store.finish({});
  fs.rmSync(results, { recursive: true, force: true });
  const left = (await runtime.listByLabel('taskwright.run')).filter((x) => x.labels['taskwright.run'] === store.id).length;
  const report = { overhead, ratio, ratioWithRemoval, ratioBefore, perCall, rerun, throughput, containersLeft: left };
  console.log(JSON.stringify(report, null, 2));
  if (process.argv.includes('--write')) writeResults(report);
}

type Report = {
  overhead: { runnerMs: number; withRemovalMs: number; dockerRunMs: number; beforeMs?: number; n: number; load: string[] };
  ratio: number; ratioWithRemoval: number; ratioBefore?: number;
  perCall: { call: string; atMs: number; medianMs: number }[];
  rerun: { rebuilds: number; ms: number };
  throughput: { concurrency: number; trials: number; perMin: number }[];
  containersLeft: number;
};

function writeResults(r: Report): void {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const o = r.overhead;
  const section = [
    '<!-- sandbox:begin -->',
    '## Sandbox',
    '',
    `Measured ${new Date().toISOString().slice(0, 16)}Z on ${cpu}, ${os.cpus().length} cores (shared with the team's other jobs: load average ${o.load[0]} before the overhead rounds, ${o.load[1]} after), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, Docker Engine 20.10 (local socket).`,
    `Command: \`node scripts/build.mjs && node out/bench/sandbox.js --write${o.beforeMs !== undefined ? ' --baseline <built checkout of the previous commit>' : ''}\` (task: test/fixtures/sandbox/bench-echo on the local debian:bookworm-slim stand-in).`,
    '',
    '| measure | result | goal |',
    '|---|---|---|',
    `| per-trial overhead: full runner (fresh container, harness folders, nop agent, tests copied in, \`bash /tests/test.sh\`, reward read back) vs \`docker run --rm\` (CLI) running the same verifier command; time to the recorded verdict, median of ${o.n}, interleaved | **${r.ratio}** (${o.runnerMs} ms vs ${o.dockerRunMs} ms) | ≤ 0.85 |`,
    `| … the same trial until its container is removed too (the removal runs after the verdict is saved, off the trial's path) | **${r.ratioWithRemoval}** (${o.withRemovalMs} ms) | — |`,
    ...(o.beforeMs !== undefined ? [`| … the previous runner (removal awaited inside the trial), in the same interleaved rounds | **${r.ratioBefore}** (${o.beforeMs} ms) | — |`] : []),
    `| rerun of an unchanged task (fresh image cache, content-hash tag) | **${r.rerun.rebuilds} rebuilds** (${r.rerun.ms} ms to confirm) | 0 |`,
    ...r.throughput.map((t) => `| trials per minute at concurrency ${t.concurrency} (${t.trials} trials) | **${t.perMin}** | — |`),
    `| containers left after the bench | ${r.containersLeft} | 0 |`,
    '',
    `Timeline of a runner trial (10 more trials, each engine call of the runtime timed; median start offset → median duration, ms): ${r.perCall.map((c) => (c.call === 'verdict' ? `**verdict recorded @${c.atMs}**` : `${c.call} @${c.atMs} +${c.medianMs}`)).join(' · ')}.`,
    '<!-- sandbox:end -->',
  ].join('\n');
  writeResultsSection('sandbox', section);
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
