import type { BaselineEntry, BaselineState } from '../../core/audit/baseline';
import type { Convention, ConventionCounter } from '../../core/audit/conventions';
import type { FingerprintedFinding } from '../../core/audit/fingerprint';
import type { TaskFormat } from '../../core/model/task';

/** A finding as reported: its fingerprint, and its baseline state when a baseline was given. */
export interface ReportFinding extends FingerprintedFinding {
  readonly baseline?: BaselineState;
}

/** One task as the writers get it, in output order (spooled between the two passes). */
export interface ReportTask {
  /** As the user gave it (relative to the working directory, or absolute); POSIX separators. */
  readonly path: string;
  /** Relative to the SARIF source root (POSIX). */
  readonly rel: string;
  readonly dataset: string;
  readonly id: string;
  readonly format: TaskFormat;
  readonly configFile: string;
  readonly findings: readonly ReportFinding[];
}

/** What the first pass learnt about the whole run, known before the first task is written. */
export interface RunSummary {
  readonly tasks: number;
  readonly conventions: ConventionCounter;
  readonly usedRules: ReadonlySet<string>;
  /** Baseline entries no finding matched (only with --baseline). */
  readonly absent: readonly BaselineEntry[] | undefined;
  /** The baseline's folder relative to the SARIF root (for absent results), when inside it. */
  readonly baselineRel: string | undefined;
  readonly baselined: number;
}

export interface WriterOptions {
  readonly expand: boolean;
  readonly docsUrl: string;
  readonly version: string;
  readonly sarifRoot: string;
}

/** Streams one report: `task` is called once per task in order, between `begin` and `end`. */
export interface ReportWriter {
  task(t: ReportTask): void;
  end(): void;
}

export type { Convention };
