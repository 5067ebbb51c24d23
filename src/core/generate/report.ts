import path from 'node:path';
import type { GenerateRequest, TaskAttempt, TaskOutcome, Usage } from './types';
import { ZERO_USAGE, addUsage } from './types';

/** How many tasks reached each stage (a task counts at the furthest its final round got). */
export interface YieldCounts {
  readonly requested: number;
  readonly generated: number;
  readonly auditClean: number;
  readonly built: number;
  readonly oraclePasses: number;
  readonly nopFails: number;
  readonly stable: number;
  /** Only when calibrated. */
  readonly inBand?: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly errors: number;
  readonly cancelled: number;
}

/** The yield report of one request: `taskwright generate --format-report json`. */
export interface YieldReport {
  readonly version: 1;
  readonly request: {
    readonly topic: string; readonly count: number; readonly format: string; readonly difficulty: string;
    readonly model: string; readonly rounds: number; readonly batch: boolean; readonly calibrate?: string;
  };
  readonly counts: YieldCounts;
  /** Generation rounds spent over all tasks (first rounds included). */
  readonly roundsUsed: number;
  readonly tokens: Usage;
  /** USD at the model's list price (batch rounds at half), null when the model has no public price. */
  readonly costUsd: number | null;
  readonly tasks: readonly {
    readonly slot: number; readonly id: string | null; readonly outcome: TaskOutcome; readonly rounds: number;
    readonly dir: string | null; readonly reasons: readonly string[]; readonly failedGates: readonly string[];
    readonly tokens: Usage; readonly costUsd: number | null;
  }[];
}

/** Builds the report; `relativeTo` makes folders relative (to the current folder, for people). */
export function buildReport(req: GenerateRequest, attempts: readonly TaskAttempt[], relativeTo?: string): YieldReport {
  const count = (pred: (a: TaskAttempt) => boolean): number => attempts.filter(pred).length;
  const tokens = attempts.reduce((u, a) => addUsage(u, a.usage), ZERO_USAGE);
  const priced = attempts.filter((a) => a.usage.input + a.usage.output > 0);
  const costKnown = priced.every((a) => a.costUsd !== undefined);
  const rel = (d: string | undefined): string | null => (d === undefined ? null : relativeTo ? (path.relative(relativeTo, d) || '.') : d);
  return {
    version: 1,
    request: {
      topic: req.topic, count: req.count, format: req.format, difficulty: req.difficulty, model: req.model, rounds: req.rounds,
      batch: req.batch ?? false, ...(req.calibrate ? { calibrate: req.calibrate } : {}),
    },
    counts: {
      requested: req.count,
      generated: count((a) => a.id !== undefined),
      auditClean: count((a) => a.progress.auditClean),
      built: count((a) => a.progress.built),
      oraclePasses: count((a) => a.progress.oraclePasses),
      nopFails: count((a) => a.progress.nopFails),
      stable: count((a) => a.progress.stable),
      ...(req.calibrate ? { inBand: count((a) => a.progress.inBand === true) } : {}),
      accepted: count((a) => a.outcome === 'accepted'),
      rejected: count((a) => a.outcome === 'rejected'),
      errors: count((a) => a.outcome === 'error'),
      cancelled: count((a) => a.outcome === 'cancelled'),
    },
    roundsUsed: attempts.reduce((n, a) => n + a.rounds, 0),
    tokens,
    costUsd: costKnown ? priced.reduce((c, a) => c + (a.costUsd ?? 0), 0) : null,
    tasks: attempts.map((a) => ({
      slot: a.slot, id: a.id ?? null, outcome: a.outcome, rounds: a.rounds, dir: rel(a.dir), reasons: a.reasons,
      failedGates: a.failures.map((f) => f.gate), tokens: a.usage, costUsd: a.costUsd ?? null,
    })),
  };
}

const STAGES: readonly [keyof YieldCounts, string][] = [
  ['requested', 'requested'], ['generated', 'generated'], ['auditClean', 'audit-clean'], ['built', 'built'],
  ['oraclePasses', 'oracle-passes'], ['nopFails', 'nop-fails'], ['stable', 'stable'], ['inBand', 'in band'], ['accepted', 'accepted'],
];

export function renderReportText(r: YieldReport): string {
  const q = r.request;
  const lines = [`Generated ${q.count} ${q.format} task(s) on "${q.topic}" (${q.difficulty}) with ${q.model}, up to ${q.rounds} round(s) each${q.batch ? ', first round batched' : ''}${q.calibrate ? `, calibrated on ${q.calibrate}` : ''}`];
  for (const [key, label] of STAGES) {
    const v = r.counts[key];
    if (v !== undefined) lines.push(`  ${label.padEnd(14)} ${String(v).padStart(4)}`);
  }
  const t = r.tokens;
  lines.push(`  ${'rounds used'.padEnd(14)} ${String(r.roundsUsed).padStart(4)}`);
  lines.push(`  ${'tokens'.padEnd(14)} in ${t.input} (cache read ${t.cacheRead}, cache write ${t.cacheWrite}), out ${t.output}`);
  lines.push(`  ${'cost'.padEnd(14)} ${r.costUsd === null ? 'unknown (no public price for this model)' : `$${r.costUsd.toFixed(4)}`}`);
  if (r.tasks.length) lines.push('', 'Tasks:');
  for (const task of r.tasks) {
    const why = task.outcome === 'accepted' ? '' : `  ${task.reasons[task.reasons.length - 1] ?? ''}`;
    lines.push(`  ${task.outcome.padEnd(9)} ${(task.id ?? `#${task.slot}`).padEnd(28)} ${String(task.rounds)} round(s)  ${task.dir ?? ''}${why}`);
  }
  return lines.join('\n');
}
