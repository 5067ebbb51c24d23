/**
 * The estimators behind the band: unbiased pass@k, the Wilson score interval, and a seeded bootstrap.
 * Pure functions over counts, so they are tested against brute-force enumeration.
 */

/**
 * Unbiased pass@k (Chen et al., 2021): 1 − C(n−c, k) / C(n, k) for n attempts with c successes.
 * Computed as 1 − ∏_{i=n−c+1..n} (1 − k/i), which never forms the (huge) binomials, so it stays exact
 * to float precision for any n. Null when fewer than k attempts exist (the estimator is undefined).
 */
export function passAtK(n: number, c: number, k: number): number | null {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`passAtK needs integers 0 ≤ c ≤ n and k ≥ 1 (got n=${n}, c=${c}, k=${k})`);
  }
  if (n < k) return null;
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/** Wilson score interval for a success rate of c out of n at the given z (1.96 ≈ 95%); null when n = 0. */
export function wilsonInterval(c: number, n: number, z = 1.96): [number, number] | null {
  if (n <= 0) return null;
  const p = c / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** mulberry32: a small, fast, seedable PRNG so bootstrap intervals are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Linear-interpolated quantile of sorted values (q in [0,1]). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export interface BootstrapOptions {
  readonly resamples?: number;
  readonly seed?: number;
  /** Two-sided confidence level. */
  readonly level?: number;
}

export const DEFAULT_BOOTSTRAP = { resamples: 2000, seed: 20240601, level: 0.95 } as const;

/**
 * Percentile bootstrap interval of the mean: tasks are resampled with replacement, which is the
 * uncertainty that matters for "mean pass@k over this task set". Null without values.
 */
export function bootstrapMeanInterval(values: readonly number[], options: BootstrapOptions = {}): [number, number] | null {
  if (values.length === 0) return null;
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP.resamples;
  const level = options.level ?? DEFAULT_BOOTSTRAP.level;
  const rand = seededRandom(options.seed ?? DEFAULT_BOOTSTRAP.seed);
  const n = values.length;
  const means = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(rand() * n)]!;
    means[r] = s / n;
  }
  means.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  return [quantileSorted(means, alpha), quantileSorted(means, 1 - alpha)];
}
