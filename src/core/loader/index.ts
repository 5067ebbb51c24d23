import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Task, TaskFormat } from '../model/task';
import { inFolders, vendoredFolders } from '../model/vendored';
import { TaskFiles } from './files';
import { loadHarbor } from './harbor';
import { ProblemSink } from './problems';
import { loadTb1 } from './tb1';

export { LOADER_RULES, LOADER_RULE_IDS, type LoaderRule } from './problems';
export { TB1_DEFAULTS } from './tb1';
export { HARBOR_DEFAULTS, HARBOR_SCHEMA_VERSIONS } from './harbor';

export interface LoadOptions {
  /** Unsaved editor text by absolute path; wins over disk. */
  overlay?: ReadonlyMap<string, string>;
}

const CONFIG_FILES: Readonly<Record<string, TaskFormat>> = { 'task.toml': 'harbor', 'task.yaml': 'tb1' };

/** True for a task's config file (`task.yaml` or `task.toml`), by base name. */
export function isTaskConfigFile(filePath: string): boolean {
  return Object.prototype.hasOwnProperty.call(CONFIG_FILES, path.basename(filePath));
}

/** The format of the task in `dir`; `task.toml` wins when both configs exist (a migrated task). */
export async function detectFormat(dir: string, options: LoadOptions = {}): Promise<TaskFormat | undefined> {
  const files = new TaskFiles(path.resolve(dir), options.overlay);
  for (const [file, format] of Object.entries(CONFIG_FILES)) if (await files.isFile(file)) return format;
  return undefined;
}

/**
 * Loads one task folder in either format. Never throws for bad task content: whatever cannot be read
 * becomes a problem (class `invalidity`) on the file it concerns, and defaults fill the gaps.
 */
export async function loadTask(dir: string, options: LoadOptions = {}): Promise<Task> {
  const abs = path.resolve(dir);
  const id = path.basename(abs);
  const files = new TaskFiles(abs, options.overlay);
  const problems = new ProblemSink(id);
  const fileList = await files.list();
  const format = await detectFormat(abs, options);
  if (format !== undefined) reportNestedTasks(fileList, problems);
  if (format === 'harbor') return loadHarbor(id, files, fileList, problems);
  if (format === 'tb1') return loadTb1(id, files, fileList, problems);
  // No config at all: load as the format the folder looks like, so every other gap is reported too.
  let isDir = false;
  try { isDir = (await fs.stat(abs)).isDirectory(); } catch { /* reported below */ }
  problems.add('config-parse-error', undefined, undefined,
    isDir ? `no task.yaml or task.toml in ${abs}` : `${abs} is not a folder`);
  const looksHarbor = fileList.includes('instruction.md') || fileList.some((f) => f.startsWith('environment/'));
  return looksHarbor ? loadHarbor(id, files, fileList, problems) : loadTb1(id, files, fileList, problems);
}

/** A task's own parts: what lies under them is the task's data, even when it looks like a task. */
const TASK_PARTS = /^(environment|tests|solution|steps|\.[^/]+)\//;

/**
 * Discovery treats a task folder as a leaf, so a task inside another task's folder (a dataset nested
 * in a task, a copied task) is never audited or run: say so once per nested folder.
 */
function reportNestedTasks(fileList: readonly string[], problems: ProblemSink): void {
  const nested = new Set<string>();
  // The example and template tasks of a project copied in whole (a checkout of the Harbor framework
  // beside the task) belong to that project: nobody meant them as tasks of this dataset. Scanned only
  // when a nested task config is there at all (every load runs this, editor edits included).
  let vendored: string[] | undefined;
  for (const f of fileList) {
    const slash = f.lastIndexOf('/');
    if (slash < 0 || TASK_PARTS.test(f) || !isTaskConfigFile(f)) continue;
    vendored ??= vendoredFolders(fileList);
    if (inFolders(f, vendored)) continue;
    const dir = f.slice(0, slash);
    if (![...nested].some((d) => dir.startsWith(`${d}/`))) nested.add(dir);
  }
  for (const dir of [...nested].sort()) {
    problems.add('nested-task-folder', `${dir}/${fileList.includes(`${dir}/task.toml`) ? 'task.toml' : 'task.yaml'}`, undefined,
      `${dir}/ holds its own task, but a task folder is searched no further: it is never audited or run. Move it next to this task, or remove it.`);
  }
}
