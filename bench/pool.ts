/**
 * Engine pool benchmark on this machine: the shared engine and a second daemon of its own
 * (`scripts/docker-engine.sh --second --copy-images`, state in TASKWRIGHT_POOL_DOCKERD_DIR, default
 * /run/tw-pool). Both daemons share this host's cores, so the pool cannot add CPU here; what it
 * shows is the scheduling (trials spread by free slots), the cost of bringing an image to a new
 * engine (copy vs build), and that nothing is left behind.
 *  1. trials per minute: one engine at 2 and 4 trials at once, the pool at 2 + 2 slots — an
 *     engine-bound trial (nop on bench-echo) and a wait-bound one (the agent sleeps 3 s, as a
 *     policy waiting on its model does);
 *  2. first trial on an engine without the image: copy from the other engine (`save | load`) vs a build there.
 * `node scripts/build.mjs && node out/bench/pool.js [--write]` (`--write` updates bench/RESULTS.md, section "Engine pool").
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Agent, AgentResult, TrialSession } from '../src/core/agents/agent';
import { NopAgent } from '../src/core/agents/nop';
import { loadTask } from '../src/core/loader/index';
import { newRunId, RunStore } from '../src/core/results/store';
import { connectEngines, runtimeFor } from '../src/core/sandbox/connect';
import { parseEngineAddress } from '../src/core/sandbox/engines';
import { ImageCache } from '../src/core/sandbox/image';
import { TrialRunner, type TrialJob } from '../src/core/sandbox/runner';
import type { ContainerRuntime } from '../src/core/sandbox/runtime';
import { writeResultsSection } from './resultsFile';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/sandbox/bench-echo');
const STATE = process.env.TASKWRIGHT_POOL_DOCKERD_DIR ?? '/run/tw-pool';
const FIRST = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
const SECOND = `unix://${STATE}/docker.sock`;
const N = 16;

/** Waits 3 s in the container, as an agent waiting on its model would. */
class SleepAgent implements Agent {
  readonly spec = 'sleep3';
  async run(session: TrialSession): Promise<AgentResult> {
    await session.exec('sleep 3');
    return { status: 'completed', steps: 1 };
  }
}

interface Row { readonly setup: string; readonly workload: string; readonly perMin: number; readonly split: string }

