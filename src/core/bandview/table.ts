import { BANDS, type Band } from '../band/types';
import type { SortColumn, SortDir } from '../protocol/bandPanel';
import type { TaskColumns } from './columns';

export { naturalCompare, naturalKey } from './natural';

export interface TableQuery {
  readonly sort: { readonly column: SortColumn; readonly dir: SortDir };
  /** Case-insensitive substring of the task id or path; whitespace-separated words must all match. */
  readonly filter: string;
  /** Bands shown; empty or absent = all. */
  readonly bands?: readonly Band[];
  /** Only these task ids (a selection made in a chart); absent = all. */
  readonly only?: ReadonlySet<string>;
}

const BAND_ORDER: Readonly<Record<Band, number>> = Object.fromEntries(BANDS.map((b, i) => [b, i])) as Record<Band, number>;

/** The column a numeric sort reads; NaN is a missing value. */
function numericColumn(c: TaskColumns, column: Exclude<SortColumn, 'id' | 'band'>): ArrayLike<number> {
  return c[column];
}

/**
 * Indices of the rows that pass the query, in display order. Sorting is stable (ties keep the id order)
 * and missing values (null pass@k of a task without valid attempts) go last in either direction.
 * Returns indices, not rows, so the virtualised table and the reclassified bands share one array.
 *
 * Ids are compared by their index in the report's id table, which is in natural order (columns.ts):
 * integer comparisons instead of string ones, and a report that arrives in id order (as `taskwright
 * band` writes it) needs no sort at all.
 */
export function queryRows(c: TaskColumns, bands: readonly Band[], q: TableQuery): number[] {
  const words = q.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const allowed = q.bands && q.bands.length > 0 ? new Set(q.bands) : undefined;
  const idx: number[] = [];
  const id = c.id, path = c.path;
  for (let i = 0; i < c.length; i++) {
    if (allowed && !allowed.has(bands[i]!)) continue;
    if (q.only && !q.only.has(c.ids[id[i]!]!)) continue;
    if (words.length > 0) {
      const hay = `${c.ids[id[i]!]!}\n${c.paths[path[i]!]!}`.toLowerCase();
      if (!words.every((w) => hay.includes(w))) continue;
    }
    idx.push(i);
  }
  const sign = q.sort.dir === 'asc' ? 1 : -1;
  const byId = (a: number, b: number): number => id[a]! - id[b]! || path[a]! - path[b]! || a - b;
  if (q.sort.column === 'id') {
    let sorted = true;
    for (let j = 1; j < idx.length && sorted; j++) sorted = byId(idx[j - 1]!, idx[j]!) < 0;
    if (!sorted) idx.sort(byId);
    return sign === 1 ? idx : idx.reverse();
  }
  let keys: ArrayLike<number>;
  if (q.sort.column === 'band') {
    const k = new Float64Array(c.length);
    for (const i of idx) k[i] = BAND_ORDER[bands[i]!];
    keys = k;
  } else {
    keys = numericColumn(c, q.sort.column);
  }
  idx.sort((a, b) => {
    const ka = keys[a]!, kb = keys[b]!;
    const na = Number.isNaN(ka), nb = Number.isNaN(kb);
    if (na || nb) {
      if (na !== nb) return na ? 1 : -1;
    } else if (ka !== kb) {
      return sign * (ka < kb ? -1 : 1);
    }
    return byId(a, b);
  });
  return idx;
}

/** The rows a virtualised list must render for a scroll position: [start, end) with overscan. */
export function visibleRange(scrollTop: number, viewportHeight: number, rowHeight: number, total: number, overscan = 8): { start: number; end: number } {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const count = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total, first - overscan));
  const end = Math.min(total, first + count + overscan);
  return { start, end: Math.max(start, end) };
}
