import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { relativePathProblem } from '../model/taskPath';

/** One file of a proposed fix: its text before (undefined: a new file) and after. */
export interface FileChange {
  /** Relative to the task folder, `/`-separated. */
  readonly file: string;
  readonly before?: string;
  readonly after: string;
}

/** Why a path the model proposed may not be written; undefined when it may. */
export function changePathProblem(taskDir: string, file: string): string | undefined {
  const lexical = relativePathProblem(file);
  if (lexical) return lexical;
  const parts = file.split('/');
  // Never write through a link that leads out of the task folder (the nearest existing ancestor decides).
  const root = fs.realpathSync(taskDir);
  let probe = path.join(taskDir, ...parts);
  while (!fs.existsSync(probe) && probe !== taskDir) probe = path.dirname(probe);
  const real = fs.realpathSync(probe);
  if (real !== root && !real.startsWith(root + path.sep)) return `'${file}' leads out of the task folder through a link`;
  return undefined;
}

/** The proposed files as changes: the current text read from the task, unchanged files dropped. */
export function changesOf(taskDir: string, files: readonly { path: string; content: string }[]): { changes: FileChange[]; problems: string[] } {
  const changes: FileChange[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const file = f.path.replace(/^\.\//, '');
    const bad = changePathProblem(taskDir, file);
    if (bad) { problems.push(bad); continue; }
    const abs = path.join(taskDir, ...file.split('/'));
    const before = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : undefined;
    if (before === f.content) continue;
    changes.push({ file, ...(before !== undefined ? { before } : {}), after: f.content });
  }
  return { changes, problems };
}

/** Writes the changes into `dir` (the task itself, or a copy), keeping the mode of files that exist. */
export function writeChanges(dir: string, changes: readonly FileChange[]): void {
  for (const c of changes) {
    const abs = path.join(dir, ...c.file.split('/'));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    const mode = fs.existsSync(abs) ? fs.statSync(abs).mode & 0o777 : c.file.endsWith('.sh') ? 0o755 : 0o644;
    fs.writeFileSync(abs, c.after, { mode });
  }
}

/**
 * A scratch copy of the task with the changes applied, for rechecking before anything touches the
 * user's files. Links are copied as links (not followed), so nothing outside the task is read in.
 */
export function scratchCopy(taskDir: string, changes: readonly FileChange[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'taskwright-fix-'));
  const dir = path.join(root, path.basename(taskDir));
  fs.cpSync(taskDir, dir, { recursive: true, verbatimSymlinks: true, filter: (src) => !/[\\/](\.git|\.taskwright|node_modules)$/.test(src) });
  writeChanges(dir, changes);
  return dir;
}

export function removeScratch(dir: string): void {
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
}

/** A unified diff of the changes, paths as `a/<file>` and `b/<file>` (what `git apply` reads). */
export function unifiedDiff(changes: readonly FileChange[]): string {
  return changes.map((c) => createTwoFilesPatch(c.before === undefined ? '/dev/null' : `a/${c.file}`, `b/${c.file}`, c.before ?? '', c.after, '', '', { context: 3 })
    .split('\n').filter((l) => !/^=+$/.test(l)).join('\n')).join('');
}
