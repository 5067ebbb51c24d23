import type { Band, BandThresholds } from '../band/types';
import type { ExportFormat } from '../protocol/bandPanel';
import { idOf, pathOf, type ColumnReport } from './columns';
import { buildReportView } from './view';

export interface ExportedTask {
  readonly id: string;
  readonly path: string;
  readonly band: Band;
  readonly passAtK: number | null;
}

/** Tasks of one model in one band (or all) at the given thresholds — what a user curates a set from. */
export function tasksInBand(report: ColumnReport, key: string, band: Band | 'all', t: BandThresholds): ExportedTask[] {
  const view = buildReportView(report, t);
  const c = view.models.find((x) => x.key === key);
  if (!c) throw new Error(`no model '${key}' in the band report (models: ${view.models.map((x) => x.key).join(', ') || 'none'})`);
  const out: ExportedTask[] = [];
  const cols = c.source.tasks;
  for (let i = 0; i < cols.length; i++) {
    const b = c.bands[i]!;
    const p = cols.passAtK[i]!;
    if (band === 'all' || b === band) out.push({ id: idOf(cols, i), path: pathOf(cols, i), band: b, passAtK: Number.isNaN(p) ? null : p });
  }
  return out;
}

/** The file written by the panel's export: JSON with its provenance, or one task path per line. */
export function formatExport(tasks: readonly ExportedTask[], format: ExportFormat, meta: { model: string; band: Band | 'all'; k: number; thresholds: BandThresholds }): string {
  if (format === 'text') return tasks.map((t) => t.path).join('\n') + (tasks.length ? '\n' : '');
  return `${JSON.stringify({ version: 1, model: meta.model, band: meta.band, k: meta.k, thresholds: meta.thresholds, tasks }, null, 2)}\n`;
}
