import { DEFAULT_MAX_INFRA_RATE } from '../results/infraRate';
import type { RunParameters, ValidateSettings } from '../results/store';
import type { TrialRecord } from '../results/trial';
import { openLedger, type OwnerDeps, type ResumeSession, type RunTasks } from '../sandbox/resume';
import type { ContainerRuntime } from '../sandbox/runtime';
import { ValidationLedger } from './ledger';
import { DEFAULT_MUTANTS, type ValidateOptions, type ValidateTarget } from './validate';

/**
 * `validate --resume` (the CLI's and the editor's): the run's own options from its run.json, its
 * tasks as it recorded them, and its ledger as `prior`, so `validateTasks` runs only the checks
 * that have no verdict yet. Taking the run over (owner gone, lock, lease, containers, torn line,
 * recovered verdicts) is `openLedger`'s, shared with `run --resume`.
 */
export const DEFAULT_SEED = 20240601;

/** The options of a fresh validation as run.json keeps them. */
export function validateSettings(o: Pick<ValidateOptions, 'probes' | 'onlyProbes' | 'mutants' | 'behaviour' | 'seed'>): ValidateSettings {
  return {
    probes: o.probes !== false, ...(o.onlyProbes ? { onlyProbes: [...o.onlyProbes] } : {}), mutants: o.mutants ?? DEFAULT_MUTANTS,
    behaviour: o.behaviour !== false, seed: o.seed ?? DEFAULT_SEED,
  };
}

/** What decides a resumed validation's checks, from its run.json (not from this invocation). */
export type ResumedOptions = Pick<ValidateOptions, 'runs' | 'retries' | 'probes' | 'onlyProbes' | 'mutants' | 'behaviour' | 'seed'> & { readonly maxInfraRate: number };

export function resumedOptions(params: RunParameters): ResumedOptions {
  const v = params.validate;
  return {
    runs: params.attempts ?? 3, retries: params.retries, probes: v?.probes !== false, ...(v?.onlyProbes ? { onlyProbes: v.onlyProbes } : {}),
    mutants: v?.mutants ?? DEFAULT_MUTANTS, behaviour: v?.behaviour !== false, seed: v?.seed ?? DEFAULT_SEED,
    maxInfraRate: params.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE,
  };
}

/** The run's tasks in its own order, each labelled with its path as the records have it. */
export function resumeTargets(params: RunParameters, loaded: RunTasks): ValidateTarget[] {
  return params.tasks.map((rel) => {
    const task = loaded.tasks.get(rel);
    if (!task) throw new Error(`task ${rel} of run ${params.id} was not loaded`);
    return { task, path: rel };
  });
}

/** The nop and oracle checks without a verdict (the snapshot checks are planned as the run goes). */
export function checksWithoutVerdict(params: RunParameters, ledger: readonly TrialRecord[]): number {
  const l = new ValidationLedger(ledger);
  let n = 0;
  for (const task of params.tasks) {
    for (let a = 1; a <= (params.attempts ?? 0); a++) for (const check of ['nop', 'oracle']) if (!l.state(task, check, a).reached) n++;
  }
  return n;
}

export interface ValidationResume {
  readonly session: ResumeSession;
  readonly targets: readonly ValidateTarget[];
  readonly options: ResumedOptions & { readonly prior: readonly TrialRecord[] };
  /** nop and oracle checks still without a verdict when the resume began. */
  readonly remaining: number;
}

/**
 * Takes the run over and marks it live again (`beginResume`); the caller runs
 * `validateTasks(runtime, session.store, targets, { ...options, … })` and releases the session.
 */
export async function openValidationResume(runtime: ContainerRuntime, runDir: string, loaded: RunTasks, deps?: OwnerDeps): Promise<ValidationResume> {
  const session = await openLedger(runtime, runDir, 'validate', deps);
  try {
    const { params, ledger } = session;
    const targets = resumeTargets(params, loaded);
    const remaining = checksWithoutVerdict(params, ledger);
    session.store.beginResume({
      startedAt: new Date().toISOString(), pid: process.pid, remaining, ...(loaded.changed.length ? { changedTasks: loaded.changed } : {}),
    }, loaded.changed.length ? loaded.changedDigests : undefined);
    return { session, targets, options: { ...resumedOptions(params), prior: ledger }, remaining };
  } catch (e) {
    session.release();
    throw e;
  }
}
