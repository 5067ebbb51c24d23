import fs from 'node:fs';
import path from 'node:path';

/**
 * The task folder is the boundary of everything Taskwright copies into a container: a symlink or a
 * path (compose `build.context`, `tests -> /etc`, a `solution.sh` linked to a host file) that leads
 * outside it is refused, never followed. Links that stay inside keep working.
 */
export const PATH_OUTSIDE_TASK = 'path-outside-task';

export class PathOutsideTaskError extends Error {
  readonly rule = PATH_OUTSIDE_TASK;
  constructor(readonly taskDir: string, readonly rel: string, readonly target: string) {
    super(`${rel} leads outside the task folder (to ${target}): refused, nothing from outside a task is copied into a container`);
    this.name = 'PathOutsideTaskError';
  }
}

/** `p` is `root` or lies below it, by the paths as written (no link is followed). */
export function within(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith(`..${path.sep}`) && !path.isAbsolute(r));
}

/** Whether `p` is a symbolic link itself (false when it does not exist). */
export function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const realRoots = new Map<string, string>();

function realRoot(taskDir: string): string {
  const abs = path.resolve(taskDir);
  let r = realRoots.get(abs);
  if (r === undefined) {
    try {
      r = fs.realpathSync.native(abs);
    } catch {
      r = abs;
    }
    if (realRoots.size > 1000) realRoots.clear();
    realRoots.set(abs, r);
  }
  return r;
}

/**
 * Where `abs` really leads when that is outside `taskDir` (following every link on the way,
 * a dangling link by its text); undefined when it stays inside.
 */
export function escapesTask(taskDir: string, abs: string): string | undefined {
  const root = path.resolve(taskDir);
  const p = path.resolve(abs);
  if (!within(root, p)) return p;
  const rroot = realRoot(root);
  try {
    // The system's realpath(3): one call, where fs.realpathSync lstats every component in JS (the
    // audit asks this for several paths of every task).
    const real = fs.realpathSync.native(p);
    return within(rroot, real) ? undefined : real;
  } catch {
    // Missing, or a dangling link: judge the link's own text (a container would resolve it there).
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      const parent = path.dirname(p);
      return parent === p || !within(root, parent) ? undefined : escapesTask(root, parent);
    }
    if (!st.isSymbolicLink()) return undefined;
    const target = path.resolve(path.dirname(p), fs.readlinkSync(p));
    return within(root, target) || within(rroot, target) ? escapesTask(root, path.dirname(p)) : target;
  }
}

function relOf(taskDir: string, abs: string): string {
  const r = path.relative(path.resolve(taskDir), path.resolve(abs)).split(path.sep).join('/');
  return r === '' ? '.' : r;
}

/** Throws {@link PathOutsideTaskError} when `abs` (or a link on its way) leaves the task folder. */
export function assertInsideTask(taskDir: string, abs: string): void {
  const target = escapesTask(taskDir, abs);
  if (target !== undefined) throw new PathOutsideTaskError(taskDir, relOf(taskDir, abs), target);
}
