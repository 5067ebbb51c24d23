import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertInsideTask } from './contain';
import { entriesFromDir, tarSize, tarStream, type TarEntry } from './tar';

/**
 * A task's build context: the files Docker would receive (after `.dockerignore`), their content
 * hash (the image tag, so an unchanged task never rebuilds) and the tarball sent to the engine.
 */
export interface BuildContext {
  readonly hash: string;
  /** A fresh stream of the context's archive (files read as it is consumed). */
  readonly tar: () => Readable;
  readonly bytes: number;
  /** Dockerfile path inside the context. */
  readonly dockerfile: string;
  readonly files: number;
}

/** `.dockerignore` patterns as Docker reads them: globs, `**`, `!` exceptions, last match wins. */
export function dockerignoreMatcher(text: string): (rel: string) => boolean {
  const rules = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => {
    const negate = l.startsWith('!');
    const pat = path.posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+/, '').replace(/\/+$/, '');
    let re = '';
    for (let i = 0; i < pat.length; i++) {
      const c = pat[i] as string;
      if (c === '*' && pat[i + 1] === '*') {
        re += '.*';
        i++;
        if (pat[i + 1] === '/') i++;
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    // A pattern that names a folder also excludes everything below it.
    return { negate, re: new RegExp(`^${re}(/.*)?$`) };
  });
  return (rel) => {
    let ignored = false;
    for (const r of rules) if (r.re.test(rel)) ignored = !r.negate;
    return ignored;
  };
}

function hashFile(h: ReturnType<typeof createHash>, file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) h.update(n === buf.length ? buf : buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The context as Docker would send it. With `taskDir`, the context folder and the Dockerfile must stay
 * inside the task folder (PathOutsideTaskError otherwise); links in the context go as links, as Docker
 * sends them, never followed.
 */
export function readBuildContext(contextDir: string, dockerfileAbs: string, taskDir?: string): BuildContext {
  if (taskDir) {
    assertInsideTask(taskDir, contextDir);
    assertInsideTask(taskDir, dockerfileAbs);
  }
  const ignorePath = path.join(contextDir, '.dockerignore');
  const ignored = fs.existsSync(ignorePath) ? dockerignoreMatcher(fs.readFileSync(ignorePath, 'utf8')) : () => false;
  const relDockerfile = path.relative(contextDir, dockerfileAbs).split(path.sep).join('/');
  const inside = !relDockerfile.startsWith('..') && !path.isAbsolute(relDockerfile);
  // Docker always sends the Dockerfile and .dockerignore, whatever the ignore file says.
  const keep = (rel: string): boolean => rel === relDockerfile || rel === '.dockerignore' || !ignored(rel);
  const entries: TarEntry[] = entriesFromDir(contextDir, '', { filter: (rel) => keep(rel), ...(taskDir ? { within: taskDir } : {}) });
  let dockerfile = relDockerfile;
  if (!inside) {
    dockerfile = '.taskwright.Dockerfile';
    entries.push({ name: dockerfile, mode: 0o644, type: 'file', data: fs.readFileSync(dockerfileAbs) });
  }
  const h = createHash('sha256');
  h.update(`dockerfile\0${dockerfile}\0`);
  for (const e of entries) {
    h.update(`${e.type}\0${e.name}\0${e.mode & 0o111 ? 'x' : '-'}\0`);
    if (e.data) h.update(e.data);
    else if (e.source) hashFile(h, e.source);
    if (e.linkTarget) h.update(e.linkTarget);
    h.update('\0');
  }
  return { hash: h.digest('hex'), tar: () => tarStream(entries), bytes: tarSize(entries), dockerfile, files: entries.length };
}
