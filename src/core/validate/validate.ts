import { PathOutsideTaskError } from '../sandbox/contain';
import fs from 'node:fs';
import path from 'node:path';
import { NopAgent } from '../agents/nop';
import { OracleAgent } from '../agents/oracle';
import type { Task } from '../model/task';
import type { RunStore } from '../results/store';
import type { TrialRecord } from '../results/trial';
import { InfraError, type ContainerRuntime } from '../sandbox/runtime';
import { TrialRunner, type TrialJob } from '../sandbox/runner';
import { analyzeTask } from './analyze';
import { plantHook, REWARD_PROBES } from './probes';
import type { TaskValidation } from './types';

export interface ValidateTarget {
  readonly task: Task;
  /** The path as the user gave it (or relative to the workspace). */
  readonly path: string;
}

export interface ValidateOptions {
  /** nop and oracle trials per task (default 3). */
  readonly runs: number;
  readonly concurrency: number;
  readonly retries: number;
  readonly retryBaseMs?: number;
  readonly probes?: boolean;
  readonly signal?: AbortSignal;
  readonly onOutput?: (text: string) => void;
  /** Progress: a task's phase or a finished trial. */
  readonly onProgress?: (message: string, done: number, total: number) => void;
}

/**
 * Validates tasks by behaviour: build, nop × N (reward 0), oracle × N in fresh containers
 * (reward 1), agreement between identical runs, reward isolation probes, timeout margin.
 * Builds run one at a time (heavy); trials of all tasks share the concurrency budget.
 */
export async function validateTasks(runtime: ContainerRuntime, store: RunStore, targets: readonly ValidateTarget[], opts: ValidateOptions): Promise<TaskValidation[]> {
  const runner = new TrialRunner({ runtime }, store);
  const buildsDir = path.join(store.dir, 'builds');
  fs.mkdirSync(buildsDir, { recursive: true });
  const probes = opts.probes === false ? [] : REWARD_PROBES;
  const perTask = opts.runs * 2 + probes.length;
  const total = targets.length * perTask;
  let done = 0;

  const builds = new Map<string, { kind: string; message: string } | { sec: number }>();
  for (const t of targets) {
    if (opts.signal?.aborted) break;
    opts.onProgress?.(`${t.task.id}: building`, done, total);
    const started = Date.now();
    try {
      const img = await runner.images.ensure(t.task, { logFile: path.join(buildsDir, `${t.task.id}.log`), onLog: opts.onOutput, signal: opts.signal });
      builds.set(t.task.dir, { sec: img.built ? (Date.now() - started) / 1000 : 0 });
    } catch (e) {
      const err = e instanceof InfraError ? { kind: e.kind, message: e.message }
        : e instanceof PathOutsideTaskError ? { kind: e.rule, message: `${t.task.id}: ${e.message}` }
          : { kind: 'other', message: e instanceof Error ? e.message : String(e) };
      // An unreachable engine is not the task's fault: its trials are attempted (and recorded) as infra errors.
      if (err.kind !== 'engine-unreachable') builds.set(t.task.dir, err);
      opts.onOutput?.(`${t.task.id}: ${err.message}\n`);
    }
  }

  const jobs: { target: ValidateTarget; kind: string; job: TrialJob }[] = [];
  for (const target of targets) {
    const b = builds.get(target.task.dir);
    if (b && 'kind' in b) continue;
    for (let i = 1; i <= opts.runs; i++) jobs.push({ target, kind: 'nop', job: { task: target.task, taskPath: target.path, agent: new NopAgent(), attempt: i, label: 'nop' } });
    for (let i = 1; i <= opts.runs; i++) jobs.push({ target, kind: 'oracle', job: { task: target.task, taskPath: target.path, agent: new OracleAgent(), attempt: i, label: 'oracle' } });
    for (const p of probes) {
      jobs.push({ target, kind: `probe:${p.name}`, job: { task: target.task, taskPath: target.path, agent: new NopAgent(), attempt: 1, label: `probe-${p.name}`, beforeVerifier: plantHook(p) } });
    }
  }
  // Interleave tasks so a slow task does not hold the whole budget at the end.
  jobs.sort((a, b) => a.job.attempt - b.job.attempt);
  done += (targets.length - new Set(jobs.map((j) => j.target.task.dir)).size) * perTask;

  const results = await runner.runAll(jobs.map((j) => j.job), {
    concurrency: opts.concurrency, retries: opts.retries, retryBaseMs: opts.retryBaseMs, signal: opts.signal, onOutput: opts.onOutput,
    onTrial: (r) => {
      if (r.record.outcome !== 'infra-error' || !r.retryable) done++;
      opts.onProgress?.(`${r.record.taskId ?? r.record.task}: ${r.record.agent} ${r.record.trial} → ${r.record.outcome}`, done, total);
    },
  });

  return targets.map((target) => {
    const mine = jobs.map((j, i) => ({ j, rs: results[i] ?? [] })).filter(({ j }) => j.target === target);
    const of = (kind: string): TrialRecord[] => mine.filter(({ j }) => j.kind === kind).flatMap(({ rs }) => rs.map((r) => r.record));
    const last = (kind: string): TrialRecord[] => mine.filter(({ j }) => j.kind === kind).map(({ rs }) => rs[rs.length - 1]?.record).filter((r): r is TrialRecord => !!r);
    const b = builds.get(target.task.dir);
    const every = [...of('nop'), ...of('oracle'), ...probes.flatMap((p) => of(`probe:${p.name}`))];
    return analyzeTask({
      task: target.task,
      path: target.path,
      buildError: b && 'kind' in b ? b : undefined,
      buildSec: b && 'sec' in b ? b.sec : undefined,
      // Each job's final try carries its verdict; earlier tries were infra errors, reported apart.
      nop: last('nop'),
      oracle: last('oracle'),
      probes: Object.fromEntries(probes.map((p) => [p.name, last(`probe:${p.name}`)])),
      probeDescriptions: Object.fromEntries(probes.map((p) => [p.name, p.description])),
      allTrials: every,
    });
  });
}
