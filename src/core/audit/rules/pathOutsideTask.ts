import fs from 'node:fs';
import path from 'node:path';
import { composeVars, readComposeMain } from '../../sandbox/compose';
import { escapesTask, isLink, PATH_OUTSIDE_TASK, within } from '../../sandbox/contain';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';

/**
 * The paths the harness copies into a container (tests, verifier entry, solution, build context,
 * Dockerfile, compose `build.context`), checked with the same test the runner applies before it copies
 * anything (src/core/sandbox/contain.ts), and, as notes, the symlinks among the task's files that point out.
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
  // A link deeper in the task is copied as a link by Docker, the harnesses and the runner alike, never
  // followed: it reads nothing of the host, and in the container it leads wherever its text says there.
  // Judged false as errors on real tasks (a committed virtualenv's `bin/python -> /usr/bin/python3`):
  // a note, with the link's own text rather than where it happens to lead on this machine.
  for (const rel of task.files) {
    const abs = path.join(task.dir, rel);
    if (seen.has(abs) || !isLink(abs) || escapesTask(task.dir, abs) === undefined) continue;
    seen.add(abs);
    const text = linkText(abs);
    // A link to a sibling that itself leads out (`python3 -> python`) is that sibling's finding.
    const own = text === undefined ? undefined : path.resolve(path.dirname(abs), text);
    if (own !== undefined && within(path.resolve(task.dir), own)) continue;
    yield {
      file: rel, severity: 'info',
      message: `The symlink ${rel} points outside the task folder (${text === undefined ? 'a link' : `-> ${text}`}). It is copied as a link, not followed, so the task still builds; in the container it leads to whatever is at that path there, or nowhere. Replace it by the file it stands for if the task needs that file, or remove it.`,
    };
  }
}

function linkText(abs: string): string | undefined {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return undefined;
  }
}

export const pathOutsideTask: StaticRule = {
  id: PATH_OUTSIDE_TASK,
  class: 'invalidity',
  severity: 'error',
  title: 'A symlink or path of the task leads outside its folder',
  check,
};
