import type { Finding } from '../model/finding';
import type { TrialRecord } from '../results/trial';

export type CheckName = 'build' | 'nop' | 'oracle' | 'agreement' | 'reward-isolation' | 'timeout-margin';
export const CHECK_NAMES: readonly CheckName[] = ['build', 'nop', 'oracle', 'agreement', 'reward-isolation', 'timeout-margin'];
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
}

export interface ValidationReport {
  readonly runDir: string;
  readonly tasks: readonly TaskValidation[];
}
