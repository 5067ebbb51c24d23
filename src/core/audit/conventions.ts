import type { Severity } from '../model/finding';
import type { LineKeyedFinding } from './fingerprint';

/**
 * Dataset conventions: one finding (same rule, same task file, same line text) that repeats across
 * most tasks of a dataset, such as the same bootstrap in every tests/test.sh. Reports show it once
 * per dataset with its count instead of once per task; the per-task findings stay (marked).
 *
 * Threshold: the finding appears in more than half of the dataset's tasks and in at least
 * MIN_TASKS of them. "More than half" is the plain reading of "most"; the floor keeps a pair of
 * tasks that happen to share a line from being called a convention.
 */
export const CONVENTION_MIN_TASKS = 5;
export const CONVENTION_MIN_SHARE = 0.5;

/** `file` is task-relative ('' for task-level findings); message and line are the first task's. */
export interface Convention extends LineKeyedFinding {
  readonly dataset: string;
  /** Tasks of the dataset that have it, and tasks in the dataset. */
  readonly count: number;
  readonly tasks: number;
}

export interface ConventionFinding {
  readonly rule: string;
  readonly severity: Severity;
  readonly file: string | null;
  readonly line: number | null;
  readonly fp: string;
  readonly message: string;
}

function key(dataset: string, f: { readonly rule: string; readonly file?: string | null | undefined; readonly fp: string }): string {
  return `${dataset}\u0000${f.rule}\u0000${f.file ?? ''}\u0000${f.fp}`;
}

interface Tally {
  count: number;
  readonly first: ConventionFinding;
}

/**
 * Counts, per dataset, how many tasks have each finding key (a task counts once per key). Holds one
 * small entry per distinct key, never the findings themselves.
 */
export class ConventionCounter {
  private readonly tallies = new Map<string, Tally>();
  private readonly taskCount = new Map<string, number>();
  private found: Map<string, number> | undefined;
  private list: Convention[] | undefined;

  add(dataset: string, findings: readonly ConventionFinding[]): void {
    this.taskCount.set(dataset, (this.taskCount.get(dataset) ?? 0) + 1);
    const seen = new Set<string>();
    for (const f of findings) {
      const k = key(dataset, f);
      if (seen.has(k)) continue;
      seen.add(k);
      const t = this.tallies.get(k);
      if (t) t.count++;
      else this.tallies.set(k, { count: 1, first: f });
    }
    this.found = undefined;
    this.list = undefined;
  }

  /** Every convention, by dataset then count (most common first), then rule and file. */
  conventions(): readonly Convention[] {
    if (this.list) return this.list;
    const out: Convention[] = [];
    for (const [k, t] of this.tallies) {
      const dataset = k.slice(0, k.indexOf('\u0000'));
      const tasks = this.taskCount.get(dataset) ?? 0;
      if (t.count < CONVENTION_MIN_TASKS || t.count <= tasks * CONVENTION_MIN_SHARE) continue;
      const f = t.first;
      out.push({ dataset, rule: f.rule, file: f.file ?? '', fp: f.fp, severity: f.severity, message: f.message, line: f.line, count: t.count, tasks });
    }
    out.sort((a, b) => (a.dataset < b.dataset ? -1 : a.dataset > b.dataset ? 1 : 0) || b.count - a.count
      || a.rule.localeCompare(b.rule) || a.file.localeCompare(b.file) || a.fp.localeCompare(b.fp));
    this.list = out;
    return out;
  }

  /** The index in conventions() of the convention a finding of `dataset` belongs to, if any. */
  indexOf(dataset: string, f: { readonly rule: string; readonly file?: string | null | undefined; readonly fp: string }): number | undefined {
    if (!this.found) this.found = new Map(this.conventions().map((c, i) => [key(c.dataset, { rule: c.rule, file: c.file, fp: c.fp }), i]));
    return this.found.get(key(dataset, f));
  }
}
