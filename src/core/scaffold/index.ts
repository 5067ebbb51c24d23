import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { scaffoldFiles, type ScaffoldOptions } from './templates';

export { scaffoldFiles, type ScaffoldFile, type ScaffoldOptions } from './templates';

/**
 * Why `id` cannot name a new task, or undefined when it can. Both formats identify a task by its
 * folder name, and harnesses use it in image and container names: lowercase, digits, `-`, `_`, `.`.
 */
export function taskIdProblem(id: string): string | undefined {
  if (!id) return 'Enter a task id.';
  if (id.length > 100) return 'A task id has at most 100 characters.';
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(id)) return 'Use lowercase letters, digits, "-", "_" or "." (starting with a letter or digit).';
  return undefined;
}

/**
 * Writes a new task folder `<parentDir>/<id>` and returns its path. Refuses when the id is not valid
 * or the folder already exists, so an existing task is never overwritten.
 */
export async function createTask(parentDir: string, options: ScaffoldOptions): Promise<string> {
  const problem = taskIdProblem(options.id);
  if (problem) throw new Error(`Cannot create task '${options.id}': ${problem}`);
  const dir = path.join(parentDir, options.id);
  if (await exists(dir)) throw new Error(`Cannot create task '${options.id}': ${dir} already exists.`);
  for (const file of scaffoldFiles(options)) {
    const target = path.join(dir, ...file.path.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content, { flag: 'wx' });
    if (file.executable) await chmod(target, 0o755);
  }
  return dir;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
