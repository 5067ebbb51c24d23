import type { Finding } from '../model/finding';
import type { TrialRecord } from '../results/trial';
import type { MutationSummary } from './behaviourAnalysis';

export type { MutationSummary } from './behaviourAnalysis';

export type CheckName = 'build' | 'nop' | 'oracle' | 'agreement' | 'reward-isolation' | 'timeout-margin'
  | 'mutants' | 'environment' | 'test-order' | 'stale-state';
export const CHECK_NAMES: readonly CheckName[] = ['build', 'nop', 'oracle', 'agreement', 'reward-isolation', 'timeout-margin', 'mutants', 'environment', 'test-order', 'stale-state'];
export type CheckStatus = 'pass' | 'fail' | 'error' | 'skipped';
export type ValidationVerdict = 'valid' | 'invalid' | 'misaligned' | 'brittle' | 'infra-error';

export interface CheckResult {
  readonly name: CheckName;
  readonly status: CheckStatus;
  /** Trials that gave a verdict for this check (infra errors excluded). */
  readonly runs: number;
  readonly detail: string;
}

export interface TaskValidation {
  readonly path: string;
  readonly id: string;
  readonly verdict: ValidationVerdict;
  readonly checks: readonly CheckResult[];
  /** Dynamic findings, in the audit's shape, on the file that should change. */
  readonly findings: readonly Finding[];
  readonly trials: readonly TrialRecord[];
  /** Output mutants run from the solved snapshot (absent when none ran). */
  readonly mutants?: MutationSummary;
  /** Every cheat probe that ran, with the reward it got (null: no verdict). */
  readonly probes?: readonly ProbeResult[];
  /** Observed flip rate of identical runs, with its 95% Wilson interval. */
  readonly flake?: Readonly<Record<'oracle' | 'nop', FlakeRate>>;
}

export interface ProbeResult {
  readonly name: string;
  readonly description: string;
  readonly reward: number | null;
  readonly outcome: string;
}

export interface FlakeRate {
  readonly runs: number;
  /** Runs whose verdict differs from the expected one (oracle: not passed; nop: passed). */
  readonly flips: number;
  readonly rate: number;
  readonly low: number;
  readonly high: number;
}

export interface ValidationReport {
  readonly runDir: string;
  readonly tasks: readonly TaskValidation[];
}
