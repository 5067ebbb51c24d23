// What the image's COPY/ADD puts where: one model of the final image's files, by Docker's rules,
// for every rule that asks "does this path exist before the agent starts, made by the task?".
import path from 'node:path';
import type { DockerCopy, DockerInstruction, ParsedDockerfile } from '../../parse/dockerfile';
import type { AuditContext } from '../context';
import { inBuildContext } from './buildContextFiles';
import { MOVING_IMAGES } from './imageBuild';

/** A file the build puts at an image path. */
export interface ImageFile {
  /** 0-based Dockerfile line of the COPY/ADD of the final image that puts it there. */
  readonly line: number;
  /** The task file copied (task-relative), when it comes from the build context. */
  readonly source?: string;
  /** Which of that COPY/ADD's sources (0-based) put it there: rules name the one word at fault. */
  readonly arg?: number;
}

/** The final image's filesystem as far as the Dockerfile shows it. */
export interface ImageLayout {
  /** Absolute image path → where it comes from; only files the final image still holds. */
  readonly files: ReadonlyMap<string, ImageFile>;
  /**
   * Folders filled with contents the Dockerfile does not list (`COPY --from=<image>`, a stage's
   * build output, an archive ADD unpacks, a source the listing does not reach): made by the build,
   * not by the agent, whatever they hold.
   */
  readonly opaqueDirs: ReadonlyMap<string, number>;
  /** The final stage's working folder after its last WORKDIR (undefined: the base image's, unknown). */
  readonly workdir?: string;
}

/** What the model needs to know about the build context. */
export interface LayoutInput {
  /** Context-relative files Docker sends to the builder (.dockerignore applied). */
  readonly contextFiles: readonly string[];
  /** Prefix turning a context-relative path into a task-relative one (`environment/`). */
  readonly prefix: string;
  /** The working folder a stage starts in when its base (image name, no tag) is not a stage of this file. */
  readonly baseWorkdir: (image: string) => string | undefined;
}

interface Stage {
  readonly names: readonly string[];
  wd: string | undefined;
  readonly vars: Map<string, string>;
  readonly files: Map<string, ImageFile>;
  readonly dirs: Map<string, number>;
  /** Folders known to exist (WORKDIR, COPY destinations): a file copied to one lands inside it. */
  readonly folders: Set<string>;
}

/** Folders every Linux base image has: `COPY tool /usr/local/bin` copies into them. */
const FHS_DIRS = new Set(['/', '/bin', '/etc', '/home', '/opt', '/root', '/srv', '/tmp', '/usr', '/usr/bin', '/usr/local', '/usr/local/bin', '/usr/local/lib', '/usr/local/share', '/usr/share', '/usr/lib', '/usr/src', '/var', '/var/lib', '/var/log', '/mnt', '/sbin', '/usr/sbin']);
const ARCHIVE = /\.(tar|tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar\.zst)$/i;
const URL = /^(https?|git):\/\//i;

function under(p: string, dir: string): boolean {
  return dir === '/' ? p.startsWith('/') : p === dir || p.startsWith(`${dir}/`);
}

/**
 * `$NAME`, `${NAME}`, `${NAME:-default}` and `${NAME:+alt}` from the stage's ARG/ENV values, as
 * Docker expands them in COPY, ADD and WORKDIR; undefined when a variable has no known value.
 */
export function expandVars(word: string, vars: ReadonlyMap<string, string>): string | undefined {
  let unknown = false;
  const out = word.replace(/\$(?:\{([A-Za-z_]\w*)(?::?([-+])([^}]*))?\}|([A-Za-z_]\w*))/g, (_m, braced: string | undefined, op: string | undefined, alt: string | undefined, bare: string | undefined) => {
    const v = vars.get(braced ?? bare ?? '');
    if (op === '-') return v ?? alt ?? '';
    if (op === '+') return v !== undefined ? alt ?? '' : '';
    if (v === undefined) unknown = true;
    return v ?? '';
  });
  return unknown ? undefined : out;
}

