import { summarizePolicies, type TimeoutPolicySummary } from '../results/timeoutPolicy';
import { classifyBand, DEFAULT_BAND_THRESHOLDS, DEFAULT_K } from './classify';
import { mean, meanPassAtKInterval, passAtK, wilsonInterval } from './stats';
import { BANDS, type Band, type BandReport, type BandThresholds, type ModelBandReport, type TaskBandRow } from './types';

/** Everything the report needs about one task under one model, counted from its trials. */
export interface TaskTally {
  readonly id: string;
  readonly path: string;
  /** Valid attempts: attempts whose last try reached a verdict (infra errors and cancellations are not attempts). */
  readonly attempts: number;
  readonly successes: number;
  /** Every infra-error trial, retried ones included. */
  readonly infraErrors: number;
  readonly possiblyInfra: number;
  /** Trials whose verifier the engine OOM-killed: not attempts; the task's memory limit is too tight. */
  readonly verifierOom?: number;
  /** Some attempt is not in yet (running, awaiting an infra retry, or cut short by a cancel). */
  readonly pending: boolean;
}

export interface ModelTally {
  readonly model: string;
  readonly checkpoint?: string;
  readonly agent?: string;
  readonly sources: readonly string[];
  /** What an agent timeout meant in the trials counted (`mixed` when their records differ). */
  readonly timeoutPolicy?: TimeoutPolicySummary;
  readonly tasks: readonly TaskTally[];
}

/** Broken tasks from validation, by id or path, with the reason shown in the report. */
export type BrokenTasks = ReadonlyMap<string, string>;

export interface BandOptions {
  readonly k?: number;
  readonly thresholds?: BandThresholds;
  readonly broken?: BrokenTasks;
}

export function emptyBandCounts(): Record<Band, number> {
  return Object.fromEntries(BANDS.map((b) => [b, 0])) as Record<Band, number>;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function brokenReason(t: TaskTally, broken?: BrokenTasks): string | undefined {
  if (!broken) return undefined;
  // The path first: two tasks may share a folder name (and so an id).
  return broken.get(t.path) ?? broken.get(t.id);
}

export function taskRow(t: TaskTally, k: number, th: BandThresholds, broken?: BrokenTasks): TaskBandRow {
  const reason = brokenReason(t, broken);
  const complete = !t.pending;
  const interval = wilsonInterval(t.successes, t.attempts);
  return {
    id: t.id,
    path: t.path,
    attempts: t.attempts,
    successes: t.successes,
    infraErrors: t.infraErrors,
    passAt1: complete && t.attempts > 0 ? passAtK(t.attempts, t.successes, 1) : null,
    passAtK: complete ? passAtK(t.attempts, t.successes, k) : null,
    ...(interval ? { interval } : {}),
    band: classifyBand({ attempts: t.attempts, successes: t.successes, pending: t.pending, broken: reason !== undefined }, k, th),
    ...(t.possiblyInfra > 0 ? { possiblyInfra: t.possiblyInfra } : {}),
    ...(t.verifierOom ? { verifierOom: t.verifierOom } : {}),
    ...(t.pending ? { pending: true } : {}),
    ...(reason !== undefined ? { brokenReason: reason } : {}),
  };
}

/**
 * One model's report: per-task rows and, over the tasks with at least k valid attempts (all in),
 * the mean pass@k with its interval (meanPassAtKInterval: Wilson with the tasks' effective sample size).
 */
export function modelReport(m: ModelTally, options: BandOptions = {}): ModelBandReport {
  const k = options.k ?? DEFAULT_K;
  const th = options.thresholds ?? DEFAULT_BAND_THRESHOLDS;
  const rows = [...m.tasks].sort((a, b) => collator.compare(a.id, b.id) || collator.compare(a.path, b.path))
    .map((t) => taskRow(t, k, th, options.broken));
  const counts = emptyBandCounts();
  for (const r of rows) counts[r.band]++;
  const scored = rows.map((r) => r.passAtK).filter((p): p is number => p !== null);
  const rolled = counts['too-easy'] + counts['in-band'] + counts['too-hard'];
  return {
    model: m.model,
    ...(m.checkpoint !== undefined ? { checkpoint: m.checkpoint } : {}),
    meanPassAtK: mean(scored),
    interval: meanPassAtKInterval(scored),
    counts,
    infraErrors: rows.reduce((s, r) => s + r.infraErrors, 0),
    tasks: rows,
    ...(m.agent !== undefined ? { agent: m.agent } : {}),
    sources: m.sources,
    ...(m.timeoutPolicy !== undefined ? { timeoutPolicy: m.timeoutPolicy } : {}),
    inBandShare: rolled > 0 ? counts['in-band'] / rolled : null,
  };
}

export function bandReport(models: readonly ModelTally[], options: BandOptions = {}): BandReport {
  const k = options.k ?? DEFAULT_K;
  const thresholds = options.thresholds ?? DEFAULT_BAND_THRESHOLDS;
  const sorted = [...models].sort((a, b) => collator.compare(a.model, b.model) || collator.compare(a.checkpoint ?? '', b.checkpoint ?? ''));
  const reports = sorted.map((m) => modelReport(m, { ...options, k, thresholds }));
  // One policy across the report, or `mixed`: a band over trials graded two ways says so at the top.
  const policy = reports.some((m) => m.timeoutPolicy === 'mixed') ? 'mixed' : summarizePolicies(reports.flatMap((m) => (m.timeoutPolicy && m.timeoutPolicy !== 'mixed' ? [m.timeoutPolicy] : [])));
  return { version: 1, k, thresholds, ...(policy ? { timeoutPolicy: policy } : {}), models: reports };
}
