import { promises as fs } from 'node:fs';
import path from 'node:path';
import { loadTasks } from '../core/discovery/index';
import type { Task } from '../core/model/task';
import { UsageError, type CliIo } from './command';

/** A task named on the command line, with the path the output shows for it. */
export interface CliTarget {
  readonly task: Task;
  /** As the user gave it: relative to the working directory, or absolute when they named an absolute path. */
  readonly path: string;
}

/**
 * The tasks under the paths a command was given (default "."). A path that does not exist is a
 * usage error; so is finding no task at all when `requireTasks` is set (commands that run things).
 */
export async function loadTargets(given: readonly string[], io: CliIo, options: { requireTasks?: boolean } = {}): Promise<CliTarget[]> {
  const named = given.length ? given : ['.'];
  const roots: string[] = [];
  for (const p of named) {
    const abs = path.resolve(io.cwd, p);
    try {
      await fs.stat(abs);
    } catch {
      throw new UsageError(`no such file or folder: ${p}`);
    }
    roots.push(abs);
  }
  const tasks = await loadTasks(roots, { signal: io.signal });
  if (options.requireTasks && !tasks.length) throw new UsageError(`no tasks (task.yaml or task.toml) under ${named.join(', ')}`);
  const absolute = named.some((p) => path.isAbsolute(p));
  return tasks.map((task) => ({ task, path: displayPath(task.dir, io.cwd, absolute) }));
}

function displayPath(dir: string, cwd: string, absolute: boolean): string {
  if (absolute) return dir;
  const rel = path.relative(cwd, dir).split(path.sep).join('/');
  return rel === '' ? '.' : rel;
}
