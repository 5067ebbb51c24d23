import type { TimeoutPolicySummary } from '../results/timeoutPolicy';

/** Solvability band of one task for one model. */
export type Band = 'too-easy' | 'in-band' | 'too-hard' | 'broken' | 'insufficient';
export const BANDS: readonly Band[] = ['too-easy', 'in-band', 'too-hard', 'broken', 'insufficient'];

export interface BandThresholds {
  /** pass@k strictly above `low` (and below `high`) is in band; at or below `low` with no success is too hard. */
  readonly low: number;
  /** pass@k at or above `high` is too easy. */
  readonly high: number;
}

export interface TaskBandRow {
  readonly id: string;
  readonly path: string;
  /** Valid attempts (infra errors excluded). */
  readonly attempts: number;
  readonly successes: number;
  readonly infraErrors: number;
  readonly passAt1: number | null;
  readonly passAtK: number | null;
  /** Wilson interval of the success rate. */
  readonly interval?: readonly [number, number];
  readonly band: Band;
  /** Infra errors that may have been the agent's (TB1 `unknown_agent_error`): left out of attempts, shown apart. */
  readonly possiblyInfra?: number;
  /** Trials whose verifier ran out of the task's memory (`verifier-oom`): left out of attempts, flagged on the task. */
  readonly verifierOom?: number;
  /** Attempts still running or still to be retried: pass@k waits until every attempt of the task is in. */
  readonly pending?: boolean;
  /** Why the task is broken (from validation), when it is. */
  readonly brokenReason?: string;
}

export interface ModelBandReport {
  readonly model: string;
  readonly checkpoint?: string;
  readonly meanPassAtK: number | null;
  readonly interval: readonly [number, number] | null;
  readonly counts: Readonly<Record<Band, number>>;
  readonly infraErrors: number;
  readonly tasks: readonly TaskBandRow[];
  /** Agent spec the trials were run with (`anthropic:…`, `harbor:terminus-2`, …). */
  readonly agent?: string;
  /** Where the trials came from: run folders, Harbor job folders, TB1 run folders. */
  readonly sources?: readonly string[];
  /** Share of in-band tasks among the tasks that have a band from rollouts (too-easy, in-band, too-hard). */
  readonly inBandShare?: number | null;
  /** What an agent timeout meant in these trials: `fail`, `verifier`, or `mixed` when records differ. */
  readonly timeoutPolicy?: TimeoutPolicySummary;
}

/** `taskwright band --format json` and the band panel's data. */
export interface BandReport {
  readonly version: 1;
  readonly k: number;
  readonly thresholds?: BandThresholds;
  /** What an agent timeout meant across the report's trials (`mixed` when they differ). */
  readonly timeoutPolicy?: TimeoutPolicySummary;
  readonly models: readonly ModelBandReport[];
  /** Per model with more than one checkpoint: mean pass@k per checkpoint and the saturation flag. */
  readonly series?: readonly CheckpointSeries[];
}

/** Mean pass@k of one model at successive checkpoints (training steps), in checkpoint order. */
export interface CheckpointPoint {
  readonly checkpoint: string;
  readonly meanPassAtK: number | null;
  readonly interval: readonly [number, number] | null;
  readonly inBandShare: number | null;
  readonly counts: Readonly<Record<Band, number>>;
}

export interface SaturationRule {
  /** Saturated when mean pass@k is above this … */
  readonly meanAbove: number;
  /** … or the in-band share is below this … */
  readonly inBandBelow: number;
  /** … at each of the last `window` checkpoints. */
  readonly window: number;
}

export interface CheckpointSeries {
  readonly model: string;
  readonly points: readonly CheckpointPoint[];
  readonly saturated: boolean;
  /** Human-readable reason when saturated. */
  readonly reason?: string;
  readonly rule: SaturationRule;
}
