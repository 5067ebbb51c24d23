import type { CheckpointPoint, CheckpointSeries, ModelBandReport, SaturationRule } from './types';

/**
 * Default saturation rule: the last 3 checkpoints all have mean pass@k above 0.8 (the seed paper saw a
 * 9B model saturate at 81.3% mean pass@2) or fewer than 20% of the rolled-out tasks in band.
 */
export const DEFAULT_SATURATION: SaturationRule = { meanAbove: 0.8, inBandBelow: 0.2, window: 3 };

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Checkpoints sort naturally (`step-900` before `step-1200`), which is training order for usual labels. */
export function compareCheckpoints(a: string, b: string): number {
  return collator.compare(a, b);
}

/** What a checkpoint point reads of a model's report (not its tasks). */
export type ModelSummary = Pick<ModelBandReport, 'model' | 'checkpoint' | 'meanPassAtK' | 'interval' | 'inBandShare' | 'counts'>;

function pointOf(m: ModelSummary): CheckpointPoint {
  return {
    checkpoint: m.checkpoint ?? '',
    meanPassAtK: m.meanPassAtK,
    interval: m.interval,
    inBandShare: m.inBandShare ?? null,
    counts: m.counts,
  };
}

function saturatedPoint(p: CheckpointPoint, rule: SaturationRule): string | undefined {
  if (p.meanPassAtK !== null && p.meanPassAtK > rule.meanAbove) return `mean pass@k ${p.meanPassAtK.toFixed(3)} > ${rule.meanAbove}`;
  if (p.inBandShare !== null && p.inBandShare < rule.inBandBelow) return `in-band share ${p.inBandShare.toFixed(3)} < ${rule.inBandBelow}`;
  return undefined;
}

/** Series of one model over its checkpoints, with the saturation flag over the last `window` of them. */
export function checkpointSeries(reports: readonly ModelSummary[], rule: SaturationRule = DEFAULT_SATURATION): CheckpointSeries[] {
  const byModel = new Map<string, ModelSummary[]>();
  for (const r of reports) {
    if (r.checkpoint === undefined) continue;
    const list = byModel.get(r.model) ?? [];
    list.push(r);
    byModel.set(r.model, list);
  }
  const out: CheckpointSeries[] = [];
  for (const [model, list] of byModel) {
    const points = list.map(pointOf).sort((a, b) => compareCheckpoints(a.checkpoint, b.checkpoint));
    const tail = points.slice(-rule.window);
    const reasons = tail.map((p) => saturatedPoint(p, rule));
    const saturated = tail.length >= rule.window && rule.window > 0 && reasons.every((r) => r !== undefined);
    out.push({
      model,
      points,
      saturated,
      ...(saturated ? { reason: `last ${rule.window} checkpoints: ${tail.map((p, i) => `${p.checkpoint} (${reasons[i]})`).join('; ')}` } : {}),
      rule,
    });
  }
  return out.sort((a, b) => collator.compare(a.model, b.model));
}
