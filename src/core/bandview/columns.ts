/**
 * The band report as the panel computes on it: per model, one typed column per task field instead of
 * one object per task. 10,000 tasks × 3 models as TaskBandRow objects cost the panel a third of its
 * first frame in allocation and garbage collection (bench/RESULTS.md "Panel"); as columns the webview
 * decodes the message into a dozen arrays, every chart and the table's sort read the columns, and a
 * TaskBandRow is built only for the few dozen rows the virtualised table shows (rowAt).
 *
 * Both sides build the same shape: the host with toColumns (full precision, for exports and reveal),
 * the webview by decoding the wire form (src/core/protocol/bandWire.ts).
 */
import { BANDS, type Band, type BandReport, type ModelBandReport, type TaskBandRow } from '../band/types';
import { naturalCompare, naturalKey } from './natural';

export interface TaskColumns {
  readonly length: number;
  /** Task ids of the whole report (models share them), in natural order: an id's index is its sort rank. */
  readonly ids: readonly string[];
  /** Task paths of the whole report, in natural order. */
  readonly paths: readonly string[];
  /** Index into `ids` / `paths`. */
  readonly id: ArrayLike<number>;
  readonly path: ArrayLike<number>;
  readonly attempts: ArrayLike<number>;
  readonly successes: ArrayLike<number>;
  readonly infraErrors: ArrayLike<number>;
  /** NaN where the row has none (null in a TaskBandRow). */
  readonly passAt1: ArrayLike<number>;
  readonly passAtK: ArrayLike<number>;
  /** Wilson interval of the success rate; NaN where the row has none. */
  readonly lo: ArrayLike<number>;
  readonly hi: ArrayLike<number>;
  /** Index into BANDS: the band as the report classified it. */
  readonly band: ArrayLike<number>;
  /** 1 where attempts are still pending. */
  readonly pending: ArrayLike<number>;
  /** Sparse extras by row index. */
  readonly possiblyInfra: ReadonlyMap<number, number>;
  readonly verifierOom: ReadonlyMap<number, number>;
  readonly brokenReason: ReadonlyMap<number, string>;
}

export type ModelHead = Omit<ModelBandReport, 'tasks'>;
export interface ColumnModel extends ModelHead { readonly tasks: TaskColumns }
export interface ColumnReport extends Omit<BandReport, 'models'> { readonly models: readonly ColumnModel[] }

export const BROKEN = BANDS.indexOf('broken');
const nullable = (x: number): number | null => (Number.isNaN(x) ? null : x);

/** The id / path tables of a report in natural order, with each string's index. */
export function stringTable(values: Iterable<string>): { list: string[]; index: Map<string, number> } {
  let list = [...new Set(values)];
  const order = (a: string, b: string): number => naturalCompare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
  // Reports come sorted (taskwright band orders each model's tasks): one pass confirms it.
  let sorted = true;
  for (let i = 1; i < list.length && sorted; i++) sorted = order(list[i - 1]!, list[i]!) < 0;
  if (!sorted) {
    // Keys built once, compared with <: much faster than naturalCompare inside the sort.
    const keys = list.map((s) => `${naturalKey(s)}\u0000${s}`);
    const idx = list.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
    const from = list;
    list = idx.map((i) => from[i]!);
  }
  return { list, index: new Map(list.map((s, i) => [s, i])) };
}

