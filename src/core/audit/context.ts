import fs from 'node:fs';
import path from 'node:path';
import { mountedTestFiles, testsLayers, type Task } from '../model/task';
import { LineIndex, type Range } from '../model/positions';
import { parseDockerfile, type ParsedDockerfile } from '../parse/dockerfile';
import { analyseShell, type ShellScript } from '../parse/shell';
import type { SyntaxTree } from '../parse/syntax';
import { parseSync } from '../parse/treeSitter';
import { parseYamlShared } from '../parse/yamlShared';
import { inFolders, vendoredFolders } from '../model/vendored';
import { imageLayout } from './rules/imageLayout';

/** Files bigger than this are not read as text (data blobs, models). */
const MAX_TEXT_BYTES = 512 * 1024;
/**
 * Text read per task beyond its own config, instruction, Dockerfile, verifier entry and solution: a
 * task that checks in a dataset of scripts still gets its tests read (they come first, shallowest
 * first), and one audit stays within a worker's heap whatever the task holds.
 */
const MAX_TASK_TEXT_BYTES = 16 * 1024 * 1024;
const DATA_EXTENSIONS = /\.(json|ya?ml|toml)$/i;
/** `Dockerfile`, `Dockerfile.gpu`, `api.Dockerfile`, in any folder. */
const DOCKERFILE_NAME = /(^|\/)(Dockerfile(\.[\w.-]+)?|[\w.-]+\.[Dd]ockerfile)$/;

/**
 * Everything a rule may look at for one task: file texts (the editor's unsaved buffers first), and
 * their parses, made lazily and once. Rules are synchronous over this object.
 */
export class AuditContext {
  private readonly lineCache = new Map<string, LineIndex>();
  private readonly shellCache = new Map<string, ShellScript | undefined>();
  private readonly pyCache = new Map<string, SyntaxTree | undefined>();
  private dockerCache: ParsedDockerfile | null | undefined;
  private roMounts: readonly string[] | undefined;
  private mounts: readonly ComposeMount[] | undefined;

  /** Verifier shell scripts: the entry script and every `.sh` in the tests folder. */
  readonly verifierScripts: readonly string[];
  /** Python files in the tests folder. */
  readonly testPython: readonly string[];
  /** The reference solution script (`solution/solve.sh`, `solution.sh`), when it is a script. */
  readonly solutionScript?: string;
  /** Folders of vendored third-party source (see vendoredFolders): not read, not the task's tests. */
  readonly vendored: readonly string[];
  /** Build-context files, relative to the context folder. */
  readonly contextFiles: ReadonlySet<string>;
  readonly fileSet: ReadonlySet<string>;
  /** Base names of every task file (inputs the instruction or tests may name). */
  readonly baseNames: ReadonlySet<string>;
  /** The task's tests folder, task-relative, without a trailing slash (`tests` unless configured). */
  readonly testsDir: string;
  /** The task files the verifier gets under its tests folder, with their path there (see mountedTestFiles). */
  readonly mountedTests: readonly { readonly file: string; readonly rel: string }[];

  /** The task path of a file the verifier names under its /tests mount (`/tests/x.py` → `tests/x.py`); undefined for other paths. */
  testsPathOf(p: string): string | undefined {
    return p.startsWith('/tests/') ? `${this.testsDir}/${p.slice('/tests/'.length)}` : undefined;
  }

