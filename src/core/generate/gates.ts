import type { Agent } from '../agents/agent';
import { auditTask } from '../audit/index';
import { classifyBand, DEFAULT_K } from '../band/classify';
import type { Band } from '../band/types';
import type { Finding } from '../model/finding';
import type { Task } from '../model/task';
import { newRunId, RunStore } from '../results/store';
import type { TrialRecord } from '../results/trial';
import { TrialRunner } from '../sandbox/runner';
import type { ContainerRuntime } from '../sandbox/runtime';
import type { CheckName } from '../validate/types';
import { validateOne, type ValidationOutcome } from '../validate/validateOne';
import type { GateFailure, GateName, GateProgress } from './types';

export type { ValidationOutcome } from '../validate/validateOne';

export interface CalibrationOutcome {
  readonly band: Band;
  readonly attempts: number;
  readonly successes: number;
}

/** The gates a draft passes through; Docker-backed in production, scripted in unit tests. */
export interface Gates {
  audit(task: Task, signal: AbortSignal): Promise<Finding[]>;
  validate(task: Task, signal: AbortSignal, onProgress?: (message: string) => void): Promise<ValidationOutcome>;
  calibrate?(task: Task, signal: AbortSignal, onProgress?: (message: string) => void): Promise<CalibrationOutcome>;
}

/** Thrown when a gate could not decide because the infrastructure failed (not the task's fault). */
export class InfraGateError extends Error {}

export interface DockerGatesOptions {
  readonly runtime: ContainerRuntime;
  /** Results store for validation and calibration runs. */
  readonly resultsDir: string;
  /** nop and oracle trials per task (default 2: agreement needs two). */
  readonly runs?: number;
  readonly retries?: number;
  readonly retryBaseMs?: number;
  readonly concurrency?: number;
  /** Policy for calibration (pass@2). */
  readonly policy?: Agent;
  readonly onOutput?: (text: string) => void;
}

/** The real gates: the static audit, then build + validate (and optionally pass@2) in Docker. */
export function dockerGates(o: DockerGatesOptions): Gates {
  return {
    audit: (task, signal) => auditTask(task, { signal }),
    async validate(task, signal, onProgress) {
      const outcome = await validateOne(task, {
        runtime: o.runtime, resultsDir: o.resultsDir, label: 'generate-validate', signal,
        ...(o.runs !== undefined ? { runs: o.runs } : {}), ...(o.retries !== undefined ? { retries: o.retries } : {}),
        ...(o.retryBaseMs !== undefined ? { retryBaseMs: o.retryBaseMs } : {}), ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
        ...(o.onOutput ? { onOutput: o.onOutput } : {}), ...(onProgress ? { onProgress } : {}),
      });
      if (!outcome) throw new InfraGateError(`validation of ${task.id} returned nothing`);
      return outcome;
    },
    ...(o.policy ? {
      async calibrate(task: Task, signal: AbortSignal, onProgress?: (message: string) => void): Promise<CalibrationOutcome> {
        const policy = o.policy as Agent;
        const store = RunStore.create(o.resultsDir, {
          id: newRunId('generate-calibrate'), kind: 'run', agent: policy.spec, ...(policy.model ? { model: policy.model } : {}),
          tasks: [task.dir], attempts: DEFAULT_K, concurrency: 1, retries: o.retries ?? 1, startedAt: new Date().toISOString(), pid: process.pid,
        });
        const runner = new TrialRunner({ runtime: o.runtime }, store);
        const jobs = Array.from({ length: DEFAULT_K }, (_, i) => ({ task, taskPath: task.id, agent: policy, attempt: i + 1 }));
        const results = await runner.runAll(jobs, {
          concurrency: 1, retries: o.retries ?? 1, retryBaseMs: o.retryBaseMs, signal, onOutput: o.onOutput,
          onTrial: (r) => onProgress?.(`${policy.spec} attempt ${r.record.attempt} → ${r.record.outcome}`),
        });
        store.finish({});
        // Each attempt's last try carries its verdict; infra errors and cancellations are not attempts.
        const finals = results.map((rs) => rs[rs.length - 1]?.record).filter((r): r is TrialRecord => !!r && r.outcome !== 'infra-error' && r.outcome !== 'cancelled');
        const successes = finals.filter((r) => r.outcome === 'passed').length;
        return { band: classifyBand({ attempts: finals.length, successes }, DEFAULT_K), attempts: finals.length, successes };
      },
    } : {}),
  };
}

const CHECK_GATES: readonly { check: CheckName; gate: GateName }[] = [
  { check: 'build', gate: 'build' },
  { check: 'oracle', gate: 'oracle' },
  { check: 'nop', gate: 'nop' },
  { check: 'agreement', gate: 'agreement' },
  { check: 'reward-isolation', gate: 'reward-isolation' },
];

/**
 * Reads a validation as gate progress and the first failed gate. `timeout-margin` is advice, not a
 * gate. A check in `error` (no trial gave a verdict: infrastructure) is thrown as InfraGateError,
 * since repairing the task cannot fix the engine.
 */
export function judgeValidation(v: ValidationOutcome): { progress: GateProgress; failure?: GateFailure } {
  const status = (name: CheckName): string => v.validation.checks.find((c) => c.name === name)?.status ?? 'skipped';
  const ok = (name: CheckName): boolean => status(name) === 'pass' || (status(name) === 'skipped' && name !== 'build' && name !== 'oracle' && name !== 'nop');
  const built = status('build') === 'pass';
  const progress: GateProgress = {
    auditClean: true,
    built,
    oraclePasses: built && ok('oracle'),
    nopFails: built && ok('nop'),
    stable: built && ok('oracle') && ok('nop') && ok('agreement') && ok('reward-isolation'),
  };
  for (const { check, gate } of CHECK_GATES) {
    const s = status(check);
    if (s === 'error') throw new InfraGateError(`${check}: ${v.validation.checks.find((c) => c.name === check)?.detail ?? 'no verdict'}`);
    if (s === 'fail' || ((check === 'build' || check === 'oracle' || check === 'nop') && s !== 'pass')) {
      const c = v.validation.checks.find((x) => x.name === check);
      return {
        progress,
        failure: {
          gate, summary: c?.detail ?? `${check} did not pass`,
          findings: v.validation.findings, checks: v.validation.checks,
          ...(v.logs[check] ? { logs: v.logs[check] } : {}),
        },
      };
    }
  }
  return { progress };
}
