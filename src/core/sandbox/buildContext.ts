import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { entriesFromDir, packTar, type TarEntry } from './tar';

/**
 * A task's build context: the files Docker would receive (after `.dockerignore`), their content
 * hash (the image tag, so an unchanged task never rebuilds) and the tarball sent to the engine.
 */
export interface BuildContext {
  readonly hash: string;
  readonly tar: Buffer;
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

export function readBuildContext(contextDir: string, dockerfileAbs: string): BuildContext {
  const ignorePath = path.join(contextDir, '.dockerignore');
  const ignored = fs.existsSync(ignorePath) ? dockerignoreMatcher(fs.readFileSync(ignorePath, 'utf8')) : () => false;
  const relDockerfile = path.relative(contextDir, dockerfileAbs).split(path.sep).join('/');
  const inside = !relDockerfile.startsWith('..') && !path.isAbsolute(relDockerfile);
  // Docker always sends the Dockerfile and .dockerignore, whatever the ignore file says.
  const keep = (rel: string): boolean => rel === relDockerfile || rel === '.dockerignore' || !ignored(rel);
  const entries: TarEntry[] = entriesFromDir(contextDir, '', (rel) => keep(rel));
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
    if (e.linkTarget) h.update(e.linkTarget);
    h.update('\0');
  }
  return { hash: h.digest('hex'), tar: packTar(entries), dockerfile, files: entries.length };
}
