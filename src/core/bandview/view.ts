import type { BandThresholds } from '../band/types';
import { modelKey } from '../protocol/bandPanel';
import { DEFAULT_THRESHOLDS, classifyModel, type ClassifiedModel } from './classify';
import type { ColumnReport, ModelHead } from './columns';

export interface ReportView {
  readonly k: number;
  readonly reportThresholds: BandThresholds;
  readonly thresholds: BandThresholds;
  readonly models: readonly ClassifiedModel[];
  readonly maxAttempts: number;
}

/** Every model of a report classified at `thresholds` (the report's own when absent). */
export function buildReportView(report: ColumnReport, thresholds?: BandThresholds): ReportView {
  const reportThresholds = report.thresholds ?? DEFAULT_THRESHOLDS;
  const t = thresholds ?? reportThresholds;
  const keys = modelKeys(report.models);
  let maxAttempts = 0;
  const models = report.models.map((m, i) => {
    const a = m.tasks.attempts;
    for (let j = 0; j < a.length; j++) if (a[j]! > maxAttempts) maxAttempts = a[j]!;
    return classifyModel(keys[i]!, m, report.k, t, reportThresholds);
  });
  return { k: report.k, reportThresholds, thresholds: t, models, maxAttempts };
}

/** Keys are `model @ checkpoint`; a duplicate (the same model twice in one report) gets a `#n` suffix. */
export function modelKeys(models: readonly Pick<ModelHead, 'model' | 'checkpoint'>[]): string[] {
  const base = models.map((m) => modelKey(m));
  const total = new Map<string, number>();
  for (const k of base) total.set(k, (total.get(k) ?? 0) + 1);
  const seen = new Map<string, number>();
  return base.map((k) => {
    if (total.get(k)! < 2) return k;
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return `${k} #${n}`;
  });
}