/** `NAME=value` pairs of an ARG or ENV instruction (ENV's legacy `NAME value` form too). */
function assignments(ins: DockerInstruction): [string, string | undefined][] {
  const words = ins.args.map((a) => a.value);
  if (ins.keyword === 'ENV' && words.length > 1 && !words[0]?.includes('=')) return [[words[0] ?? '', words.slice(1).join(' ')]];
  return words.map((w) => { const i = w.indexOf('='); return i < 0 ? [w, undefined] : [w.slice(0, i), w.slice(i + 1).replace(/^["']|["']$/g, '')]; });
}

/** A glob of COPY sources (`*`, `?`, `[…]`) as a regular expression over one path. */
function globRe(glob: string): RegExp {
  // A `[` with no closing `]` (`rm /[cite:…`) is a literal character to the shell, not a class.
  const body = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\[(?![^\]/]*\])/g, '\\[').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

function clean(p: string): string {
  return p.replace(/^\.\/+/, '').replace(/^\/+/, '').replace(/\/+$/, '').replace(/(^|\/)\.$/, '');
}

/** Where each file of a source lands: a folder's contents go into dest, a file to dest itself (or into it). */
function spread(items: readonly string[], src: string, dest: string, destIsDir: boolean): { from: string; to: string }[] {
  const s = clean(src);
  const out: { from: string; to: string }[] = [];
  const hasGlob = /[*?[]/.test(s);
  const re = hasGlob ? globRe(s) : undefined;
  for (const f of items) {
    if (s === '') { out.push({ from: f, to: path.posix.join(dest, f) }); continue; }
    if (re) {
      // A matched file lands in dest by its name; a matched folder pours its contents in.
      if (re.test(f)) { out.push({ from: f, to: path.posix.join(dest, path.posix.basename(f)) }); continue; }
      const parts = f.split('/');
      const k = parts.findIndex((_p, i) => re.test(parts.slice(0, i + 1).join('/')));
      if (k >= 0 && k < parts.length - 1) out.push({ from: f, to: path.posix.join(dest, ...parts.slice(k + 1)) });
      continue;
    }
    if (f === s) out.push({ from: f, to: destIsDir ? path.posix.join(dest, path.posix.basename(f)) : dest });
    else if (f.startsWith(`${s}/`)) out.push({ from: f, to: path.posix.join(dest, f.slice(s.length + 1)) });
  }
  return out;
}

/** A stage starts from its base: an earlier stage's state (`FROM builder`), else an image the file does not show. */
function newStage(names: string[], base: Stage | undefined, wd: string | undefined): Stage {
  return {
    names, wd: base ? base.wd : wd,
    vars: new Map(base?.vars), files: new Map(base?.files), dirs: new Map(base?.dirs), folders: new Set(base?.folders),
  };
}

/** A folder and every folder above it exist. */
function addFolder(st: Stage, dir: string): void {
  for (let d = dir; !st.folders.has(d); d = path.posix.dirname(d)) { st.folders.add(d); if (d === '/') break; }
}

/** `rm` of paths in a RUN: the files (and opaque folders) at or under them are gone from that stage. */
function applyRemovals(st: Stage, words: readonly string[]): void {
  for (const w of words) {
    if (w.startsWith('-')) continue;
    const v = expandVars(w, st.vars);
    if (v === undefined || v === '') continue;
    if (!v.startsWith('/') && st.wd === undefined) continue;
    const abs = path.posix.resolve(st.wd ?? '/', v);
    const re = /[*?[]/.test(abs) ? globRe(abs) : undefined;
    const gone = (p: string): boolean => (re ? re.test(p) || p.split('/').some((_x, i, a) => i > 0 && re.test(a.slice(0, i).join('/'))) : under(p, abs));
    for (const p of [...st.files.keys()]) if (gone(p)) st.files.delete(p);
    for (const p of [...st.dirs.keys()]) if (gone(p)) st.dirs.delete(p);
  }
}

function copyInto(st: Stage, copy: DockerCopy, stages: readonly Stage[], input: LayoutInput): void {
  const line = copy.instruction.range.start.line;
  const rawDest = copy.dest ? expandVars(copy.dest.value, st.vars) : undefined;
  if (rawDest === undefined) return;
  if (!rawDest.startsWith('/') && st.wd === undefined) return;
  const dest = path.posix.resolve(st.wd ?? '/', rawDest);
  const srcs = copy.sources.map((s) => expandVars(s.value, st.vars));
  // Docker: a destination ending in `/`, several sources, or a wildcard make dest a folder; so does
  // one that already is a folder in the image (`COPY x.py /app` after `WORKDIR /app`).
  const destIsDir = /\/$|(^|\/)\.$/.test(rawDest) || srcs.length > 1 || srcs.some((s) => s !== undefined && /[*?[]/.test(s))
    || st.folders.has(dest) || FHS_DIRS.has(dest);
  const put = (to: string, file: ImageFile): void => { st.files.set(to, file); addFolder(st, path.posix.dirname(to)); };
  if (copy.from !== undefined) {
    const from = copy.from.toLowerCase();
    const other = /^\d+$/.test(from) ? stages[Number(from)] : stages.find((s) => s.names.includes(from));
    for (const [arg, s] of srcs.entries()) {
      if (s === undefined) { st.dirs.set(dest, line); continue; }
      const abs = path.posix.resolve('/', s);
      if (!other) { st.dirs.set(destIsDir ? path.posix.join(dest, path.posix.basename(abs)) : dest, line); continue; }
      const rel = clean(abs);
      const moved = spread([...other.files.keys()].map(clean), rel, dest, destIsDir);
      for (const m of moved) {
        const source = other.files.get(`/${m.from}`)?.source;
        put(m.to, { line, arg, ...(source !== undefined ? { source } : {}) });
      }
      // What the stage built (a RUN's output) is not listed: the destination is the build's either way.
      if (!other.files.has(abs)) st.dirs.set(dest, line);
    }
    addFolder(st, destIsDir ? dest : path.posix.dirname(dest));
    return;
  }
  for (const [arg, s] of srcs.entries()) {
    if (s === undefined) { st.dirs.set(dest, line); continue; }
    if (URL.test(s)) { put(destIsDir ? path.posix.join(dest, path.posix.basename(s.split('?')[0] ?? s)) : dest, { line, arg }); continue; }
    if (copy.instruction.keyword === 'ADD' && ARCHIVE.test(s)) { st.dirs.set(dest, line); continue; }
    const moved = spread(input.contextFiles, s, dest, destIsDir);
    for (const m of moved) put(m.to, { line, arg, source: `${input.prefix}${m.from}` });
    if (moved.length > 0 || /[*?[]/.test(s)) continue;
    // A source the listing does not hold (deeper than its cap, or missing): the Dockerfile still says
    // where it goes, a file by its name, a folder (`dir/`, `.`) as contents unknown.
    if (/\/$|(^|\/)\.$/.test(s)) st.dirs.set(dest, line);
    else put(destIsDir ? path.posix.join(dest, path.posix.basename(clean(s))) : dest, { line, arg, source: `${input.prefix}${clean(s)}` });
  }
  addFolder(st, destIsDir ? dest : path.posix.dirname(dest));
}

/**
 * The final image's files from a parsed Dockerfile, by Docker's rules: only the last stage is the
 * image (earlier ones count through `COPY --from`); WORKDIR applies in order, a relative one against
 * the one before; relative destinations resolve against the WORKDIR at that line; ARG/ENV values
 * expand in paths; a later `RUN rm` removes what it names.
 */
export function layoutOf(df: ParsedDockerfile, input: LayoutInput): ImageLayout {
  const stages: Stage[] = [];
  const globals = new Map<string, string>();
  let st: Stage | undefined;
  const runs = new Map(df.runs.map((r) => [r.instruction, r]));
  const copies = new Map(df.copies.map((c) => [c.instruction, c]));
  for (const ins of df.instructions) {
    if (ins.keyword === 'FROM') {
      const f = df.froms.find((x) => x.instruction === ins);
      const image = expandVars(f?.name ?? f?.image ?? '', globals) ?? f?.image ?? '';
      const base = stages.find((s) => s.names.includes(image.toLowerCase()));
      st = newStage([String(stages.length), ...(f?.stage ? [f.stage.toLowerCase()] : [])], base, input.baseWorkdir(image));
      stages.push(st);
      continue;
    }
    if (ins.keyword === 'ARG' || ins.keyword === 'ENV') {
      for (const [n, v] of assignments(ins)) {
        // A stage's bare `ARG NAME` brings the global default in; ENV values expand what came before.
        const value = v !== undefined ? expandVars(v, st?.vars ?? globals) : ins.keyword === 'ARG' && st ? globals.get(n) : undefined;
        const vars = st?.vars ?? globals;
        if (value !== undefined) vars.set(n, value); else if (v !== undefined) vars.delete(n);
      }
      continue;
    }
    if (!st) continue;
    if (ins.keyword === 'WORKDIR') {
      const v = ins.args[0] ? expandVars(ins.args[0].value, st.vars) : undefined;
      st.wd = v === undefined || (!v.startsWith('/') && st.wd === undefined) ? undefined : path.posix.resolve(st.wd ?? '/', v);
      if (st.wd) addFolder(st, st.wd);
      continue;
    }
    const copy = copies.get(ins);
    if (copy) { copyInto(st, copy, stages, input); continue; }
    const run = runs.get(ins);
    for (const cmd of run?.shell?.commands ?? []) if (cmd.name === 'rm') applyRemovals(st, cmd.args.map((a) => a.value));
  }
  const last = stages.at(-1);
  return { files: last?.files ?? new Map(), opaqueDirs: last?.dirs ?? new Map(), ...(last?.wd !== undefined ? { workdir: last.wd } : {}) };
}

const cache = new WeakMap<AuditContext, ImageLayout>();

/** The task's final image layout (cached per audit). */
export function imageLayout(ctx: AuditContext): ImageLayout {
  let out = cache.get(ctx);
  if (out) return out;
  const df = ctx.dockerfile();
  const prefix = `${ctx.task.environment.contextDir || '.'}/`.replace(/^\.\//, '');
  out = df
    ? layoutOf(df, {
      contextFiles: [...ctx.contextFiles].filter((f) => inBuildContext(ctx, f)),
      prefix,
      // Stock images start in `/`; a task's own base image most often sets the folder the task config names.
      baseWorkdir: (image) => (MOVING_IMAGES.test(image) ? '/' : ctx.task.environment.workdir ?? '/app'),
    })
    : { files: new Map(), opaqueDirs: new Map() };
  cache.set(ctx, out);
  return out;
}

/** Whether the build (not the agent) makes the file at this image path. */
export function madeByImage(ctx: AuditContext, p: string): boolean {
  const { files, opaqueDirs } = imageLayout(ctx);
  return files.has(p) || [...opaqueDirs.keys()].some((d) => d !== '/' && under(p, d));
}

/** Whether the image puts anything at `p`, inside it, or fills a folder holding it. */
export function imageFills(ctx: AuditContext, p: string): boolean {
  const { files, opaqueDirs } = imageLayout(ctx);
  return files.has(p) || [...files.keys()].some((f) => under(f, p)) || [...opaqueDirs.keys()].some((d) => d !== '/' && (under(p, d) || under(d, p)));
}
