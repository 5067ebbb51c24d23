import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { LineKeyedFinding } from './fingerprint';

/**
 * A baseline: the findings a dataset has accepted for now. Entries match current findings by rule,
 * file (relative to the baseline file's folder, POSIX) and the fingerprint of the line's text, so
 * an edit elsewhere in the file does not resurface them; line numbers are not compared. Equal keys
 * count: two accepted copies of one finding silence two, a third is new.
 */
/**
 * `file` is the task file (or, for task-level findings, the task folder) relative to the baseline's
 * folder; severity, message and line are for people reading the file and for `absent` results.
 */
export type BaselineEntry = LineKeyedFinding;

export interface BaselineFile {
  readonly version: 1;
  readonly tool: 'taskwright';
  readonly findings: readonly BaselineEntry[];
}

export type BaselineState = 'new' | 'unchanged' | 'absent';

export function baselineKey(rule: string, file: string, fp: string): string {
  return `${rule}\u0000${file}\u0000${fp}`;
}

/** Where a finding sits relative to the baseline's folder: its file, or its task folder when task-level. */
export function baselinePath(baseDir: string, taskDir: string, file: string | undefined): string {
  const abs = file ? path.join(taskDir, ...file.split('/')) : taskDir;
  return path.relative(baseDir, abs).split(path.sep).join('/') || '.';
}

export class BaselineError extends Error {}

/** Parses a baseline file's text; a clear error naming the file when it is not one. */
export function parseBaseline(text: string, file: string): BaselineFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new BaselineError(`${file}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const d = doc as Partial<BaselineFile> | null;
  if (!d || typeof d !== 'object' || d.version !== 1 || !Array.isArray(d.findings)) {
    throw new BaselineError(`${file}: not a Taskwright baseline (expected {"version":1,"findings":[...]}; write one with --write-baseline)`);
  }
  d.findings.forEach((e, i) => {
    const x = e as Partial<BaselineEntry> | null;
    if (!x || typeof x.rule !== 'string' || typeof x.file !== 'string' || typeof x.fp !== 'string') {
      throw new BaselineError(`${file}: finding ${i + 1} lacks rule, file or fp`);
    }
  });
  return d as BaselineFile;
}

export async function readBaseline(file: string): Promise<BaselineFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new BaselineError(`${file}: cannot read the baseline (${e instanceof Error ? e.message : String(e)})`);
  }
  return parseBaseline(text, file);
}

/**
 * Matches findings against a baseline, consuming one accepted copy per match; what is left at the end
 * is `absent` (fixed since the baseline was written).
 */
export class BaselineMatcher {
  private readonly left = new Map<string, BaselineEntry[]>();

  constructor(baseline: BaselineFile, readonly baseDir: string) {
    for (const e of baseline.findings) {
      const k = baselineKey(e.rule, e.file, e.fp);
      const list = this.left.get(k);
      if (list) list.push(e);
      else this.left.set(k, [e]);
    }
  }

  /** `unchanged` (and one accepted copy used up) or `new`. */
  match(rule: string, file: string, fp: string): 'new' | 'unchanged' {
    const k = baselineKey(rule, file, fp);
    const list = this.left.get(k);
    if (!list || list.length === 0) return 'new';
    list.pop();
    if (list.length === 0) this.left.delete(k);
    return 'unchanged';
  }

  /** Baseline entries no current finding matched, in the baseline's order. */
  absent(): BaselineEntry[] {
    return [...this.left.values()].flat();
  }
}

/** Writes a baseline as it is produced: one entry a line, so big datasets never sit in memory. */
export class BaselineWriter {
  private first = true;

  private constructor(private readonly handle: FileHandle) {}

  static async open(file: string): Promise<BaselineWriter> {
    const handle = await fs.open(file, 'w');
    await handle.write('{\n  "version": 1,\n  "tool": "taskwright",\n  "findings": [');
    return new BaselineWriter(handle);
  }

  async add(entry: BaselineEntry): Promise<void> {
    const e: BaselineEntry = { rule: entry.rule, file: entry.file, fp: entry.fp, severity: entry.severity, line: entry.line, message: entry.message };
    await this.handle.write(`${this.first ? '' : ','}\n    ${JSON.stringify(e)}`);
    this.first = false;
  }

  async close(): Promise<void> {
    await this.handle.write(`${this.first ? '' : '\n  '}]\n}\n`);
    await this.handle.close();
  }
}

/**
 * A baseline indexed for repeated use (the editor filters every re-audit of a task through it):
 * counts per key, consumed per call so equal findings beyond the accepted copies stay new.
 */
export class BaselineIndex {
  private readonly counts = new Map<string, number>();

  constructor(baseline: BaselineFile, readonly baseDir: string) {
    for (const e of baseline.findings) {
      const k = baselineKey(e.rule, e.file, e.fp);
      this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    }
  }

  /** The findings of the task in `taskDir` that the baseline does not hold. */
  newFindings<F extends { readonly rule: string; readonly file?: string; readonly fp: string }>(taskDir: string, findings: readonly F[]): F[] {
    const used = new Map<string, number>();
    return findings.filter((f) => {
      const k = baselineKey(f.rule, baselinePath(this.baseDir, taskDir, f.file), f.fp);
      const n = used.get(k) ?? 0;
      if (n >= (this.counts.get(k) ?? 0)) return true;
      used.set(k, n + 1);
      return false;
    });
  }
}
