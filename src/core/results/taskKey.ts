import path from 'node:path';
import type { TrialRecord } from './trial';

/** Task id a record is shown under: its recorded id, else the folder name of its path. */
export function recordTaskId(r: Pick<TrialRecord, 'task' | 'taskId'>): string {
  return r.taskId ?? path.basename(r.task.replace(/[\\/]+$/, ''));
}

/**
 * What tells tasks apart when counting: the task's path as recorded (normalised), never its folder
 * name or id alone — `a/hello` and `b/hello` are two tasks. Imports without a path use their name.
 * The band and a run's resume plan both count by it, so they agree on what one task is.
 */
export function recordTaskKey(r: Pick<TrialRecord, 'task' | 'taskId'>): string {
  const p = r.task.replace(/\\/g, '/').replace(/\/+$/, '').replace(/^(\.\/)+/, '');
  return p || recordTaskId(r);
}
