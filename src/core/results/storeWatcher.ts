import fs from 'node:fs';
import path from 'node:path';
import { LevelWatches } from '../watch/levelWatches';

/** A file or run folder of a results store that appeared, changed or went. */
export interface StoreEvent {
  readonly kind: 'add' | 'change' | 'remove';
  /** Absolute path of the entry (a run folder, or a file directly inside one). */
  readonly path: string;
  /** The run folder the entry belongs to. */
  readonly runDir: string;
}

/**
 * Follows one results store (`<floor>/.taskwright/runs`): its run folders and the files directly in
 * them (`trials.jsonl`, `run.json`, `validation.json`), one level at a time (LevelWatches).
 *
 * A store is made with one `mkdir -p .taskwright/runs/<run>/trials`, which a recursive watcher never
 * hears of (see LevelWatches); here every level is listed again when it is (re)watched, so nothing
 * created in between is missed. Watching never goes above `floor` (the workspace folder).
 */
export class StoreWatcher {
  private readonly chain: string[];
  private readonly watches = new LevelWatches(() => this.sync(true));
  private readonly runs = new Set<string>();
  private closed = false;

  constructor(floor: string, private readonly storeDir: string, private readonly onEvent: (e: StoreEvent) => void) {
    // The folders from the floor down to the store, each watched for the next one to appear.
    const rel = path.relative(floor, storeDir);
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`results store ${storeDir} is not inside ${floor}`);
    const parts = rel ? rel.split(path.sep) : [];
    this.chain = parts.map((_, i) => path.join(floor, ...parts.slice(0, i)));
    this.sync(false);
  }

  /** The run folders being followed now. */
  followed(): readonly string[] {
    return [...this.runs];
  }

  close(): void {
    this.closed = true;
    this.watches.closeAll();
    this.runs.clear();
  }

  /** Brings the watches in line with what exists: called at start and whenever a level changes. */
  private sync(announce: boolean): void {
    if (this.closed) return;
    this.chain.forEach((dir, i) => {
      const next = path.basename(this.chain[i + 1] ?? this.storeDir);
      // Only the next level's name matters here: other files of the workspace folder change often.
      this.watch(dir, (_type, name) => { if (name === null || name === next) this.sync(true); });
    });
    if (!this.watch(this.storeDir, () => this.sync(true))) {
      for (const run of [...this.runs]) this.dropRun(run, announce);
      return;
    }
    const present = new Set(listDirs(this.storeDir).map((d) => path.join(this.storeDir, d)));
    for (const run of [...this.runs]) if (!present.has(run)) this.dropRun(run, announce);
    for (const run of present) if (!this.runs.has(run)) this.addRun(run, announce);
  }

  private addRun(run: string, announce: boolean): void {
    const ok = this.watch(run, (type, name) => this.onRunEntry(run, type, name));
    if (!ok) return;
    this.runs.add(run);
    if (!announce) return;
    // The folder and whatever was written into it before its watch existed.
    this.onEvent({ kind: 'add', path: run, runDir: run });
    for (const f of listEntries(run)) this.onEvent({ kind: 'add', path: path.join(run, f), runDir: run });
  }

  private dropRun(run: string, announce: boolean): void {
    this.watches.unwatch(run);
    this.runs.delete(run);
    if (announce) this.onEvent({ kind: 'remove', path: run, runDir: run });
  }

  private onRunEntry(run: string, type: string, name: string | null): void {
    if (!name) { this.sync(true); return; }
    const file = path.join(run, name);
    if (type === 'change') { this.onEvent({ kind: 'change', path: file, runDir: run }); return; }
    this.onEvent({ kind: fs.existsSync(file) ? 'add' : 'remove', path: file, runDir: run });
  }

  /** Watches `dir` (once); false when it does not exist (its parent's watch brings it in later). */
  private watch(dir: string, listener: (type: string, name: string | null) => void): boolean {
    return this.closed ? false : this.watches.watch(dir, listener) !== 'missing';
  }
}

function listEntries(dir: string): string[] {
  try { return fs.readdirSync(dir); } catch { return []; }
}

function listDirs(dir: string): string[] {
  try { return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name); } catch { return []; }
}