/** The host's columns of a report, at full precision (exports and reveal read them). */
export function toColumns(report: BandReport): ColumnReport {
  const ids = stringTable(report.models.flatMap((m) => m.tasks.map((t) => t.id)));
  const paths = stringTable(report.models.flatMap((m) => m.tasks.map((t) => t.path)));
  const bandIx = new Map(BANDS.map((b, i) => [b, i]));
  const models = report.models.map((m): ColumnModel => {
    const { tasks, ...head } = m;
    const n = tasks.length;
    const c = {
      id: new Int32Array(n), path: new Int32Array(n), attempts: new Float64Array(n), successes: new Float64Array(n), infraErrors: new Float64Array(n),
      passAt1: new Float64Array(n), passAtK: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n), band: new Uint8Array(n), pending: new Uint8Array(n),
    };
    const possiblyInfra = new Map<number, number>(), verifierOom = new Map<number, number>(), brokenReason = new Map<number, string>();
    tasks.forEach((t, i) => {
      c.id[i] = ids.index.get(t.id)!;
      c.path[i] = paths.index.get(t.path)!;
      c.attempts[i] = t.attempts;
      c.successes[i] = t.successes;
      c.infraErrors[i] = t.infraErrors;
      c.passAt1[i] = t.passAt1 ?? NaN;
      c.passAtK[i] = t.passAtK ?? NaN;
      c.lo[i] = t.interval ? t.interval[0] : NaN;
      c.hi[i] = t.interval ? t.interval[1] : NaN;
      c.band[i] = bandIx.get(t.band)!;
      c.pending[i] = t.pending ? 1 : 0;
      if (t.possiblyInfra) possiblyInfra.set(i, t.possiblyInfra);
      if (t.verifierOom) verifierOom.set(i, t.verifierOom);
      if (t.brokenReason !== undefined) brokenReason.set(i, t.brokenReason);
    });
    return { ...head, tasks: { length: n, ids: ids.list, paths: paths.list, ...c, possiblyInfra, verifierOom, brokenReason } };
  });
  const { models: _models, ...rest } = report;
  return { ...rest, models };
}

export function idOf(c: TaskColumns, i: number): string {
  return c.ids[c.id[i]!]!;
}

export function pathOf(c: TaskColumns, i: number): string {
  return c.paths[c.path[i]!]!;
}

/** One task as a TaskBandRow, built on demand (the table's visible rows, a revealed or exported task). */
export function rowAt(c: TaskColumns, i: number): TaskBandRow {
  const lo = c.lo[i]!, hi = c.hi[i]!;
  const row: { -readonly [K in keyof TaskBandRow]: TaskBandRow[K] } = {
    id: idOf(c, i), path: pathOf(c, i), attempts: c.attempts[i]!, successes: c.successes[i]!, infraErrors: c.infraErrors[i]!,
    passAt1: nullable(c.passAt1[i]!), passAtK: nullable(c.passAtK[i]!), band: BANDS[c.band[i]!] as Band,
  };
  if (!Number.isNaN(lo) && !Number.isNaN(hi)) row.interval = [lo, hi];
  const pi = c.possiblyInfra.get(i), oom = c.verifierOom.get(i), why = c.brokenReason.get(i);
  if (pi) row.possiblyInfra = pi;
  if (oom) row.verifierOom = oom;
  if (c.pending[i]) row.pending = true;
  if (why !== undefined) row.brokenReason = why;
  return row;
}

/** Every row of a column report: the plain BandReport again (tests, and code that wants objects). */
export function toRows(report: ColumnReport): BandReport {
  return {
    ...report,
    models: report.models.map((m) => ({ ...m, tasks: Array.from({ length: m.tasks.length }, (_, i) => rowAt(m.tasks, i)) })),
  };
}

/** Index of the task with this id in a model's columns, or -1. */
export function indexOfId(c: TaskColumns, taskId: string): number {
  for (let i = 0; i < c.length; i++) if (c.ids[c.id[i]!] === taskId) return i;
  return -1;
}

/** The columns of a model with no tasks (the table before any data). */
export function emptyColumns(): TaskColumns {
  const none = new Float64Array(0);
  return {
    length: 0, ids: [], paths: [], id: none, path: none, attempts: none, successes: none, infraErrors: none, passAt1: none, passAtK: none,
    lo: none, hi: none, band: none, pending: none, possiblyInfra: new Map(), verifierOom: new Map(), brokenReason: new Map(),
  };
}
