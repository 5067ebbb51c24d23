import type { BandReport, BandThresholds } from '../band/types';
import { modelKey } from '../protocol/bandPanel';
import { DEFAULT_THRESHOLDS, classifyModel, type ClassifiedModel } from './classify';

export interface ReportView {
  readonly k: number;
  readonly reportThresholds: BandThresholds;
  readonly thresholds: BandThresholds;
  readonly models: readonly ClassifiedModel[];
  readonly maxAttempts: number;
}

/** Every model of a report classified at `thresholds` (the report's own when absent). */
export function buildReportView(report: BandReport, thresholds?: BandThresholds): ReportView {
  const reportThresholds = report.thresholds ?? DEFAULT_THRESHOLDS;
  const t = thresholds ?? reportThresholds;
  let maxAttempts = 0;
  const models = report.models.map((m) => {
    for (const r of m.tasks) if (r.attempts > maxAttempts) maxAttempts = r.attempts;
    return classifyModel(uniqueKey(report, m), m, report.k, t, reportThresholds);
  });
  return { k: report.k, reportThresholds, thresholds: t, models, maxAttempts };
}

/** Keys are `model @ checkpoint`; a duplicate (the same model twice in one report) gets a `#n` suffix. */
function uniqueKey(report: BandReport, m: BandReport['models'][number]): string {
  const key = modelKey(m);
  const same = report.models.filter((x) => modelKey(x) === key);
  return same.length > 1 ? `${key} #${same.indexOf(m) + 1}` : key;
}
