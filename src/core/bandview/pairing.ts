import type { ClassifiedModel } from './classify';

/** Tasks at the same (a, b) point, drawn as one bubble whose area is the count. */
export interface ScatterPoint {
  readonly a: number;
  readonly b: number;
  readonly ids: readonly string[];
  readonly differs: number;
}

export interface Pairing {
  /** Tasks both models ran with at least one valid attempt each (the scatter's tasks). */
  readonly paired: number;
  readonly points: readonly ScatterPoint[];
  readonly differing: number;
  /** Tasks only one of the two models ran. */
  readonly onlyA: number;
  readonly onlyB: number;
}

/**
 * Pairs two models' tasks by id. Tasks without a valid attempt under either model have no rate and are
 * left out of the scatter. Points are aggregated: few attempts per task give few distinct rates, so
 * 10,000 tasks collapse to a handful of bubbles; `grid` rounds rates first when they are many.
 */
export function pairModels(A: ClassifiedModel, B: ClassifiedModel, grid = 0): Pairing {
  const bt = B.source.tasks, at = A.source.tasks;
  const inB = new Map<string, number>();
  for (let i = 0; i < bt.length; i++) inB.set(bt[i]!.id, i);
  const byPoint = new Map<number, { a: number; b: number; ids: string[]; differs: number }>();
  const round = (x: number): number => (grid > 0 ? Math.round(x / grid) * grid : Math.round(x * 1e4) / 1e4);
  let onlyA = 0, shared = 0, differing = 0, paired = 0;
  for (let ia = 0; ia < at.length; ia++) {
    const ta = at[ia]!;
    const ib = inB.get(ta.id);
    if (ib === undefined) { onlyA++; continue; }
    shared++;
    const tb = bt[ib]!;
    if (ta.attempts === 0 || tb.attempts === 0) continue;
    const differs = A.bands[ia] !== B.bands[ib];
    const a = ta.successes / ta.attempts, b = tb.successes / tb.attempts;
    paired++;
    if (differs) differing++;
    // Numeric keys: rates are rounded to 1e-4, so a*1e4 and b*1e4 are small integers.
    const ra = round(a), rb = round(b);
    const key = Math.round(ra * 1e4) * 100_003 + Math.round(rb * 1e4);
    let p = byPoint.get(key);
    if (!p) { p = { a: ra, b: rb, ids: [], differs: 0 }; byPoint.set(key, p); }
    p.ids.push(ta.id);
    if (differs) p.differs++;
  }
  return { paired, points: [...byPoint.values()], differing, onlyA, onlyB: bt.length - shared };
}
