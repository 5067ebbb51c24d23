import fs from 'node:fs';
import path from 'node:path';

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
 * them (`trials.jsonl`, `run.json`, `validation.json`), with non-recursive `fs.watch` handles, one
 * level at a time.
 *
 * Why not a recursive watcher: a store is made with one `mkdir -p .taskwright/runs/<run>/trials`, and
 * an inotify watcher that adds a watch when it sees a directory appear (VS Code's, @parcel/watcher)
 * misses the levels created before that watch exists — it never hears of that run, nor of any later
 * one, until the window reloads. Here every level is listed again when it is (re)watched, so nothing
 * created in between is missed. Watching never goes above `floor` (the workspace folder).
 */
export class StoreWatcher {
  private readonly chain: string[];
  /** Each watched folder's handle and the inode it was opened on (a folder removed and made again is a new one). */
  private readonly watchers = new Map<string, { readonly w: fs.FSWatcher; readonly ino: number }>();
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
    for (const { w } of this.watchers.values()) w.close();
    this.watchers.clear();
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
    this.watchers.get(run)?.w.close();
    this.watchers.delete(run);
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
    const ino = inodeOf(dir);
    const old = this.watchers.get(dir);
    if (old && old.ino === ino) return true;
    // Gone, or removed and made again: the old handle hears nothing any more.
    if (old) { old.w.close(); this.watchers.delete(dir); }
    if (ino === undefined) return false;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, { persistent: false }, (type, name) => listener(type, name === null ? null : String(name)));
    } catch {
      return false;
    }
    w.on('error', () => { w.close(); if (this.watchers.get(dir)?.w === w) this.watchers.delete(dir); this.sync(true); });
    this.watchers.set(dir, { w, ino });
    return true;
  }
}

function inodeOf(dir: string): number | undefined {
  try { const st = fs.statSync(dir); return st.isDirectory() ? st.ino : undefined; } catch { return undefined; }
}

function listEntries(dir: string): string[] {
  try { return fs.readdirSync(dir); } catch { return []; }
}

function listDirs(dir: string): string[] {
  try { return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name); } catch { return []; }
}
