/**
 * The band panel's message protocol, shared by the extension host (src/extension/panel) and the webview
 * (webview/main.ts). Both directions are discriminated unions on `type`; every message that crosses the
 * boundary is checked by the validators below before it is used, because a webview is a separate
 * process with its own inputs and a restored state may come from an older version of the extension.
 *
 * Handshake: the webview posts `ready` once its listeners are in place; the host sends nothing before
 * that (messages posted earlier are lost), then `init`, then any number of `update`s while a run streams.
 */
import type { ColumnReport } from '../bandview/columns';
import { decodeReport, encodeReport, type WireReport } from './bandWire';
import { BANDS, type Band, type BandReport, type BandThresholds, type CheckpointSeries, type ModelBandReport, type TaskBandRow } from '../band/types';
import { TIMEOUT_POLICY_SUMMARIES } from '../results/timeoutPolicy';

export const BAND_PANEL_VIEW_TYPE = 'taskwright.bandPanel';

/** What the panel shows: one band report (several models/checkpoints) and where it came from. */
export interface PanelData {
  readonly report: BandReport;
  /** Human-readable origin (results folder, run id or file). */
  readonly source: string;
  /** True while a run is still streaming results into the panel. */
  readonly live: boolean;
}

export type SortColumn = 'id' | 'attempts' | 'successes' | 'infraErrors' | 'passAt1' | 'passAtK' | 'band';
export const SORT_COLUMNS: readonly SortColumn[] = ['id', 'attempts', 'successes', 'infraErrors', 'passAt1', 'passAtK', 'band'];
export type SortDir = 'asc' | 'desc';
export type ExportFormat = 'json' | 'text';

/** What the webview persists with `setState` and the serializer hands back after a reload. */
export interface PanelViewState {
  /** Results folder (or file) the host reloads the data from after VS Code restarts. */
  readonly source?: string;
  readonly thresholds?: BandThresholds;
  /** Key of the model shown in the table (see `modelKey`). */
  readonly model?: string;
  readonly compareA?: string;
  readonly compareB?: string;
  readonly sort?: { readonly column: SortColumn; readonly dir: SortDir };
  readonly filter?: string;
  /** Bands shown in the table; absent = all. */
  readonly bands?: readonly Band[];
  readonly scrollTop?: number;
}

/** PanelData as the webview holds it: the report's tasks as columns (src/core/bandview/columns.ts). */
export interface ColumnPanelData {
  readonly report: ColumnReport;
  readonly source: string;
  readonly live: boolean;
}

/** PanelData as posted: the report in its compact wire form (see bandWire.ts). */
export interface WirePanelData {
  readonly report: WireReport;
  readonly source: string;
  readonly live: boolean;
}

export type HostToWebview =
  | { readonly type: 'init'; readonly data: WirePanelData; readonly state?: PanelViewState }
  | { readonly type: 'update'; readonly data: WirePanelData }
  /** The panel now shows another results source: the view state (thresholds, filters, selection) starts afresh. */
  | { readonly type: 'source'; readonly data: WirePanelData }
  | { readonly type: 'exported'; readonly count: number; readonly file: string }
  /** `about: 'export'` when an export failed: shown next to the export buttons. */
  | { readonly type: 'error'; readonly message: string; readonly about?: 'export' };

/** A host message once validated, with its report decoded into columns. */
export type HostMessage =
  | { readonly type: 'init'; readonly data: ColumnPanelData; readonly state?: PanelViewState }
  | { readonly type: 'update'; readonly data: ColumnPanelData }
  | { readonly type: 'source'; readonly data: ColumnPanelData }
  | { readonly type: 'exported'; readonly count: number; readonly file: string }
  | { readonly type: 'error'; readonly message: string; readonly about?: 'export' };

export function toWire(data: PanelData): WirePanelData {
  return { report: encodeReport(data.report), source: data.source, live: data.live };
}

export type WebviewToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'reveal-task'; readonly model: string; readonly taskId: string }
  | {
      readonly type: 'export';
      readonly model: string;
      readonly band: Band | 'all';
      readonly format: ExportFormat;
      readonly thresholds: BandThresholds;
    }
  | { readonly type: 'state'; readonly state: PanelViewState }
  | { readonly type: 'log'; readonly level: 'info' | 'error'; readonly message: string };

