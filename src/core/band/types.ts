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
}

export interface ModelBandReport {
  readonly model: string;
  readonly checkpoint?: string;
  readonly meanPassAtK: number | null;
  readonly interval: readonly [number, number] | null;
  readonly counts: Readonly<Record<Band, number>>;
  readonly infraErrors: number;
  readonly tasks: readonly TaskBandRow[];
}

/** `taskwright band --format json` and the band panel's data. */
export interface BandReport {
  readonly version: 1;
  readonly k: number;
  readonly thresholds?: BandThresholds;
  readonly models: readonly ModelBandReport[];
}
