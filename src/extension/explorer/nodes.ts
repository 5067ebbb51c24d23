import * as path from 'node:path';
import { datasetOf } from '../../core/discovery/index';
import type { Task } from '../../core/model/task';

/** The roles of a task's key files, in the order the explorer lists them. */
export type FileRole = 'config' | 'instruction' | 'environment' | 'tests' | 'solution';

export interface DatasetNode {
  readonly kind: 'dataset';
  /** Absolute folder holding the tasks. */
  readonly dir: string;
  readonly label: string;
  readonly tasks: readonly Task[];
}

export interface TaskNode {
  readonly kind: 'task';
  readonly task: Task;
}

export interface FileNode {
  readonly kind: 'file';
  readonly task: Task;
  readonly role: FileRole;
  /** Path relative to the task folder (POSIX). */
  readonly file: string;
  /** False when the task configures the file but it is not there. */
  readonly exists: boolean;
}

export type ExplorerNode = DatasetNode | TaskNode | FileNode;

/** Groups tasks by the folder that holds them (the dataset), labelled as the CLI labels it. */
export function groupByDataset(tasks: readonly Task[], roots: readonly string[]): DatasetNode[] {
  const groups = new Map<string, Task[]>();
  for (const t of tasks) {
    const dir = path.dirname(t.dir);
    const list = groups.get(dir);
    if (list) list.push(t);
    else groups.set(dir, [t]);
  }
  return [...groups].map(([dir, list]) => ({
    kind: 'dataset' as const,
    dir,
    label: list[0] ? datasetOf(list[0].dir, roots) : dir,
    tasks: list.sort((a, b) => a.id.localeCompare(b.id)),
  })).sort((a, b) => a.label.localeCompare(b.label));
}

/** The key files of a task: config, instruction, environment, verifier and tests, solution. */
export function keyFiles(task: Task): FileNode[] {
  const have = new Set(task.files);
  const out: FileNode[] = [];
  const seen = new Set<string>();
  const add = (role: FileRole, file: string | undefined): void => {
    if (!file || seen.has(file)) return;
    seen.add(file);
    out.push({ kind: 'file', task, role, file, exists: have.has(file) });
  };
  add('config', task.configFile);
  add('instruction', task.instructionFile);
  add('environment', task.environment.dockerfile);
  add('environment', task.environment.composeFile);
  add('tests', task.verifier.entry);
  const testsPrefix = task.verifier.testsDir ? `${task.verifier.testsDir.replace(/\/$/, '')}/` : undefined;
  if (testsPrefix) for (const f of task.files) if (f.startsWith(testsPrefix) && !/(^|\/)(__pycache__|\.pytest_cache)\//.test(f)) add('tests', f);
  add('solution', task.solution.file);
  return out;
}
