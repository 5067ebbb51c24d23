import fs from 'node:fs';
import path from 'node:path';
import { composeVars, readComposeMain } from '../../sandbox/compose';
import { escapesTask, PATH_OUTSIDE_TASK } from '../../sandbox/contain';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';

function isLink(abs: string): boolean {
  try {
    return fs.lstatSync(abs).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The paths the harness copies into a container (tests, verifier entry, solution, build context,
 * Dockerfile, compose `build.context`) and every symlink among the task's files, checked with the
 * same test the runner applies before it copies anything (src/core/sandbox/contain.ts).
 */
function* check(ctx: AuditContext): Iterable<Report> {
  const { task } = ctx;
  const seen = new Set<string>();
  const report = (rel: string, what: string, abs = path.resolve(task.dir, rel)): Report | undefined => {
    const target = escapesTask(task.dir, abs);
    if (target === undefined || seen.has(abs)) return undefined;
    seen.add(abs);
    const shown = path.relative(task.dir, abs).split(path.sep).join('/') || '.';
    const file = shown.startsWith('..') || path.isAbsolute(shown) ? task.configFile : shown;
    return {
      file,
      message: `${what} ${shown} leads outside the task folder (to ${target}); the runner refuses to copy it, so every trial of this task fails. Copy the files into the task or point inside it.`,
    };
  };
  const named: [string | undefined, string][] = [
    [task.verifier.testsDir, 'The tests folder'],
    [task.verifier.entry, 'The verifier entry'],
    [task.solution.file, 'The reference solution'],
    [task.environment.dockerfile, 'The Dockerfile'],
    [task.environment.contextDir, 'The build context'],
  ];
  for (const [rel, what] of named) {
    if (!rel) continue;
    const r = report(rel, what);
    if (r) yield r;
  }
  if (task.environment.composeFile) {
    const abs = path.resolve(task.dir, task.environment.composeFile);
    let build: { context: string; dockerfile: string } | undefined;
    try {
      build = readComposeMain(abs, composeVars(task, 'main', 'main'), task.format).build;
    } catch {
      build = undefined; // An unreadable compose file is reported by the loader and the runner.
    }
    if (build) {
      const r = report(path.relative(task.dir, build.context), `The compose build.context of ${task.environment.composeFile}`, build.context);
      if (r) yield { ...r, file: task.environment.composeFile };
    }
  }
  for (const rel of task.files) {
    const abs = path.join(task.dir, rel);
    if (!isLink(abs)) continue;
    const r = report(rel, 'The symlink');
    if (r) yield r;
  }
}

export const pathOutsideTask: StaticRule = {
  id: PATH_OUTSIDE_TASK,
  class: 'invalidity',
  severity: 'error',
  title: 'A symlink or path of the task leads outside its folder',
  check,
};
