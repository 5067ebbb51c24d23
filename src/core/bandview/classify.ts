import { DEFAULT_BAND_THRESHOLDS, classifyBand } from '../band/classify';
import { BANDS, type Band, type BandThresholds, type TaskBandRow } from '../band/types';
import { BROKEN, type ColumnModel, type TaskColumns } from './columns';

/** The thresholds a report was classified with when it does not say (the band engineer's defaults). */
export const DEFAULT_THRESHOLDS: BandThresholds = DEFAULT_BAND_THRESHOLDS;

export const BAND_LABELS: Readonly<Record<Band, string>> = {
  'too-easy': 'too easy',
  'in-band': 'in band',
  'too-hard': 'too hard',
  broken: 'broken',
  insufficient: 'insufficient',
};

/** Per-task success rate over valid attempts (infra errors are not attempts); null without attempts. */
export function successRate(row: Pick<TaskBandRow, 'attempts' | 'successes'>): number | null {
  return row.attempts > 0 ? row.successes / row.attempts : null;
}

/** Every task's success rate (NaN without valid attempts), the quantity the histogram and scatter show. */
export function successRates(c: TaskColumns): Float64Array {
  const out = new Float64Array(c.length);
  for (let i = 0; i < c.length; i++) out[i] = c.attempts[i]! > 0 ? c.successes[i]! / c.attempts[i]! : NaN;
  return out;
}

/**
 * The band of one task at the given thresholds, by the same rule as `taskwright band` (classifyBand):
 * on the per-task success rate — the quantity the histogram shows — so a threshold line drawn on the
 * histogram splits exactly the tasks it re-bands. `broken` comes from validation and `insufficient`
 * from the attempt count (or attempts still pending); thresholds move neither.
 */
export function classifyAt(row: TaskBandRow, k: number, t: BandThresholds): Band {
  return classifyBand({ attempts: row.attempts, successes: row.successes, pending: row.pending === true, broken: row.band === 'broken' }, k, t);
}

export function emptyCounts(): Record<Band, number> {
  return { 'too-easy': 0, 'in-band': 0, 'too-hard': 0, broken: 0, insufficient: 0 };
}

export interface ClassifiedModel {
  readonly key: string;
  readonly source: ColumnModel;
  /** Band of each task at the current thresholds, same order as `source.tasks`. */
  readonly bands: readonly Band[];
  readonly counts: Readonly<Record<Band, number>>;
  /** Infra errors summed over the model's tasks (never mixed into the bands). */
  readonly infraErrors: number;
  /** Tasks with a pass@k (all of at least k valid attempts in): the tasks mean pass@k is over. */
  readonly scored: number;
}

/**
 * Re-classifies every task of a model. With `thresholds` equal to the report's own, the report's
 * bands are kept as written (the CLI is the reference); only moved thresholds re-band.
 */
export function classifyModel(key: string, m: ColumnModel, k: number, t: BandThresholds, reportT: BandThresholds): ClassifiedModel {
  const same = t.low === reportT.low && t.high === reportT.high;
  const c = m.tasks;
  const bands = new Array<Band>(c.length);
  const counts = emptyCounts();
  let scored = 0;
  for (let i = 0; i < c.length; i++) {
    const b = same ? BANDS[c.band[i]!]! : classifyBand({ attempts: c.attempts[i]!, successes: c.successes[i]!, pending: c.pending[i] === 1, broken: c.band[i] === BROKEN }, k, t);
    bands[i] = b;
    counts[b]++;
    if (!Number.isNaN(c.passAtK[i]!)) scored++;
  }
  return { key, source: m, bands, counts, infraErrors: m.infraErrors, scored };
}

export function totalCount(counts: Readonly<Record<Band, number>>): number {
  return BANDS.reduce((s, b) => s + counts[b], 0);
}
