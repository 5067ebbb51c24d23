/**
 * The band report as it crosses into the webview: columns instead of 30,000 small objects, each task
 * id and path once (models share tasks), numbers rounded to what the panel can show (0.01 %). A
 * structured clone of many small objects is the slowest part of getting 10,000 tasks × 3 models on
 * screen (bench/RESULTS.md "Panel"); arrays of numbers clone and validate an order of magnitude faster.
 * Exports are computed by the host from its full-precision report, never from this.
 */
import { BANDS, type Band, type BandReport, type CheckpointSeries, type ModelBandReport, type TaskBandRow } from '../band/types';
import { isBandReport } from './bandPanel';

export interface WireColumns {
  /** Index into WireReport.ids / .paths. */
  readonly id: readonly number[];
  readonly path: readonly number[];
  readonly attempts: readonly number[];
  readonly successes: readonly number[];
  readonly infraErrors: readonly number[];
  readonly passAt1: readonly (number | null)[];
  readonly passAtK: readonly (number | null)[];
  /** Wilson interval bounds; null when the row has none. */
  readonly lo: readonly (number | null)[];
  readonly hi: readonly (number | null)[];
  /** Index into BANDS. */
  readonly band: readonly number[];
  /** Sparse extras, keyed by row index. */
  readonly possiblyInfra?: Readonly<Record<string, number>>;
  readonly verifierOom?: Readonly<Record<string, number>>;
  readonly pending?: readonly number[];
  readonly brokenReason?: Readonly<Record<string, string>>;
}

export type WireModel = Omit<ModelBandReport, 'tasks'> & { readonly rows: WireColumns };

export interface WireReport {
  readonly wire: 1;
  readonly report: Omit<BandReport, 'models'>;
  readonly ids: readonly string[];
  readonly paths: readonly string[];
  readonly models: readonly WireModel[];
}

const r4 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e4) / 1e4);