/** Stable key of one model (and checkpoint) in a report. */
export function modelKey(m: Pick<ModelBandReport, 'model' | 'checkpoint'>): string {
  return m.checkpoint === undefined ? m.model : `${m.model} @ ${m.checkpoint}`;
}

// ---- validators --------------------------------------------------------------------------------
// Small hand-written checks (no schema library in the webview bundle); each returns the value typed
// or undefined, and never throws.

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown, max = 4096): v is string => typeof v === 'string' && v.length <= max;
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): v is number => isNum(v) && Number.isInteger(v) && v >= 0;
const isUnit = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;
const isUnitOrNull = (v: unknown): v is number | null => v === null || isUnit(v);
const isBand = (v: unknown): v is Band => typeof v === 'string' && (BANDS as readonly string[]).includes(v);
const isPair = (v: unknown): v is readonly [number, number] =>
  Array.isArray(v) && v.length === 2 && isUnit(v[0]) && isUnit(v[1]) && v[0] <= v[1];

export function isThresholds(v: unknown): v is BandThresholds {
  return isRec(v) && isUnit(v.low) && isUnit(v.high) && v.low < v.high;
}

function isTaskRow(v: unknown): v is TaskBandRow {
  return isRec(v) && isStr(v.id, 1024) && isStr(v.path) && isCount(v.attempts) && isCount(v.successes)
    && v.successes <= v.attempts && isCount(v.infraErrors) && isUnitOrNull(v.passAt1) && isUnitOrNull(v.passAtK)
    && (v.interval === undefined || isPair(v.interval)) && isBand(v.band)
    && (v.possiblyInfra === undefined || isCount(v.possiblyInfra)) && (v.verifierOom === undefined || isCount(v.verifierOom)) && (v.pending === undefined || typeof v.pending === 'boolean')
    && (v.brokenReason === undefined || isStr(v.brokenReason, 10_000));
}

const isCounts = (v: unknown): v is Record<Band, number> => isRec(v) && BANDS.every((b) => isCount(v[b]));

function isSeries(v: unknown): v is CheckpointSeries {
  if (!isRec(v) || !isStr(v.model, 1024) || typeof v.saturated !== 'boolean' || (v.reason !== undefined && !isStr(v.reason, 10_000))) return false;
  const r = v.rule;
  if (!isRec(r) || !isUnit(r.meanAbove) || !isUnit(r.inBandBelow) || !isCount(r.window)) return false;
  return Array.isArray(v.points) && v.points.every((p) => isRec(p) && isStr(p.checkpoint, 1024) && isUnitOrNull(p.meanPassAtK)
    && (p.interval === null || isPair(p.interval)) && isUnitOrNull(p.inBandShare) && isCounts(p.counts));
}

function isModelReport(v: unknown): v is ModelBandReport {
  if (!isRec(v) || !isStr(v.model, 1024) || (v.checkpoint !== undefined && !isStr(v.checkpoint, 1024))) return false;
  if (!isUnitOrNull(v.meanPassAtK) || !(v.interval === null || isPair(v.interval)) || !isCount(v.infraErrors)) return false;
  if (!isCounts(v.counts)) return false;
  if (v.agent !== undefined && !isStr(v.agent, 2048)) return false;
  if (v.sources !== undefined && !(Array.isArray(v.sources) && v.sources.every((x) => isStr(x)))) return false;
  if (v.inBandShare !== undefined && !isUnitOrNull(v.inBandShare)) return false;
  if (v.timeoutPolicy !== undefined && !(TIMEOUT_POLICY_SUMMARIES as readonly unknown[]).includes(v.timeoutPolicy)) return false;
  return Array.isArray(v.tasks) && v.tasks.every(isTaskRow);
}

