import type { Band } from '../band/types';
import type { ClassifiedModel } from './classify';

/** One task run by both models: its success rate under each, and whether its band differs. */
export interface PairedTask {
  readonly id: string;
  readonly a: number;
  readonly b: number;
  readonly bandA: Band;
  readonly bandB: Band;
  readonly differs: boolean;
}

/** Tasks at the same (a, b) point, drawn as one bubble whose area is the count. */
export interface ScatterPoint {
  readonly a: number;
  readonly b: number;
  readonly ids: readonly string[];
  readonly differs: number;
}

export interface Pairing {
  readonly tasks: readonly PairedTask[];
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
  const inB = new Map<string, number>();
  B.source.tasks.forEach((t, i) => inB.set(t.id, i));
  const tasks: PairedTask[] = [];
  let onlyA = 0;
  const seen = new Set<string>();
  A.source.tasks.forEach((ta, ia) => {
    const ib = inB.get(ta.id);
    if (ib === undefined) { onlyA++; return; }
    seen.add(ta.id);
    const tb = B.source.tasks[ib]!;
    if (ta.attempts === 0 || tb.attempts === 0) return;
    const bandA = A.bands[ia]!, bandB = B.bands[ib]!;
    tasks.push({ id: ta.id, a: ta.successes / ta.attempts, b: tb.successes / tb.attempts, bandA, bandB, differs: bandA !== bandB });
  });
  const onlyB = B.source.tasks.length - seen.size;
  const round = (x: number): number => (grid > 0 ? Math.round(x / grid) * grid : Math.round(x * 1e6) / 1e6);
  const byPoint = new Map<string, { a: number; b: number; ids: string[]; differs: number }>();
  for (const t of tasks) {
    const a = round(t.a), b = round(t.b);
    const k = `${a},${b}`;
    let p = byPoint.get(k);
    if (!p) { p = { a, b, ids: [], differs: 0 }; byPoint.set(k, p); }
    p.ids.push(t.id);
    if (t.differs) p.differs++;
  }
  return { tasks, points: [...byPoint.values()], differing: tasks.filter((t) => t.differs).length, onlyA, onlyB };
}
