import { checkpointSeries, DEFAULT_SATURATION } from './checkpoints';
import { DEFAULT_BAND_THRESHOLDS, DEFAULT_K } from './classify';
import { tallyRecords } from './fromRecords';
import { bandReport } from './report';
import { loadResults } from './sources';
import type { BandReport, BandThresholds, SaturationRule } from './types';

export interface ComputeBandOptions {
  readonly k?: number;
  readonly thresholds?: BandThresholds;
  readonly model?: string;
  readonly checkpoint?: string;
  readonly saturation?: SaturationRule;
}

export interface ComputedBand {
  readonly report: BandReport;
  readonly warnings: readonly string[];
  /** Trials read (rollouts only); 0 means nothing to report yet. */
  readonly trials: number;
  /** Some run or job is still going: numbers will change. */
  readonly live: boolean;
}

/**
 * The one way a band report is made from results paths — `taskwright band`, the band panel and the
 * editor's import all call this, so they show the same numbers. Checkpoint series are attached when
 * any model carries checkpoint labels.
 */
export function computeBand(paths: readonly string[], options: ComputeBandOptions = {}): ComputedBand {
  const loaded = loadResults(paths);
  const models = tallyRecords(loaded.sets, {
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
  });
  const base = bandReport(models, { k: options.k ?? DEFAULT_K, thresholds: options.thresholds ?? DEFAULT_BAND_THRESHOLDS, broken: loaded.broken });
  const series = checkpointSeries(base.models, options.saturation ?? DEFAULT_SATURATION);
  const trials = loaded.sets.reduce((s, set) => s + set.records.length, 0);
  const warnings = [...loaded.warnings];
  if (trials === 0) warnings.push('no rollout trials found in the given paths');
  return {
    report: series.length ? { ...base, series } : base,
    warnings,
    trials,
    live: loaded.sets.some((set) => !set.finished),
  };
}
