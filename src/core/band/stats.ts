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
 * Percentile bootstrap interval of the mean (tasks resampled with replacement). Not what the band
 * reports (see meanPassAtKInterval: at a few dozen tasks, or with tasks near 0 or 1, it covers far less
 * than 95%); kept as the reference the unit tests compare against. Null without values.
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

/**
 * The interval of a model's **mean pass@k** over tasks — the number the band panel and `taskwright band`
 * show — at the given z (1.96 ≈ 95%). Null without values.
 *
 * Method: the Wilson score interval of the mean with Kish's effective sample size,
 * n_eff = m(1 − m) / (s² / T) for T per-task pass@k values with mean m and sample variance s²
 * (Korn & Graubard's approach to proportions from clustered samples). Why this one:
 * - It is the interval of the quantity shown: the mean of per-task unbiased pass@k values, each in
 *   [0, 1]. Its variance s²/T is estimated from the tasks, so it counts both the choice of tasks and
 *   each task's few attempts (attempts are nested in tasks: the tasks' spread already holds the
 *   attempt noise, the way a cluster bootstrap resamples only the clusters).
 * - With pass@k in {0, 1} (k = attempts, the usual pass@2 of 2 attempts) n_eff ≈ T and this is the
 *   Wilson interval of "tasks solved out of T", the same interval each task row shows for its attempts.
 * - It never collapses to a point: when every task sits at 0 or 1 (s² = 0) n_eff falls back to T, the
 *   Bernoulli worst case, so 10 tasks all solved read [72%, 100%], not [100%, 100%].
 * - At small T or near 0 and 1 a percentile bootstrap over tasks covers far less than 95% (simulated
 *   in test/unit/band.test.ts: 37% for 10 easy tasks), while this stays near 95% at every size; at
 *   thousands of tasks both give the same width. It is also O(T), where a 2,000-resample bootstrap
 *   of 10,000 tasks costs 20 million draws on every live update.
 */
export function meanPassAtKInterval(values: readonly number[], z = 1.96): [number, number] | null {
  const t = values.length;
  if (t === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  const m = sum / t;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  const s2 = t > 1 ? ss / (t - 1) : 0;
  const nEff = s2 > 0 && m > 0 && m < 1 ? Math.max(1, (m * (1 - m) * t) / s2) : t;
  const z2 = z * z;
  const denom = 1 + z2 / nEff;
  const centre = (m + z2 / (2 * nEff)) / denom;
  const half = (z * Math.sqrt((m * (1 - m)) / nEff + z2 / (4 * nEff * nEff))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
