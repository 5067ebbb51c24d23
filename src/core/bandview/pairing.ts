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
  const at = A.source.tasks, bt = B.source.tasks;
  // Models of one report share its id table: a task's id index finds its row in B without a Map.
  const inB = new Int32Array(bt.ids.length + 1).fill(-1);
  const sameTable = at.ids === bt.ids;
  const byName = sameTable ? undefined : new Map<string, number>();
  for (let i = 0; i < bt.length; i++) {
    if (byName) byName.set(bt.ids[bt.id[i]!]!, i);
    else inB[bt.id[i]!] = i;
  }
  const byPoint = new Map<number, { a: number; b: number; ids: string[]; differs: number }>();
  const round = (x: number): number => (grid > 0 ? Math.round(x / grid) * grid : Math.round(x * 1e4) / 1e4);
  let onlyA = 0, shared = 0, differing = 0, paired = 0;
  for (let ia = 0; ia < at.length; ia++) {
    const name = at.ids[at.id[ia]!]!;
    const ib = byName ? (byName.get(name) ?? -1) : inB[at.id[ia]!]!;
    if (ib < 0) { onlyA++; continue; }
    shared++;
    const na = at.attempts[ia]!, nb = bt.attempts[ib]!;
    if (na === 0 || nb === 0) continue;
    const differs = A.bands[ia] !== B.bands[ib];
    const a = at.successes[ia]! / na, b = bt.successes[ib]! / nb;
    paired++;
    if (differs) differing++;
    // Numeric keys: rates are rounded to 1e-4, so a*1e4 and b*1e4 are small integers.
    const ra = round(a), rb = round(b);
    const key = Math.round(ra * 1e4) * 100_003 + Math.round(rb * 1e4);
    let p = byPoint.get(key);
    if (!p) { p = { a: ra, b: rb, ids: [], differs: 0 }; byPoint.set(key, p); }
    p.ids.push(name);
    if (differs) p.differs++;
  }
  return { paired, points: [...byPoint.values()], differing, onlyA, onlyB: bt.length - shared };
}