async function throughput(runtime: ContainerRuntime, concurrency: number, agent: Agent, results: string): Promise<{ perMin: number }> {
  const task = await loadTask(FIXTURE);
  const store = RunStore.create(results, { id: newRunId('bench-pool'), kind: 'run', agent: agent.spec, tasks: [task.id], concurrency, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
  const runner = new TrialRunner({ runtime }, store);
  await runner.prepare();
  const jobs: TrialJob[] = Array.from({ length: N }, (_, i) => ({ task, taskPath: task.id, agent, attempt: i + 1 }));
  // Warm: the image on every engine before the clock starts (measured apart, in 2).
  await runner.runAll(jobs.slice(0, concurrency), { concurrency, retries: 0 });
  const t = performance.now();
  const rs = await runner.runAll(jobs, { concurrency, retries: 0 });
  const min = (performance.now() - t) / 60_000;
  store.finish({});
  const bad = rs.flat().filter((r) => r.record.outcome !== 'passed' && r.record.outcome !== 'failed');
  if (bad.length) throw new Error(`bench trials ended ${bad.map((r) => `${r.record.outcome} ${JSON.stringify(r.record.infra)}`).join('; ')}`);
  return { perMin: Math.round(N / min) };
}

async function main(): Promise<void> {
  execFileSync('bash', [path.join(ROOT, 'scripts/docker-engine.sh'), '--second', '--copy-images'], { env: { ...process.env, TASKWRIGHT_DOCKERD2_DIR: STATE, DOCKER_HOST: FIRST }, stdio: 'ignore' });
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-pool-'));
  const e1 = runtimeFor(parseEngineAddress(FIRST));
  const e2 = runtimeFor(parseEngineAddress(SECOND));
  const task = await loadTask(FIXTURE);
  const { ref } = await new ImageCache(e1).ensure(task);

  // 2. Bringing the image to an engine that lacks it.
  const copyMs: number[] = [];
  const buildMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    await e2.removeImage(ref);
    let t = performance.now();
    await e1.copyImageTo(e2, ref);
    copyMs.push(performance.now() - t);
    await e2.removeImage(ref);
    t = performance.now();
    await new ImageCache(e2).ensure(task);
    buildMs.push(performance.now() - t);
  }
  const med = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1] as number);
  const image = { copyMs: med(copyMs), buildMs: med(buildMs), sizeMb: Math.round(Number(execFileSync('docker', ['-H', FIRST, 'image', 'inspect', '--format', '{{.Size}}', ref], { encoding: 'utf8' })) / 1e6) };
  await e2.removeImage(ref);

  // 1. Throughput.
  const rows: Row[] = [];
  for (const agent of [new NopAgent(), new SleepAgent()]) {
    const workload = agent.spec === 'nop' ? 'engine-bound (nop)' : 'wait-bound (agent sleeps 3 s)';
    for (const c of [2, 4]) rows.push({ setup: `one engine, ${c} at once`, workload, split: '—', ...(await throughput(e1, c, agent, results)) });
    const { runtime, pool, concurrency } = connectEngines([`${FIRST}?slots=2`, `${SECOND}?slots=2`], 2);
    const r = await throughput(runtime, concurrency, agent, results);
    rows.push({ setup: 'pool, 2 + 2 slots', workload, ...r, split: (pool?.stats() ?? []).map((s) => s.started).join(' / ') });
    pool?.close();
  }
  const left = (await e1.listByLabel('taskwright.run')).length + (await e2.listByLabel('taskwright.run')).length;
  fs.rmSync(results, { recursive: true, force: true });
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  const report = { rows, image, containersLeft: left, load };
  console.log(JSON.stringify(report, null, 2));
  if (process.argv.includes('--write')) write(report);
}

function write(r: { rows: Row[]; image: { copyMs: number; buildMs: number; sizeMb: number }; containersLeft: number; load: string }): void {
  const cpu = os.cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'unknown CPU';
  const section = [
    '<!-- pool:begin -->',
    '## Engine pool',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu}, ${os.cpus().length} cores (shared with other jobs; load average ${r.load} at the end), Node ${process.version}, two Docker Engine 20.10 daemons on the same host (the shared one and \`scripts/docker-engine.sh --second\`).`,
    `Command: \`node scripts/build.mjs && node out/bench/pool.js --write\` (task: test/fixtures/sandbox/bench-echo, ${N} trials per row after a warm-up).`,
    '',
    '| workload | setup | trials per minute | trials per engine |',
    '|---|---|---|---|',
    ...r.rows.map((x) => `| ${x.workload} | ${x.setup} | **${x.perMin}** | ${x.split} |`),
    '',
    `First trial on an engine without the task's image (${r.image.sizeMb} MB with its base): copied from the other engine (\`save | load\`, streamed) **${(r.image.copyMs / 1000).toFixed(1)} s**; built there from the Dockerfile instead ${(r.image.buildMs / 1000).toFixed(1)} s (median of 3; the base image already there, a two-line Dockerfile). The pool copies anyway: once per engine and image, and every engine then runs the same image id, which a rebuild of an unpinned Dockerfile (\`apt-get install\`, \`pip install\` without versions) would not promise. Containers left on either engine: ${r.containersLeft}.`,
    '',
    'Both daemons share this machine\'s two cores, so a pool here cannot beat one engine running as many trials at once: engine-bound trials are limited by the CPU (two',
    'daemons competing for it do a little worse), wait-bound trials (a policy waiting on its model) scale with slots on either. The placement is even (trials per engine).',
    'The pool pays off with engines on other hosts, each bringing its own cores and memory — not measurable on this machine.',
    '<!-- pool:end -->',
  ].join('\n');
  writeResultsSection('pool', section);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
