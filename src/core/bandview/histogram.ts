import type { Band } from '../band/types';
import { emptyCounts } from './classify';

export interface HistogramBin {
  readonly from: number;
  /** Exclusive, except the last bin which holds 1.0. */
  readonly to: number;
  readonly total: number;
  /** Tasks of each band in this bin, so the histogram can be stacked by band. */
  readonly byBand: Readonly<Record<Band, number>>;
}

/**
 * Bins per-task success rates in [0,1] into `binCount` equal bins (the last one closed at 1).
 * Tasks without a rate (no valid attempt: null or NaN) are counted in `missing`, not in a bin.
 */
export function binRates(rates: ArrayLike<number | null>, bands: readonly Band[], binCount: number): { bins: HistogramBin[]; missing: number; max: number } {
  if (!Number.isInteger(binCount) || binCount < 1) throw new RangeError(`binCount must be a positive integer (got ${binCount})`);
  const totals = new Array<number>(binCount).fill(0);
  const byBand = Array.from({ length: binCount }, () => emptyCounts());
  let missing = 0;
  for (let i = 0; i < rates.length; i++) {
    const r = rates[i];
    if (r === null || r === undefined || !Number.isFinite(r)) { missing++; continue; }
    const idx = binIndex(r, binCount);
    totals[idx]!++;
    byBand[idx]![bands[i] ?? 'insufficient']++;
  }
  const bins = totals.map((total, i) => ({ from: i / binCount, to: (i + 1) / binCount, total, byBand: byBand[i]! }));
  return { bins, missing, max: Math.max(0, ...totals) };
}

/** Bin of a rate: rates are clamped to [0,1]; exactly 1 falls in the last bin. */
export function binIndex(rate: number, binCount: number): number {
  const r = Math.min(1, Math.max(0, rate));
  return Math.min(binCount - 1, Math.floor(r * binCount + 1e-9));
}

/**
 * A bin count that does not split the few distinct rates small attempt counts produce: with n attempts
 * rates are multiples of 1/n, so n+1 bins centred on them read best; larger n get 20 bins.
 */
export function suggestedBins(maxAttempts: number): number {
  return maxAttempts >= 1 && maxAttempts <= 10 ? maxAttempts + 1 : 20;
}

