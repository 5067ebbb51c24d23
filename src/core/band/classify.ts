import type { Band, BandThresholds } from './types';

/**
 * Default band thresholds, on a task's success rate over its valid attempts (the unbiased pass@1):
 * no success (or a rate at or below `low`) is too hard, every attempt succeeding (a rate at or above
 * `high`) is too easy, anything between is in band. With n = k = 2 that is exactly 0/2 too hard,
 * 1/2 in band, 2/2 too easy. Thresholds apply to the rate, not to pass@k: pass@2 of a 1-of-2 task is
 * already 1, so a pass@k upper threshold could not tell "sometimes" from "always".
 */
export const DEFAULT_BAND_THRESHOLDS: BandThresholds = { low: 0, high: 1 };

export const DEFAULT_K = 2;

export interface BandInput {
  readonly attempts: number;
  readonly successes: number;
  readonly pending?: boolean;
  readonly broken?: boolean;
}

/** The band of one task for one model. Broken wins (validation says the task itself is wrong). */
export function classifyBand(t: BandInput, k: number, th: BandThresholds = DEFAULT_BAND_THRESHOLDS): Band {
  if (t.broken) return 'broken';
  if (t.pending || t.attempts < k || t.attempts === 0) return 'insufficient';
  const rate = t.successes / t.attempts;
  if (t.successes === 0 || rate <= th.low) return 'too-hard';
  if (rate >= th.high) return 'too-easy';
  return 'in-band';
}

/** Parses `LOW,HIGH` (fractions or percentages) as given to `--band`. */
export function parseThresholds(text: string): BandThresholds {
  const parts = text.split(',').map((s) => s.trim());
  const nums = parts.map((p) => (p.endsWith('%') ? Number(p.slice(0, -1)) / 100 : Number(p)));
  if (parts.length !== 2 || nums.some((n) => !Number.isFinite(n) || n < 0 || n > 1)) {
    throw new RangeError(`band thresholds are LOW,HIGH between 0 and 1 (got '${text}')`);
  }
  const [low, high] = nums as [number, number];
  if (low >= high) throw new RangeError(`band LOW must be below HIGH (got '${text}')`);
  return { low, high };
}
