import type { Band } from '../../core/band/types';
import type { Difficulty, Task, TaskFormat } from '../../core/model/task';

/** A task's health as its icon shows it (the worst of audit and validation). */
export type Health = 'error' | 'warning' | 'info' | 'ok';
export const HEALTHS: readonly Health[] = ['error', 'warning', 'info', 'ok'];

/** What the Task Explorer shows; every part that is set must match. */
export interface TaskFilter {
  /** Case-insensitive substring of the id, category, tags or dataset path. */
  readonly text?: string;
  readonly difficulties?: readonly Difficulty[];
  readonly formats?: readonly TaskFormat[];
  /** Tasks whose icon (audit / validation) is one of these. */
  readonly health?: readonly Health[];
  /** Tasks whose band for the selected model is one of these. */
  readonly bands?: readonly Band[];
}

/** What the filter needs to know about a task beyond its files: its status, from the status service. */
export interface TaskFacts {
  readonly health?: Health;
  readonly band?: Band;
}

export function isEmptyFilter(f: TaskFilter): boolean {
  return !f.text && !f.difficulties?.length && !f.formats?.length && !f.health?.length && !f.bands?.length;
}

export function matchesFilter(task: Task, f: TaskFilter, facts: TaskFacts = {}): boolean {
  if (f.difficulties?.length && !f.difficulties.includes(task.metadata.difficulty)) return false;
  if (f.formats?.length && !f.formats.includes(task.format)) return false;
  if (f.health?.length && (!facts.health || !f.health.includes(facts.health))) return false;
  if (f.bands?.length && (!facts.band || !f.bands.includes(facts.band))) return false;
  const text = f.text?.trim().toLowerCase();
  if (text) {
    const hay = [task.id, task.metadata.category, ...task.metadata.tags, task.dir].join('\n').toLowerCase();
    if (!hay.includes(text)) return false;
  }
  return true;
}

export const FORMAT_LABEL: Readonly<Record<TaskFormat, string>> = {
  tb1: 'Terminal-Bench 1 (task.yaml)',
  harbor: 'Harbor / Terminal-Bench 2 (task.toml)',
};

/** One line for the view's message, e.g. `text "sort" · easy, medium · harbor`. */
export function describeFilter(f: TaskFilter): string {
  const parts: string[] = [];
  if (f.text) parts.push(`"${f.text}"`);
  if (f.difficulties?.length) parts.push(f.difficulties.join(', '));
  if (f.formats?.length) parts.push(f.formats.join(', '));
  if (f.health?.length) parts.push(`health ${f.health.join(', ')}`);
  if (f.bands?.length) parts.push(`band ${f.bands.join(', ')}`);
  return parts.join(' · ');
}
