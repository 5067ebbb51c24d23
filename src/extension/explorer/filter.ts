import type { Difficulty, Task, TaskFormat } from '../../core/model/task';

/** What the Task Explorer shows; every part that is set must match. */
export interface TaskFilter {
  /** Case-insensitive substring of the id, category, tags or dataset path. */
  readonly text?: string;
  readonly difficulties?: readonly Difficulty[];
  readonly formats?: readonly TaskFormat[];
}

export function isEmptyFilter(f: TaskFilter): boolean {
  return !f.text && !f.difficulties?.length && !f.formats?.length;
}

export function matchesFilter(task: Task, f: TaskFilter): boolean {
  if (f.difficulties?.length && !f.difficulties.includes(task.metadata.difficulty)) return false;
  if (f.formats?.length && !f.formats.includes(task.format)) return false;
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
  return parts.join(' · ');
}
