/**
 * Where one trial's time goes: every engine call of the runtime, with its start offset from the
 * trial's start and its duration, for N nop trials of the bench-echo fixture (or `--task DIR`).
 * `node scripts/build.mjs && node out/bench/trialProfile.js [--n 10] [--task DIR]`
 * Prints one timeline per trial and the median per call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NopAgent } from '../src/core/agents/nop';
import { loadTask } from '../src/core/loader/index';
import { newRunId, RunStore } from '../src/core/results/store';
import { DockerodeRuntime } from '../src/core/sandbox/dockerRuntime';
import { TrialRunner, type TrialJob } from '../src/core/sandbox/runner';
import type { ContainerRuntime } from '../src/core/sandbox/runtime';

const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string): string | undefined => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : undefined; };
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2; };

export interface CallSpan { readonly call: string; readonly at: number; readonly ms: number }

/** The runtime with each call's start and duration logged (relative to `origin()`). */
export function profiled(inner: ContainerRuntime, spans: CallSpan[], origin: () => number): ContainerRuntime {
  return new Proxy(inner, {
    get(target, key, receiver): unknown {
      const v: unknown = Reflect.get(target, key, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]): unknown => {
        const t = performance.now();
        const out = (v as (...a: unknown[]) => unknown).apply(target, args);
        const log = (): void => { spans.push({ call: String(key), at: t - origin(), ms: performance.now() - t }); };
        if (out instanceof Promise) return out.finally(log);
        log();
        return out;
      };
    },
  });
}

async function main(): Promise<void> {
  const n = Number(arg('n') ?? 10);
  const runtime = new DockerodeRuntime();
  await runtime.ping();
  const task = await loadTask(path.resolve(ROOT, arg('task') ?? 'test/fixtures/sandbox/bench-echo'));
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-profile-'));
  const store = RunStore.create(results, { id: newRunId('profile'), kind: 'run', agent: 'nop', tasks: [task.id], concurrency: 1, retries: 0, startedAt: new Date().toISOString(), pid: process.pid });
  let t0 = 0;
  const spans: CallSpan[][] = [];
  let cur: CallSpan[] = [];
  const runner = new TrialRunner({ runtime: profiled(runtime, { push: (s: CallSpan) => cur.push(s) } as unknown as CallSpan[], () => t0) }, store);
  await runner.images.ensure(task);
  const job: TrialJob = { task, taskPath: task.id, agent: new NopAgent(), attempt: 1 };
  const totals: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    cur = [];
    t0 = performance.now();
    const [r] = await runner.runJob(job, { concurrency: 1, retries: 0, deferRemoval: true });
    const total = performance.now() - t0;
    await runner.settle();
    if (r?.record.outcome !== 'passed') throw new Error(`trial ended ${r?.record.outcome}: ${JSON.stringify(r?.record.infra)}`);
    if (i < 2) continue; // warm-up
    spans.push(cur);
    totals.push(total);
    console.log(`trial ${i - 1}: ${Math.round(total)} ms  ${cur.map((s) => `${s.call}@${Math.round(s.at)}+${Math.round(s.ms)}`).join(' ')}`);
  }
  const byCall = new Map<string, number[]>();
  for (const t of spans) for (const s of t) byCall.set(s.call, [...(byCall.get(s.call) ?? []), s.ms]);
  console.log(`median trial ${Math.round(median(totals))} ms; per call (median ms, calls per trial): ${[...byCall].map(([c, ms]) => `${c} ${Math.round(median(ms))} ×${ms.length / spans.length}`).join(' · ')}`);
  console.log(`load ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
  await runner.close();
  store.finish({});
  fs.rmSync(results, { recursive: true, force: true });
}

if (require.main === module) main().catch((e: unknown) => { console.error(e); process.exit(1); });