  private constructor(readonly task: Task, private readonly texts: ReadonlyMap<string, string>, vendored: readonly string[]) {
    this.vendored = vendored;
    this.testsDir = (task.verifier.testsDir || 'tests').replace(/\/+$/, '');
    // What the verifier sees under /tests (a multi-step task's shared tests/ included).
    this.mountedTests = mountedTestFiles(task);
    // A library copy under tests/ is mounted too, but its test suite is not the verifier's.
    const mounted = this.mountedTests.map((m) => m.file).filter((f) => !inFolders(f, vendored));
    const scripts = new Set<string>();
    if (task.files.includes(task.verifier.entry)) scripts.add(task.verifier.entry);
    for (const f of mounted) if (f.endsWith('.sh')) scripts.add(f);
    this.verifierScripts = [...scripts];
    this.testPython = mounted.filter((f) => f.endsWith('.py'));
    const sol = task.solution.file;
    if (sol && task.solution.kind === 'script' && task.files.includes(sol)) this.solutionScript = sol;
    const ctxDir = trimSlash(task.environment.contextDir || '.');
    const prefix = ctxDir === '.' || ctxDir === '' ? '' : `${ctxDir}/`;
    this.contextFiles = new Set(task.files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)));
    this.fileSet = new Set(task.files);
    this.baseNames = new Set(task.files.map((f) => f.slice(f.lastIndexOf('/') + 1)));
  }

  static create(task: Task, overlay?: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<AuditContext> {
    const wanted = new Set<string>();
    /** Data files may be big: their size is checked before reading. */
    const data = new Set<string>();
    const add = (f: string | undefined): void => { if (f) wanted.add(f); };
    add(task.configFile);
    add(task.instructionFile);
    add(task.environment.dockerfile);
    add(task.environment.composeFile);
    add(task.verifier.entry);
    add(task.solution.file);
    const layers = testsLayers(task.verifier);
    const tests = layers.map((d) => `${d}/`);
    const vendored = vendoredFolders(task.files, [...layers, trimSlash(task.environment.contextDir || '.')]);
    const extra: string[] = [];
    for (const f of task.files) {
      if (wanted.has(f) || inFolders(f, vendored)) continue;
      if (/\.(sh|py)$/.test(f) || DOCKERFILE_NAME.test(f)) extra.push(f);
      else if (tests.some((d) => f.startsWith(d)) || DATA_EXTENSIONS.test(f)) { extra.push(f); data.add(f); }
    }
    // Within the budget, the tests first, then the shallowest files (the task's own, not a dataset's).
    const rank = (f: string): number => (tests.some((d) => f.startsWith(d)) ? 0 : 1000) + f.split('/').length;
    extra.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    const texts = new Map<string, string>();
    const files = new Set(task.files);
    let budget = MAX_TASK_TEXT_BYTES;
    // Task files are small: synchronous reads cost a fraction of the thread-pool round trips of
    // fs.promises (measured in bench/audit-throughput.ts); big files are skipped by size first.
    for (const rel of [...wanted, ...extra]) {
      signal?.throwIfAborted();
      const core = wanted.has(rel);
      const abs = path.join(task.dir, rel);
      const fromOverlay = overlay?.get(abs) ?? overlay?.get(rel);
      if (fromOverlay !== undefined) { texts.set(rel, fromOverlay); continue; }
      if (!files.has(rel) || (!core && budget <= 0)) continue;
      try {
        if (data.has(rel) && fs.statSync(abs).size > MAX_TEXT_BYTES) continue;
        const buf = fs.readFileSync(abs);
        if (buf.length > MAX_TEXT_BYTES || buf.includes(0)) continue;
        if (!core) {
          if (buf.length > budget) continue;
          budget -= buf.length;
        }
        texts.set(rel, buf.toString('utf8'));
      } catch {
        // Unreadable files are the loader's business (missing-* problems); rules see them as absent.
      }
    }
    return Promise.resolve(new AuditContext(task, texts, vendored));
  }

  text(rel: string | undefined): string | undefined {
    return rel === undefined ? undefined : this.texts.get(rel);
  }

  /**
   * The first bytes of a task file as text (latin1, so binary heads survive), for files not read
   * whole: a data file's head says whether it holds the format its name promises. The editor's
   * unsaved text wins; undefined when the file cannot be read.
   */
  head(rel: string, bytes = 512): string | undefined {
    const t = this.texts.get(rel);
    if (t !== undefined) return t.slice(0, bytes);
    if (!this.fileSet.has(rel)) return undefined;
    let fd: number | undefined;
    try {
      fd = fs.openSync(path.join(this.task.dir, rel), 'r');
      const buf = Buffer.alloc(bytes);
      const n = fs.readSync(fd, buf, 0, bytes, 0);
      return buf.subarray(0, n).toString('latin1');
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /** Every file read as text. */
  textFiles(): string[] {
    return [...this.texts.keys()].sort();
  }

  lines(rel: string): LineIndex {
    let li = this.lineCache.get(rel);
    if (!li) {
      li = new LineIndex(this.texts.get(rel) ?? '');
      this.lineCache.set(rel, li);
    }
    return li;
  }

  range(rel: string, start: number, end: number): Range {
    return this.lines(rel).rangeOf(start, end);
  }

  shell(rel: string | undefined): ShellScript | undefined {
    if (rel === undefined) return undefined;
    if (!this.shellCache.has(rel)) {
      const t = this.texts.get(rel);
      this.shellCache.set(rel, t === undefined ? undefined : analyseShell(parseSync('bash', t)));
    }
    return this.shellCache.get(rel);
  }

  python(rel: string): SyntaxTree | undefined {
    if (!this.pyCache.has(rel)) {
      const t = this.texts.get(rel);
      this.pyCache.set(rel, t === undefined ? undefined : parseSync('python', t));
    }
    return this.pyCache.get(rel);
  }

  /** Any Dockerfile of the task, parsed (a compose service's, a separate verifier's); undefined when not read. */
  parsedDockerfile(file: string): ParsedDockerfile | undefined {
    if (file === this.task.environment.dockerfile) return this.dockerfile();
    const t = this.texts.get(file);
    return t === undefined || !DOCKERFILE_NAME.test(file) ? undefined : parseDockerfile(t);
  }

  dockerfile(): ParsedDockerfile | undefined {
    if (this.dockerCache === undefined) {
      const t = this.text(this.task.environment.dockerfile);
      this.dockerCache = t === undefined ? null : parseDockerfile(t);
    }
    return this.dockerCache ?? undefined;
  }

  /** The instruction text as the agent sees it. */
  instruction(): string {
    return this.task.instruction ?? '';
  }

  /** Where `needle` appears in the instruction's source file (first occurrence after the instruction field). */
  instructionRange(needle: string): Range | undefined {
    const file = this.task.instructionFile;
    const t = this.text(file);
    if (t === undefined) return undefined;
    const from = this.task.fields['instruction'] ? this.lines(file).offsetAt(this.task.fields['instruction'].range.start) : 0;
    let i = t.indexOf(needle, from);
    if (i < 0) i = t.indexOf(needle);
    return i < 0 ? undefined : this.range(file, i, i + needle.length);
  }

  /**
   * The folder the agent works in: the final image's WORKDIR as the image layout resolves it (final
   * stage only, relative ones chained, ARG/ENV expanded, inherited through `FROM <stage>`), else the
   * configured workdir, or /app. A build stage's WORKDIR is not the agent's.
   */
  workdir(): string {
    return imageLayout(this).workdir ?? this.task.environment.workdir ?? '/app';
  }

  /** Paths under which the agent (root in the container) plainly writes: its workdir, home and temp folders. */
  isAgentWritable(p: string): boolean {
    if (p.startsWith('/tests') || p.startsWith('/logs') || p.startsWith('/oracle') || p.startsWith('/solution')) return false;
    const wd = this.workdir();
    // /repo: where images check out the project the agent changes, often set up by a base image, so
    // no WORKDIR of the task's own names it. /testbed (SWE-bench's checkout) stays out: there the
    // project's own suite run in place is the benchmark's design, not a planted-file hole.
    const roots = ['/app', '/workspace', '/home/', '/root', '/tmp', '/srv', '/data', '/mnt', '/code', '/project', '/repo', wd];
    return roots.some((r) => r !== '/' && (p === r || p.startsWith(r.endsWith('/') ? r : `${r}/`)));
  }

  /** Whether `p` lies under a read-only bind mount of the compose file: the agent can read it, not change it. */
  isReadOnlyMount(p: string): boolean {
    return this.readOnlyMounts().some((m) => p === m || p.startsWith(`${m}/`));
  }

  /** Container paths the compose file bind-mounts read-only (`./tests:/app/tests:ro`): even root cannot write there. */
  readOnlyMounts(): readonly string[] {
    this.roMounts ??= this.composeMounts().filter((m) => m.readOnly).map((m) => m.target);
    return this.roMounts;
  }

  /**
   * The compose file's bind mounts (short `src:dst[:ro]` strings and long `{source, target}` forms), in
   * file order. The compose YAML is parsed once per context (several rules ask); each call gets its own
   * array and objects, so a caller that changes them changes nothing for the next.
   */
  composeMounts(): ComposeMount[] {
    this.mounts ??= this.readComposeMounts();
    return this.mounts.map((m) => ({ ...m }));
  }

  private readComposeMounts(): ComposeMount[] {
    const out: ComposeMount[] = [];
    const text = this.text(this.task.environment.composeFile);
    let doc: unknown;
    try { doc = text ? parseYamlShared(text) : undefined; } catch { doc = undefined; }
    const services = (doc as { services?: Record<string, { volumes?: unknown }> } | undefined)?.services;
    for (const svc of Object.values(services ?? {})) {
      for (const v of Array.isArray(svc?.volumes) ? svc.volumes : []) {
        if (typeof v === 'string') {
          const parts = v.split(':');
          const target = parts[1];
          if (parts.length < 2 || !target?.startsWith('/')) continue;
          out.push({ source: parts[0] ?? '', target: target.replace(/\/+$/, ''), readOnly: parts.length >= 3 && /(^|,)ro(,|$)/.test(parts[2] ?? ''), offset: Math.max(0, text?.indexOf(v) ?? 0) });
        } else if (v && typeof v === 'object') {
          const o = v as { source?: unknown; target?: unknown; read_only?: unknown };
          if (typeof o.target === 'string' && typeof o.source === 'string') out.push({ source: o.source, target: o.target.replace(/\/+$/, ''), readOnly: o.read_only === true, offset: Math.max(0, text?.indexOf(o.target) ?? 0) });
        }
      }
    }
    return out;
  }

  /** Whether the text of any of the task's environment, solution or tests mentions `needle`. */
  mentionedIn(files: readonly (string | undefined)[], needle: string): string | undefined {
    for (const f of files) if (f && this.text(f)?.includes(needle)) return f;
    return undefined;
  }
}

/** One bind mount of the compose file; `offset` is where it is written in the file. */
export interface ComposeMount {
  source: string;
  target: string;
  readOnly: boolean;
  offset: number;
}

function trimSlash(p: string): string {
  return p.replace(/^\.\//, '').replace(/\/+$/, '');
}
