/**
 * The band report as it crosses into the webview: columns instead of 30,000 small objects, each task
 * id and path once (models share tasks, and the tables are in natural order so an index is a sort
 * rank), and every fraction as an integer number of 1/10,000ths (-1 for none) — what the panel can
 * show (0.01 %). Arrays of small integers are cloned, parsed and checked without allocating a number
 * object per cell; the webview keeps the columns as they are (src/core/bandview/columns.ts) and builds
 * a row only for what the table shows (bench/RESULTS.md "Panel").
 * Exports are computed by the host from its full-precision report, never from this.
 */
import { BANDS, type BandReport, type CheckpointSeries, type ModelBandReport } from '../band/types';
import { toColumns, type ColumnModel, type ColumnReport, type ModelHead } from '../bandview/columns';
import { isBandReport } from './bandPanel';

export interface WireColumns {
  /** Index into WireReport.ids / .paths. */
  readonly id: readonly number[];
  readonly path: readonly number[];
  readonly attempts: readonly number[];
  readonly successes: readonly number[];
  readonly infraErrors: readonly number[];
  /** 1/10,000ths; -1 = none. */
  readonly passAt1: readonly number[];
  readonly passAtK: readonly number[];
  /** Wilson interval bounds in 1/10,000ths; -1 when the row has none. */
  readonly lo: readonly number[];
  readonly hi: readonly number[];
  /** Index into BANDS. */
  readonly band: readonly number[];
  /** Sparse extras, keyed by row index. */
  readonly possiblyInfra?: Readonly<Record<string, number>>;
  readonly verifierOom?: Readonly<Record<string, number>>;
  readonly pending?: readonly number[];
  readonly brokenReason?: Readonly<Record<string, string>>;
}

export type WireModel = ModelHead & { readonly rows: WireColumns };

export interface WireReport {
  readonly wire: 2;
  readonly report: Omit<BandReport, 'models'>;
  /** Every task id and path of the report, in natural order. */
  readonly ids: readonly string[];
  readonly paths: readonly string[];
  readonly models: readonly WireModel[];
}

const SCALE = 10_000;
const toWireUnit = (x: number): number => (Number.isNaN(x) ? -1 : Math.round(x * SCALE));
const ints = (a: ArrayLike<number>): number[] => Array.from(a);
const units = (a: ArrayLike<number>): number[] => Array.from(a, toWireUnit);
const sparse = <T>(m: ReadonlyMap<number, T>): Record<string, T> | undefined => (m.size ? Object.fromEntries(m) : undefined);

export function encodeReport(report: BandReport): WireReport {
  const cols = toColumns(report);
  const first = cols.models[0]?.tasks;
  const models = cols.models.map((m): WireModel => {
    const { tasks: c, ...head } = m;
    const pending: number[] = [];
    for (let i = 0; i < c.length; i++) if (c.pending[i]) pending.push(i);
    const possiblyInfra = sparse(c.possiblyInfra), verifierOom = sparse(c.verifierOom), brokenReason = sparse(c.brokenReason);
    const rows: WireColumns = {
      id: ints(c.id), path: ints(c.path), attempts: ints(c.attempts), successes: ints(c.successes), infraErrors: ints(c.infraErrors),
      passAt1: units(c.passAt1), passAtK: units(c.passAtK), lo: units(c.lo), hi: units(c.hi), band: ints(c.band),
      ...(possiblyInfra ? { possiblyInfra } : {}),
      ...(verifierOom ? { verifierOom } : {}),
      ...(pending.length ? { pending } : {}),
      ...(brokenReason ? { brokenReason } : {}),
    };
    return { ...head, rows };
  });
  const head: Omit<BandReport, 'models'> = {
    version: report.version, k: report.k,
    ...(report.thresholds ? { thresholds: report.thresholds } : {}),
    ...(report.timeoutPolicy ? { timeoutPolicy: report.timeoutPolicy } : {}),
    ...(report.series ? { series: report.series } : {}),
  };
  return { wire: 2, report: head, ids: first?.ids ?? [], paths: first?.paths ?? [], models };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
function isStrArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  // A plain loop: 10,000 ids and as many paths, checked on every data message.
  for (let i = 0; i < v.length; i++) {
    const s: unknown = v[i];
    if (typeof s !== 'string' || s.length > 4096) return false;
  }
  return true;
}

/** An array of `len` integers in [min, max], or undefined. */
function intColumn(v: unknown, len: number, min: number, max: number): number[] | undefined {
  if (!Array.isArray(v) || v.length !== len) return undefined;
  for (let i = 0; i < len; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) return undefined;
  }
  return v as number[];
}