export function encodeReport(report: BandReport): WireReport {
  const ids: string[] = [], paths: string[] = [];
  const idIx = new Map<string, number>(), pathIx = new Map<string, number>();
  const intern = (s: string, list: string[], ix: Map<string, number>): number => {
    let i = ix.get(s);
    if (i === undefined) { i = list.length; list.push(s); ix.set(s, i); }
    return i;
  };
  const bandIx = new Map(BANDS.map((b, i) => [b, i]));
  const models = report.models.map((m): WireModel => {
    const { tasks, ...rest } = m;
    const cols = {
      id: [] as number[], path: [] as number[], attempts: [] as number[], successes: [] as number[], infraErrors: [] as number[],
      passAt1: [] as (number | null)[], passAtK: [] as (number | null)[], lo: [] as (number | null)[], hi: [] as (number | null)[], band: [] as number[],
    };
    const possiblyInfra: Record<string, number> = {};
    const verifierOom: Record<string, number> = {};
    const pending: number[] = [];
    const brokenReason: Record<string, string> = {};
    tasks.forEach((t, i) => {
      cols.id.push(intern(t.id, ids, idIx));
      cols.path.push(intern(t.path, paths, pathIx));
      cols.attempts.push(t.attempts);
      cols.successes.push(t.successes);
      cols.infraErrors.push(t.infraErrors);
      cols.passAt1.push(r4(t.passAt1));
      cols.passAtK.push(r4(t.passAtK));
      cols.lo.push(t.interval ? r4(t.interval[0]) : null);
      cols.hi.push(t.interval ? r4(t.interval[1]) : null);
      cols.band.push(bandIx.get(t.band)!);
      if (t.possiblyInfra) possiblyInfra[i] = t.possiblyInfra;
      if (t.verifierOom) verifierOom[i] = t.verifierOom;
      if (t.pending) pending.push(i);
      if (t.brokenReason !== undefined) brokenReason[i] = t.brokenReason;
    });
    const rows: WireColumns = {
      ...cols,
      ...(Object.keys(possiblyInfra).length ? { possiblyInfra } : {}),
      ...(Object.keys(verifierOom).length ? { verifierOom } : {}),
      ...(pending.length ? { pending } : {}),
      ...(Object.keys(brokenReason).length ? { brokenReason } : {}),
    };
    return { ...rest, rows };
  });
  const head: Omit<BandReport, 'models'> = {
    version: report.version, k: report.k,
    ...(report.thresholds ? { thresholds: report.thresholds } : {}),
    ...(report.timeoutPolicy ? { timeoutPolicy: report.timeoutPolicy } : {}),
    ...(report.series ? { series: report.series } : {}),
  };
  return { wire: 1, report: head, ids, paths, models };
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
const isArrayOf = (v: unknown, len: number): v is unknown[] => Array.isArray(v) && v.length === len;
const isInt = (x: unknown, max: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= max;
const isUnitOrNull = (x: unknown): x is number | null => x === null || (typeof x === 'number' && x >= 0 && x <= 1);

/**
 * Checks a wire report and rebuilds the BandReport. Returns undefined for anything malformed: the
 * columns must have one length, indices must point into the id/path tables, numbers be in range, and
 * the rebuilt report must pass the same check as a plain report.
 */
export function decodeReport(v: unknown): BandReport | undefined {
  if (!isRec(v) || v.wire !== 1 || !isRec(v.report) || !isStrArray(v.ids) || !isStrArray(v.paths) || !Array.isArray(v.models)) return undefined;
  const ids = v.ids, paths = v.paths;
  const models: ModelBandReport[] = [];
  for (const m of v.models as unknown[]) {
    if (!isRec(m) || !isRec(m.rows)) return undefined;
    const c = m.rows;
    const len = Array.isArray(c.id) ? c.id.length : -1;
    const cId = c.id, cPath = c.path, cAtt = c.attempts, cSucc = c.successes, cInfra = c.infraErrors, cBand = c.band;
    const cP1 = c.passAt1, cPk = c.passAtK, cLo = c.lo, cHi = c.hi;
    if (!isArrayOf(cId, len) || !isArrayOf(cPath, len) || !isArrayOf(cAtt, len) || !isArrayOf(cSucc, len) || !isArrayOf(cInfra, len)
      || !isArrayOf(cBand, len) || !isArrayOf(cP1, len) || !isArrayOf(cPk, len) || !isArrayOf(cLo, len) || !isArrayOf(cHi, len)) return undefined;
    const possiblyInfra = isRec(c.possiblyInfra) ? c.possiblyInfra : {};
    const verifierOom = isRec(c.verifierOom) ? c.verifierOom : {};
    const brokenReason = isRec(c.brokenReason) ? c.brokenReason : {};
    const tasks = new Array<TaskBandRow>(len);
    const maxId = ids.length - 1, maxPath = paths.length - 1, maxBand = BANDS.length - 1;
    // One pass checks every column of a row and builds it (ten passes over 30,000 cells cost more
    // than the checks themselves on a cold page). Plain literals and assignments, no spreads.
    for (let i = 0; i < len; i++) {
      const id = cId[i], path = cPath[i], attempts = cAtt[i], successes = cSucc[i], infraErrors = cInfra[i], band = cBand[i];
      const passAt1 = cP1[i], passAtK = cPk[i], lo = cLo[i], hi = cHi[i];
      if (!isInt(id, maxId) || !isInt(path, maxPath) || !isInt(attempts, 1e9) || !isInt(successes, attempts) || !isInt(infraErrors, 1e9)
        || !isInt(band, maxBand) || !isUnitOrNull(passAt1) || !isUnitOrNull(passAtK) || !isUnitOrNull(lo) || !isUnitOrNull(hi)
        || (lo !== null && hi !== null && lo > hi)) return undefined;
      const row: { -readonly [K in keyof TaskBandRow]: TaskBandRow[K] } = {
        id: ids[id]!, path: paths[path]!, attempts, successes, infraErrors, passAt1, passAtK, band: BANDS[band] as Band,
      };
      if (lo !== null && hi !== null) row.interval = [lo, hi];
      tasks[i] = row;
    }
    for (const [k, n] of Object.entries(possiblyInfra)) {
      const row = tasks[Number(k)] as { possiblyInfra?: number } | undefined;
      if (row && typeof n === 'number') row.possiblyInfra = n;
    }
    for (const [k, n] of Object.entries(verifierOom)) {
      const row = tasks[Number(k)] as { verifierOom?: number } | undefined;
      if (row && typeof n === 'number') row.verifierOom = n;
    }
    if (Array.isArray(c.pending)) {
      for (const i of c.pending) {
        const row = typeof i === 'number' ? tasks[i] as { pending?: boolean } | undefined : undefined;
        if (row) row.pending = true;
      }
    }
    for (const [k, why] of Object.entries(brokenReason)) {
      const row = tasks[Number(k)] as { brokenReason?: string } | undefined;
      if (row && typeof why === 'string') row.brokenReason = why;
    }
    const head: Rec = { ...m };
    delete head.rows;
    models.push({ ...(head as unknown as Omit<ModelBandReport, 'tasks'>), tasks });
  }
  const report = { ...(v.report as Rec), models } as unknown;
  // Tasks were checked column by column above; the rest (model heads, counts, series) here.
  return isBandReportHead(report) ? report : undefined;
}

function isBandReportHead(r: unknown): r is BandReport {
  if (!isRec(r) || !Array.isArray(r.models)) return false;
  // The full check on a copy without tasks keeps it linear in models, not in rows.
  const light = { ...r, models: (r.models as Rec[]).map((m) => ({ ...m, tasks: [] })) };
  return isBandReport(light) && (r.series === undefined || Array.isArray(r.series as CheckpointSeries[] | undefined));
}
