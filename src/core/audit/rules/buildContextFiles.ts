import fs from 'node:fs';
import path from 'node:path';
import { dockerignoreMatcher } from '../../sandbox/buildContext';
import type { AuditContext } from '../context';

const ignoreCache = new WeakMap<AuditContext, (rel: string) => boolean>();

/** The build context's `.dockerignore` (read from disk: the audit context does not load it). */
function ignored(ctx: AuditContext): (rel: string) => boolean {
  let m = ignoreCache.get(ctx);
  if (!m) {
    let text = '';
    const rel = path.posix.join(ctx.task.environment.contextDir || '.', '.dockerignore');
    // The loader's file list says whether there is one; most tasks have none, so no syscall.
    if (ctx.task.files.includes(rel)) {
      try {
        text = fs.readFileSync(path.join(ctx.task.dir, rel), 'utf8');
      } catch {
        // Gone since the task was loaded: Docker would send the whole context.
      }
    }
    m = text ? dockerignoreMatcher(text) : () => false;
    ignoreCache.set(ctx, m);
  }
  return m;
}

/** Whether Docker would send this context-relative file to the builder. */
export function inBuildContext(ctx: AuditContext, rel: string): boolean {
  return ctx.contextFiles.has(rel) && !ignored(ctx)(rel);
}