/** A column of 1/10,000ths (-1 = none) as fractions (NaN = none), or undefined. */
function unitColumn(v: unknown, len: number): Float64Array | undefined {
  const c = intColumn(v, len, -1, SCALE);
  if (!c) return undefined;
  const out = new Float64Array(len);
  for (let i = 0; i < len; i++) out[i] = c[i] === -1 ? NaN : c[i]! / SCALE;
  return out;
}

function sparseColumn<T>(v: unknown, len: number, ok: (x: unknown) => x is T): Map<number, T> | undefined {
  const out = new Map<number, T>();
  if (v === undefined) return out;
  if (!isRec(v)) return undefined;
  for (const [k, x] of Object.entries(v)) {
    const i = Number(k);
    if (!Number.isInteger(i) || i < 0 || i >= len || !ok(x)) return undefined;
    out.set(i, x);
  }
  return out;
}
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const isReason = (x: unknown): x is string => typeof x === 'string' && x.length <= 10_000;

/** One model's columns, checked: one length, indices into the tables, numbers in range. */
function decodeModel(m: unknown, ids: readonly string[], paths: readonly string[]): ColumnModel | undefined {
  if (!isRec(m) || !isRec(m.rows)) return undefined;
  const c = m.rows;
  const len = Array.isArray(c.id) ? c.id.length : -1;
  const id = intColumn(c.id, len, 0, ids.length - 1), path = intColumn(c.path, len, 0, paths.length - 1);
  const attempts = intColumn(c.attempts, len, 0, 1e9), infraErrors = intColumn(c.infraErrors, len, 0, 1e9);
  const successes = intColumn(c.successes, len, 0, 1e9), band = intColumn(c.band, len, 0, BANDS.length - 1);
  const passAt1 = unitColumn(c.passAt1, len), passAtK = unitColumn(c.passAtK, len), lo = unitColumn(c.lo, len), hi = unitColumn(c.hi, len);
  if (!id || !path || !attempts || !infraErrors || !successes || !band || !passAt1 || !passAtK || !lo || !hi) return undefined;
  for (let i = 0; i < len; i++) {
    if (successes[i]! > attempts[i]! || lo[i]! > hi[i]! || Number.isNaN(lo[i]!) !== Number.isNaN(hi[i]!)) return undefined;
  }
  const pending = new Uint8Array(len);
  if (c.pending !== undefined) {
    const p = intColumn(c.pending, Array.isArray(c.pending) ? c.pending.length : -1, 0, len - 1);
    if (!p) return undefined;
    for (const i of p) pending[i] = 1;
  }
  const possiblyInfra = sparseColumn(c.possiblyInfra, len, isCount), verifierOom = sparseColumn(c.verifierOom, len, isCount);
  const brokenReason = sparseColumn(c.brokenReason, len, isReason);
  if (!possiblyInfra || !verifierOom || !brokenReason) return undefined;
  const head: Rec = { ...m };
  delete head.rows;
  return { ...(head as unknown as ModelHead), tasks: { length: len, ids, paths, id, path, attempts, successes, infraErrors, passAt1, passAtK, lo, hi, band, pending, possiblyInfra, verifierOom, brokenReason } };
}

/**
 * Checks a wire report and returns its columns. Undefined for anything malformed: the columns must
 * have one length, indices must point into the id/path tables, numbers be in range, and the model
 * heads and series pass the same checks as a plain report's.
 */
export function decodeReport(v: unknown): ColumnReport | undefined {
  if (!isRec(v) || v.wire !== 2 || !isRec(v.report) || !isStrArray(v.ids) || !isStrArray(v.paths) || !Array.isArray(v.models)) return undefined;
  const models: ColumnModel[] = [];
  for (const m of v.models as unknown[]) {
    const d = decodeModel(m, v.ids, v.paths);
    if (!d) return undefined;
    models.push(d);
  }
  const report = { ...(v.report as Rec), models };
  return isReportHead(report) ? report as unknown as ColumnReport : undefined;
}

function isReportHead(r: Rec & { models: readonly ColumnModel[] }): boolean {
  // The full check on a copy without tasks keeps it linear in models, not in rows.
  const light = { ...r, models: r.models.map((m): ModelBandReport => ({ ...m, tasks: [] })) };
  return isBandReport(light) && (r.series === undefined || Array.isArray(r.series as CheckpointSeries[] | undefined));
}
