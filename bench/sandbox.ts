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
import type { ContainerRuntime } from '../src/core/sandbox/runtime';

const run = promisify(execFile);
import { writeResultsSection } from './resultsFile';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/sandbox/bench-echo');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** The runtime with each engine call timed: where a trial's time goes. */
function timed(inner: ContainerRuntime, log: Map<string, number[]>): ContainerRuntime {
  return new Proxy(inner, {
    get(target, key, receiver): unknown {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]): Promise<unknown> => {
        const t = performance.now();
        try {
          return await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          const k = String(key);
          log.set(k, [...(log.get(k) ?? []), performance.now() - t]);
        }
      };
    },
  });
}

async function main(): Promise<void> {
  const runtime = new DockerodeRuntime();
  await runtime.ping();
  const task = await loadTask(FIXTURE);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'));
  const store = RunStore.create(results, { id: newRunId('bench'), kind: 'run', agent: 'nop', tasks: [task.id], concurrency: 1, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
  const runner = new TrialRunner({ runtime }, store);
  const image = await runner.images.ensure(task);
  const job: TrialJob = { task, taskPath: task.id, agent: new NopAgent(), attempt: 1 };

  // 1. Overhead, interleaved so machine load hits both sides alike.
  const verifier = 'mkdir -p /logs/verifier /tests && echo 1 > /logs/verifier/reward.txt && cat /logs/verifier/reward.txt';
  const runnerMs: number[] = [];
  const cliMs: number[] = [];
  for (let i = 0; i < 2; i++) { // warm-up
    await runner.runJob(job, { concurrency: 1, retries: 0 });
    await run('docker', ['run', '--rm', '--network', 'none', '--label', 'taskwright=bench', image.ref, 'bash', '-c', verifier]);
  }
  for (let i = 0; i < 20; i++) {
    let t = performance.now();
    const [r] = await runner.runJob(job, { concurrency: 1, retries: 0 });
    runnerMs.push(performance.now() - t);
    if (r?.record.outcome !== 'passed') throw new Error(`bench trial ended ${r?.record.outcome}: ${JSON.stringify(r?.record.infra)}`);
    t = performance.now();
    await run('docker', ['run', '--rm', '--network', 'none', '--label', 'taskwright=bench', image.ref, 'bash', '-c', verifier]);
    cliMs.push(performance.now() - t);
  }
  const overhead = { runnerMs: Math.round(median(runnerMs)), dockerRunMs: Math.round(median(cliMs)) };
  const ratio = Math.round((overhead.runnerMs / overhead.dockerRunMs) * 100) / 100;

  // 1b. The same trial with every engine call timed (separate trials, so the timing cannot skew 1).
  const calls = new Map<string, number[]>();
  const profiled = new TrialRunner({ runtime: timed(runtime, calls), images: runner.images }, store);
  for (let i = 0; i < 10; i++) await profiled.runJob(job, { concurrency: 1, retries: 0 });
  const perCall = [...calls].map(([call, ms]) => ({ call, perTrial: ms.length / 10, medianMs: Math.round(median(ms)) }));

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
  store.finish({});
  fs.rmSync(results, { recursive: true, force: true });
  const left = (await runtime.listByLabel('taskwright.run')).filter((x) => x.labels['taskwright.run'] === store.id).length;
  const report = { overhead, ratio, perCall, rerun, throughput, containersLeft: left };
  console.log(JSON.stringify(report, null, 2));
  if (process.argv.includes('--write')) writeResults(report);
}

function writeResults(r: { overhead: { runnerMs: number; dockerRunMs: number }; ratio: number; perCall: { call: string; perTrial: number; medianMs: number }[]; rerun: { rebuilds: number; ms: number }; throughput: { concurrency: number; trials: number; perMin: number }[]; containersLeft: number }): void {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const section = [
    '<!-- sandbox:begin -->',
    '## Sandbox',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu}, ${os.cpus().length} cores (shared with the team's other jobs: load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, Docker Engine 20.10 (local socket).`,
    'Command: `node scripts/build.mjs && node out/bench/sandbox.js --write` (task: test/fixtures/sandbox/bench-echo on the local debian:bookworm-slim stand-in).',
    '',
    '| measure | result | goal |',
    '|---|---|---|',
    `| per-trial overhead: full runner (fresh container, harness folders, nop agent, tests copied in, \`bash /tests/test.sh\`, reward read back, container removed) vs \`docker run --rm\` (CLI) running the same verifier command; median of 20, interleaved | **${r.ratio}** (${r.overhead.runnerMs} ms vs ${r.overhead.dockerRunMs} ms) | ≤ 0.85 |`,
    `| rerun of an unchanged task (fresh image cache, content-hash tag) | **${r.rerun.rebuilds} rebuilds** (${r.rerun.ms} ms to confirm) | 0 |`,
    ...r.throughput.map((t) => `| trials per minute at concurrency ${t.concurrency} (${t.trials} trials) | **${t.perMin}** | — |`),
    `| containers left after the bench | ${r.containersLeft} | 0 |`,
    '',
    `Where a runner trial's time goes (10 more trials, each engine call of the runtime timed; median ms, calls per trial): ${r.perCall.map((c) => `${c.call} ${c.medianMs}${c.perTrial !== 1 ? ` (×${c.perTrial})` : ''}`).join(' · ')}.`,
    '`start` is create + start and `exec` is exec create + start + stream + one inspect. Timed apart with raw dockerode on the',
    'same machine, exec create and exec inspect take 2–3 ms each (the first inspect after the stream ends already has the exit',
    'code: no polling happens), so folding them away or running them in parallel saves nothing measurable. The time is in the',
    'engine\'s own work: runc starting the container (~200 ms here), runc exec (~110 ms), the kill and unmount of a forced',
    'removal (~160 ms), and the two archive calls (~110–160 ms each: Docker 20.10 re-executes dockerd in a chroot for every',
    'copy in or out, seen in `ps` as `docker-untar` / `docker-tar`). `docker run --rm` pays for create, start and removal too',
    'but makes no archive calls; the runner saves the CLI\'s start-up and spends it, and more, on the two copies (the previous',
    'run of the same runner code measured 1.06: 768 ms vs 724 ms at load 15). Reaching 0.85 would need dropping them — bind-mounting a host folder as the reward',
    'folder (local engine only; root-owned files in the results; a host path writable by the agent) or piping the tests through',
    'the verifier\'s stdin into `tar` (needs `tar` in every image, extraction as the verifier\'s user) — both weaken what the',
    'sandbox promises, so they were not taken.',
    '<!-- sandbox:end -->',
  ].join('\n');
  writeResultsSection('sandbox', section);
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
