import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import type { Task } from '../model/task';
import { isTaskConfigFile, loadTask, type LoadOptions } from '../loader/index';

export interface DiscoverOptions {
  signal?: AbortSignal;
  /** Extra folder names never searched (added to node_modules, .git and .taskwright). */
  ignore?: readonly string[];
}

/** Folders never searched for tasks: VCS data, dependencies and Taskwright's own state folder. */
export const IGNORED_FOLDERS: readonly string[] = ['node_modules', '.git', '.taskwright'];

/** Deep enough for datasets of datasets; shallow enough that a mistaken root (`/`) stays bounded. */
const MAX_DEPTH = 24;
const LOAD_CONCURRENCY = 8;

/**
 * Every folder holding `task.yaml` or `task.toml` under the roots (a root may itself be a task, and a
 * root that is a config file stands for its folder). A task folder is a leaf: its subfolders are its
 * own files (environment/, tests/, fixtures that may look like tasks) and are not searched.
 * Symlinked folders are followed once: real paths are tracked, so links that loop, or that reach a
 * folder already seen, add nothing. Returns absolute paths, sorted; aborts with `signal.reason`.
 */
export async function discoverTaskDirs(roots: readonly string[], options: DiscoverOptions = {}): Promise<string[]> {
  const ignored = new Set([...IGNORED_FOLDERS, ...(options.ignore ?? [])]);
  const seenReal = new Set<string>();
  const found = new Set<string>();
  const signal = options.signal;

  // Symlinked folders wait until every real folder has been seen, so a task reachable both ways is
  // listed under its real path; links found while following links wait for the next round.
  let pendingLinks: { dir: string; depth: number }[] = [];

  const visit = async (dir: string, depth: number): Promise<void> => {
    signal?.throwIfAborted();
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch {
      return;
    }
    if (seenReal.has(real)) return;
    seenReal.add(real);
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => isTaskConfigFile(e.name) && (e.isFile() || e.isSymbolicLink()))) {
      found.add(dir);
      return;
    }
    if (depth >= MAX_DEPTH) return;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (ignored.has(e.name)) continue;
      const child = path.join(dir, e.name);
      if (e.isDirectory()) await visit(child, depth + 1);
      else if (e.isSymbolicLink() && (await isDirectory(child))) pendingLinks.push({ dir: child, depth: depth + 1 });
    }
  };

  for (const root of roots) {
    const abs = path.resolve(root);
    if (isTaskConfigFile(abs) && !(await isDirectory(abs))) await visit(path.dirname(abs), 0);
    else await visit(abs, 0);
  }
  while (pendingLinks.length > 0) {
    const round = pendingLinks;
    pendingLinks = [];
    for (const link of round) await visit(link.dir, link.depth);
  }
  return [...found].sort();
}

/** Discovers and loads every task under the roots, in path order. Loading never throws for bad tasks. */
export async function loadTasks(roots: readonly string[], options: DiscoverOptions & LoadOptions = {}): Promise<Task[]> {
  const dirs = await discoverTaskDirs(roots, options);
  const tasks: Task[] = new Array<Task>(dirs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < dirs.length) {
      options.signal?.throwIfAborted();
      const i = next++;
      tasks[i] = await loadTask(dirs[i] as string, options.overlay ? { overlay: options.overlay } : {});
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, dirs.length) }, worker));
  return tasks;
}

/**
 * The dataset a task belongs to, for grouping: its parent folder relative to the root that holds it
 * (POSIX separators), or the root's own name when the task sits directly in the root. With several
 * roots the label starts with the root's name so equal folder names in two roots stay apart. A task
 * that is itself a root, or lies outside every root, is labelled with its parent folder's name.
 */
export function datasetOf(taskDir: string, roots: readonly string[]): string {
  const task = path.resolve(taskDir);
  const parent = path.dirname(task);
  const containing = roots
    .map((r) => path.resolve(r))
    .filter((r) => r !== task && isInside(task, r))
    .sort((a, b) => b.length - a.length)[0];
  if (containing === undefined) return path.basename(parent) || parent;
  const rootName = path.basename(containing) || containing;
  const rel = path.relative(containing, parent).split(path.sep).join('/');
  if (rel === '') return rootName;
  return roots.length > 1 ? `${rootName}/${rel}` : rel;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}
