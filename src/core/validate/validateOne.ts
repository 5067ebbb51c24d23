import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../model/task';
import { newRunId, RunStore } from '../results/store';
import type { TrialRecord } from '../results/trial';
import type { ContainerRuntime } from '../sandbox/runtime';
import type { CheckName, TaskValidation } from './types';
import { validateTasks } from './validate';

/**
 * One task validated in a results store of its own, with the logs that explain a failed check:
 * what generation's gates show the model when a draft fails, and what a fix's `--validate`
 * rechecks a change with.
 */
export interface ValidationOutcome {
  readonly validation: TaskValidation;
  /** Build or verifier output for a failed check (trimmed by whoever shows it). */
  readonly logs: Partial<Record<CheckName, string>>;
}

export interface ValidateOneOptions {
  readonly runtime: ContainerRuntime;
  /** Where the validation's run folder goes. */
  readonly resultsDir: string;
  /** The run id's prefix (`generate-validate`, …). */
  readonly label: string;
  /** nop and oracle trials (default 2: agreement needs two). */
  readonly runs?: number;
  readonly retries?: number;
  readonly retryBaseMs?: number;
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (text: string) => void;
  readonly onProgress?: (message: string) => void;
}

function readLog(file: string): string {
  try { return fs.readFileSync(file, 'utf8'); } catch { return ''; }
}

function trialLogs(storeDir: string, r: TrialRecord | undefined): string {
  if (!r) return '';
  const dir = path.join(storeDir, r.logs);
  return ['agent.log', 'verifier.stdout', 'verifier.stderr']
    .map((f) => { const t = readLog(path.join(dir, f)).trim(); return t ? `== ${r.agent} ${f}\n${t}` : ''; })
    .filter(Boolean).join('\n');
}

/** Undefined when validation returned nothing for the task (the caller says whose fault that is). */
export async function validateOne(task: Task, o: ValidateOneOptions): Promise<ValidationOutcome | undefined> {
  const runs = o.runs ?? 2;
  const store = RunStore.create(o.resultsDir, {
    id: newRunId(o.label), kind: 'validate', tasks: [task.dir], attempts: runs, concurrency: o.concurrency ?? 2,
    retries: o.retries ?? 1, startedAt: new Date().toISOString(), pid: process.pid,
  });
  try {
    const [validation] = await validateTasks(o.runtime, store, [{ task, path: task.id }], {
      runs, concurrency: o.concurrency ?? 2, retries: o.retries ?? 1, retryBaseMs: o.retryBaseMs, ...(o.signal ? { signal: o.signal } : {}),
      onOutput: o.onOutput, onProgress: (m, done, total) => o.onProgress?.(`${m} (${done}/${total})`),
    });
    if (!validation) return undefined;
    const failedOf = (agent: string, passed: boolean): TrialRecord | undefined =>
      validation.trials.find((t) => t.agent === agent && t.outcome !== 'infra-error' && (t.outcome === 'passed') === passed);
    return {
      validation,
      logs: {
        build: readLog(path.join(store.dir, 'builds', `${task.id}.log`)),
        oracle: trialLogs(store.dir, failedOf('oracle', false)),
        nop: trialLogs(store.dir, failedOf('nop', true)),
      },
    };
  } finally {
    store.finish({});
  }
}