export function isBandReport(v: unknown): v is BandReport {
  return isRec(v) && v.version === 1 && isCount(v.k) && v.k >= 1
    && (v.thresholds === undefined || isThresholds(v.thresholds))
    && (v.timeoutPolicy === undefined || (TIMEOUT_POLICY_SUMMARIES as readonly unknown[]).includes(v.timeoutPolicy))
    && Array.isArray(v.models) && v.models.every(isModelReport)
    && (v.series === undefined || (Array.isArray(v.series) && v.series.every(isSeries)));
}

export function isPanelData(v: unknown): v is PanelData {
  return isRec(v) && isBandReport(v.report) && isStr(v.source) && typeof v.live === 'boolean';
}

/**
 * A restored or posted view state, reduced to its valid fields: a state written by another version
 * keeps whatever still makes sense instead of being thrown away whole.
 */
export function sanitizeViewState(v: unknown): PanelViewState {
  if (!isRec(v)) return {};
  const out: { -readonly [K in keyof PanelViewState]: PanelViewState[K] } = {};
  if (isStr(v.source)) out.source = v.source;
  if (isThresholds(v.thresholds)) out.thresholds = { low: v.thresholds.low, high: v.thresholds.high };
  for (const k of ['model', 'compareA', 'compareB'] as const) if (isStr(v[k], 2100)) out[k] = v[k];
  const sort = v.sort;
  if (isRec(sort) && (SORT_COLUMNS as readonly unknown[]).includes(sort.column) && (sort.dir === 'asc' || sort.dir === 'desc')) {
    out.sort = { column: sort.column as SortColumn, dir: sort.dir };
  }
  if (isStr(v.filter, 1000)) out.filter = v.filter;
  if (Array.isArray(v.bands) && v.bands.every(isBand)) out.bands = [...new Set(v.bands)];
  if (isNum(v.scrollTop) && v.scrollTop >= 0) out.scrollTop = v.scrollTop;
  return out;
}

/** Validates a message from the webview; undefined for anything malformed or unknown. */
export function parseWebviewMessage(v: unknown): WebviewToHost | undefined {
  if (!isRec(v)) return undefined;
  switch (v.type) {
    case 'ready':
      return { type: 'ready' };
    case 'reveal-task':
      return isStr(v.model, 2100) && isStr(v.taskId, 1024) ? { type: 'reveal-task', model: v.model, taskId: v.taskId } : undefined;
    case 'export':
      if (!isStr(v.model, 2100) || !(v.band === 'all' || isBand(v.band)) || !(v.format === 'json' || v.format === 'text') || !isThresholds(v.thresholds)) return undefined;
      return { type: 'export', model: v.model, band: v.band, format: v.format, thresholds: { low: v.thresholds.low, high: v.thresholds.high } };
    case 'state':
      return isRec(v.state) ? { type: 'state', state: sanitizeViewState(v.state) } : undefined;
    case 'log':
      return (v.level === 'info' || v.level === 'error') && isStr(v.message, 10_000) ? { type: 'log', level: v.level, message: v.message } : undefined;
    default:
      return undefined;
  }
}

function decodePanelData(v: unknown): ColumnPanelData | undefined {
  if (!isRec(v) || !isStr(v.source) || typeof v.live !== 'boolean') return undefined;
  const report = decodeReport(v.report);
  return report ? { report, source: v.source, live: v.live } : undefined;
}

/** Validates and decodes a message from the host (the static report runs the same code on its embedded data). */
export function parseHostMessage(v: unknown): HostMessage | undefined {
  if (!isRec(v)) return undefined;
  switch (v.type) {
    case 'init': {
      const data = decodePanelData(v.data);
      if (!data) return undefined;
      return v.state === undefined ? { type: 'init', data } : { type: 'init', data, state: sanitizeViewState(v.state) };
    }
    case 'update':
    case 'source': {
      const data = decodePanelData(v.data);
      return data ? { type: v.type, data } : undefined;
    }
    case 'exported':
      return isCount(v.count) && isStr(v.file) ? { type: 'exported', count: v.count, file: v.file } : undefined;
    case 'error':
      if (!isStr(v.message, 10_000)) return undefined;
      return v.about === 'export' ? { type: 'error', message: v.message, about: 'export' } : { type: 'error', message: v.message };
    default:
      return undefined;
  }
}
