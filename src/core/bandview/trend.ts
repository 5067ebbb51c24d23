import { DEFAULT_SATURATION, checkpointSeries, type ModelSummary } from '../band/checkpoints';
import type { BandReport, CheckpointPoint, SaturationRule } from '../band/types';

export interface TrendPoint extends CheckpointPoint {
  /** Position on the x axis: the training step when every label holds a number, else the order. */
  readonly step: number;
}

export interface TrendSeries {
  readonly model: string;
  readonly points: readonly TrendPoint[];
  /** Index in `points` from which the policy is saturated on this set (the final saturated run), or null. */
  readonly saturatedFrom: number | null;
  readonly reason?: string;
  readonly rule: SaturationRule;
}

/** Training step of a checkpoint label: `step-1200`, `ckpt_1200`, `1200`, `1.2k` → 1200. */
export function checkpointStep(label: string): number | null {
  const m = /(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(label) ?? /(\d+(?:\.\d+)?)\s*([kKmM]?)/.exec(label);
  if (!m) return null;
  const unit = m[2]?.toLowerCase();
  return Number(m[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1);
}

function meetsRule(p: CheckpointPoint, rule: SaturationRule): boolean {
  return (p.meanPassAtK !== null && p.meanPassAtK > rule.meanAbove) || (p.inBandShare !== null && p.inBandShare < rule.inBandBelow);
}

/**
 * The checkpoint trend of each model: the report's own series when it carries them (`taskwright band`
 * computes saturation), else computed from its models with the same rule. A saturated series marks
 * where its final run of saturated checkpoints starts, so the chart can say "saturated from X".
 */
export function checkpointTrends(report: { readonly models: readonly ModelSummary[]; readonly series?: BandReport['series'] }): TrendSeries[] {
  const series = report.series ?? checkpointSeries(report.models, DEFAULT_SATURATION);
  return series.filter((s) => s.points.length > 0).map((s) => {
    const steps = s.points.map((p) => checkpointStep(p.checkpoint));
    const numeric = steps.every((x) => x !== null) && new Set(steps).size === steps.length;
    const points = s.points.map((p, i) => ({ ...p, step: numeric ? steps[i]! : i }));
    let start = points.length;
    while (start > 0 && meetsRule(points[start - 1]!, s.rule)) start--;
    return {
      model: s.model,
      points,
      saturatedFrom: s.saturated && start < points.length ? start : null,
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
      rule: s.rule,
    };
  });
}
