import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { assertInsideTask } from './contain';

/**
 * A minimal ustar writer for build contexts and for copying task files into containers. It keeps
 * the dependency surface small and lets the build context's hash and its tarball come from the
 * same file list.
 */
export interface TarEntry {
  /** POSIX path inside the archive. */
  readonly name: string;
  readonly mode: number;
  readonly type: 'file' | 'dir' | 'symlink';
  readonly data?: Buffer;
  /** A host file read only while the archive is written (never held whole in memory). */
  readonly source?: string;
  /** Size of `source` when the entry was listed. */
  readonly size?: number;
  readonly linkTarget?: string;
}

function writeString(buf: Buffer, offset: number, length: number, value: string): void {
  buf.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

function writeOctal(buf: Buffer, offset: number, length: number, value: number): void {
  writeString(buf, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

function splitName(name: string): { name: string; prefix: string } {
  if (Buffer.byteLength(name) <= 100) return { name, prefix: '' };
  // ustar stores long names as prefix (≤155) + '/' + name (≤100).
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100) return { name: rest, prefix };
  }
  throw new Error(`path too long for a tar archive: ${name}`);
}

function header(entry: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  const { name, prefix } = splitName(entry.type === 'dir' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, entry.mode & 0o7777);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeOctal(h, 124, 12, size);
  // A fixed mtime keeps archives (and image layers built from them) identical for identical content.
  writeOctal(h, 136, 12, 0);
  h.fill(0x20, 148, 156);
  h.write(entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2', 156, 1, 'ascii');
  if (entry.linkTarget) writeString(h, 157, 100, entry.linkTarget);
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  writeString(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

const CHUNK = 1024 * 1024;

function entrySize(e: TarEntry): number {
  if (e.type !== 'file') return 0;
  return e.data ? e.data.length : (e.size ?? 0);
}

/**
 * The archive as a stream of blocks: host files are read a chunk at a time as the reader asks, so
 * a task with a multi-gigabyte file never sits in memory. A file that changed size since it was
 * listed is an error (the header already promised its size).
 */
export function tarStream(entries: readonly TarEntry[]): Readable {
  function* blocks(): Generator<Buffer> {
    for (const e of entries) {
      const size = entrySize(e);
      yield header(e, size);
      if (e.type !== 'file' || size === 0) continue;
      if (e.data) yield e.data;
      else if (e.source) {
        const fd = fs.openSync(e.source, 'r');
        try {
          let done = 0;
          while (done < size) {
            const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - done));
            const n = fs.readSync(fd, buf, 0, buf.length, done);
            if (n === 0) throw new Error(`${e.source} shrank while it was being archived`);
            done += n;
            yield n === buf.length ? buf : buf.subarray(0, n);
          }
        } finally {
          fs.closeSync(fd);
        }
      }
      const pad = (512 - (size % 512)) % 512;
      if (pad) yield Buffer.alloc(pad);
    }
    yield Buffer.alloc(1024);
  }
  return Readable.from(blocks(), { objectMode: false, highWaterMark: CHUNK });
}

/** The whole archive in memory: only for small archives (the harness's folders, tests of unit tests). */
export function packTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === 'file' ? (e.data ?? (e.source ? fs.readFileSync(e.source) : Buffer.alloc(0))) : Buffer.alloc(0);
    parts.push(header(e, data.length));
    if (data.length) {
      parts.push(data);
      const pad = (512 - (data.length % 512)) % 512;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Total bytes of an archive of these entries (headers, data, padding, end blocks). */
export function tarSize(entries: readonly TarEntry[]): number {
  let n = 1024;
  for (const e of entries) n += 512 + Math.ceil(entrySize(e) / 512) * 512;
  return n;
}

export interface EntryOptions {
  /** Excludes POSIX paths relative to the walked folder. */
  readonly filter?: (rel: string, isDir: boolean) => boolean;
  /**
   * The task folder: a symlink that leads outside it (or a walked folder that does) is refused
   * with a PathOutsideTaskError instead of being archived.
   */
  readonly within?: string;
}

/**
 * Entries for a host folder's tree, sorted, placed under `prefix` in the archive (e.g. `tests`).
 * Symlinks are archived as links, never followed (wherever they point); file contents are read when the
 * archive is written. With `within`, `root` itself must stay inside that folder.
 */
export function entriesFromDir(root: string, prefix = '', opts: EntryOptions | ((rel: string, isDir: boolean) => boolean) = {}): TarEntry[] {
  const { filter, within } = typeof opts === 'function' ? { filter: opts, within: undefined } : opts;
  if (within) assertInsideTask(within, root);
  const out: TarEntry[] = [];
  const walk = (dir: string, rel: string): void => {
    const names = fs.readdirSync(dir).sort();
    for (const n of names) {
      const abs = path.join(dir, n);
      const r = rel ? `${rel}/${n}` : n;
      const st = fs.lstatSync(abs);
      const name = prefix ? `${prefix}/${r}` : r;
      if (st.isDirectory()) {
        if (filter && !filter(r, true)) continue;
        out.push({ name, mode: st.mode, type: 'dir' });
        walk(abs, r);
      } else if (st.isSymbolicLink()) {
        if (filter && !filter(r, false)) continue;
        // A link is archived as its text, never followed, so one that points outside the task reads
        // nothing of the host: in the container it leads to whatever is at that path there (Docker
        // and the harnesses copy it the same way). Only the folder asked for must itself stay inside.
        out.push({ name, mode: 0o777, type: 'symlink', linkTarget: fs.readlinkSync(abs) });
      } else if (st.isFile()) {
        if (filter && !filter(r, false)) continue;
        out.push({ name, mode: st.mode, type: 'file', source: abs, size: st.size });
      }
    }
  };
  walk(root, '');
  return out;
}

/** One host file as an archive entry named `name` (refused when it leads outside `within`). */
export function entryFromFile(file: string, name: string, within?: string): TarEntry {
  if (within) assertInsideTask(within, file);
  const st = fs.statSync(file);
  if (!st.isFile()) throw new Error(`${file} is not a regular file`);
  return { name, mode: st.mode, type: 'file', source: file, size: st.size };
}

/** Regular files of a tar archive (ustar and GNU long names), as the engine's archive API returns them. */
export function unpackTar(buf: Buffer): { name: string; data: Buffer }[] {
  const out: { name: string; data: Buffer }[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, n: number): string => h.subarray(a, a + n).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(str(124, 12).trim() || '0', 8);
    const type = str(156, 1) || '0';
    const prefix = str(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${str(0, 100)}` : str(0, 100));
    const data = buf.subarray(off + 512, off + 512 + size);
    longName = undefined;
    if (type === 'L') longName = data.toString('utf8').replace(/\0.*$/s, '');
    else if (type === '0' || type === '\0') out.push({ name, data: Buffer.from(data) });
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** Every entry's header (any type), to judge what a path in a container holds without trusting it. */
export function tarHeaders(buf: Buffer): { name: string; type: string; uid: number; mode: number; size: number }[] {
  const out: { name: string; type: string; uid: number; mode: number; size: number }[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, n: number): string => h.subarray(a, a + n).toString('utf8').replace(/\0.*$/s, '');
    const num = (a: number, n: number): number => parseInt(str(a, n).trim() || '0', 8);
    const size = num(124, 12);
    const type = str(156, 1) || '0';
    const prefix = str(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${str(0, 100)}` : str(0, 100));
    longName = undefined;
    if (type === 'L') longName = buf.subarray(off + 512, off + 512 + size).toString('utf8').replace(/\0.*$/s, '');
    else if (type !== 'x' && type !== 'g') out.push({ name, type, uid: num(108, 8), mode: num(100, 8), size });
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
