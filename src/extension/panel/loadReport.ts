// No vscode import: the panel's data path is plain core code, tested in plain Node.
import { bandReport, checkpointSeries, loadResults, tallyRecords } from '../../core/band/index';
import type { BandReport, BandThresholds } from '../../core/band/types';

export interface LoadedBandReport {
  readonly report: BandReport;
  readonly warnings: readonly string[];
  /** Trials read; 0 means the folder holds no rollouts yet. */
  readonly trials: number;
  /** Some run is still going (its run.json has no finishedAt): results are still streaming in. */
  readonly live: boolean;
}

/**
 * The band report of results paths (run folders, a `.taskwright/runs` folder, Harbor jobs, TB1 runs),
 * exactly as `taskwright band --format json` computes it, with the checkpoint series attached.
 */
export function reportFromResults(paths: readonly string[], opts: { k?: number; thresholds?: BandThresholds } = {}): LoadedBandReport {
  const loaded = loadResults(paths);
  const tallies = tallyRecords(loaded.sets);
  const base = bandReport(tallies, { ...opts, broken: loaded.broken });
  const series = checkpointSeries(base.models);
  return {
    report: series.length > 0 && base.series === undefined ? { ...base, series } : base,
    warnings: loaded.warnings,
    trials: loaded.sets.reduce((s, set) => s + set.records.length, 0),
    live: loaded.sets.some((set) => !set.finished),
  };
}
