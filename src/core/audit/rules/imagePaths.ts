import type { AuditContext } from '../context';
import { copyDestFor } from './dockerfile';
import { filesCopiedBy, inBuildContext } from './buildContextFiles';

/** Where the final image gets its files from: exact paths of context files, and folders filled from another stage. */
export interface ImagePaths {
  /** Absolute image path → the 0-based Dockerfile line of the COPY that puts it there, and the task file copied. */
  readonly files: ReadonlyMap<string, { readonly line: number; readonly source: string }>;
  /** Destinations of `COPY --from=…` (contents unknown here, but made by the build, not by the agent). */
  readonly stageDirs: readonly string[];
}

const cache = new WeakMap<AuditContext, ImagePaths>();

/**
 * The files the environment itself puts into the agent's image (COPY/ADD of the final stage), by
 * their path in the image: the data flow rules ask "does this file exist before the agent starts,
 * made by the task and not by the agent?" by path, never by name.
 */
export function imagePaths(ctx: AuditContext): ImagePaths {
  let out = cache.get(ctx);
  if (out) return out;
  const files = new Map<string, { line: number; source: string }>();
  const prefix = `${ctx.task.environment.contextDir || '.'}/`.replace(/^\.\//, '');
  const stageDirs: string[] = [];
  const df = ctx.dockerfile();
  const lastFrom = df?.froms.at(-1)?.instruction.range.start.line ?? -1;
  const wd = ctx.workdir().replace(/\/+$/, '');
  const abs = (p: string): string => (p.startsWith('/') ? p : `${wd}/${p.replace(/^\.\//, '')}`).replace(/\/+$/, '').replace(/\/\.$/, '');
  for (const copy of df?.copies ?? []) {
    const line = copy.instruction.range.start.line;
    if (line < lastFrom || !copy.dest) continue;
    if (copy.from) { stageDirs.push(abs(copy.dest.value)); continue; }
    for (const src of copy.sources) {
      const s = src.value.replace(/^["']|["']$/g, '').replace(/^\.\//, '');
      if (inBuildContext(ctx, s)) {
        // `COPY x.py .` lands in the workdir under its own name.
        const dest = copy.dest.value === '.' ? `${wd}/${s.split('/').pop() ?? s}` : copyDestFor(copy, s);
        files.set(abs(dest), { line, source: `${prefix}${s}` });
        continue;
      }
      for (const f of filesCopiedBy(ctx, copy, s)) files.set(abs(f.dest), { line, source: `${prefix}${f.file}` });
    }
  }
  out = { files, stageDirs };
  cache.set(ctx, out);
  return out;
}

/** Whether the build (not the agent) makes the file at this image path. */
export function madeByImage(ctx: AuditContext, p: string): boolean {
  const { files, stageDirs } = imagePaths(ctx);
  return files.has(p) || stageDirs.some((d) => d !== '' && p.startsWith(`${d}/`));
}
