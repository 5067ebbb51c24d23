import fs from 'node:fs';
import path from 'node:path';
import { LevelWatches } from './levelWatches';

/** A file or folder under a followed folder that appeared, changed or went. */
export interface FollowEvent {
  readonly kind: 'create' | 'change' | 'delete';
  readonly path: string;
}

export interface FolderFollowerOptions {
  /** Folders never followed (dependencies, VCS data, Taskwright's own state). */
  readonly ignore?: (dir: string) => boolean;
  /** At most this many folders are watched at once; past it `onFull` is called once and no more are added. */
  readonly maxFolders?: number;
  readonly onFull?: () => void;
}

/**
 * Follows folder trees that a recursive watcher is blind to: a folder made with its levels in one
 * `mkdir -p` (see LevelWatches). Each followed folder and every folder under it gets its own handle;
 * a folder that appears later is listed when its handle opens and what is already in it is reported as
 * created, so files written before the handle existed are not missed. Events are raw and not
 * debounced; the caller coalesces them.
 */
export class FolderFollower {
  private readonly watches = new LevelWatches((dir) => this.look(dir));
  private full = false;
  private closed = false;

  constructor(private readonly onEvent: (e: FollowEvent) => void, private readonly o: FolderFollowerOptions = {}) {}

  /** True when `dir` has a handle here. */
  follows(dir: string): boolean {
    return this.watches.has(dir);
  }

  get size(): number {
    return this.watches.size;
  }

  /** Follows `root` and every folder under it. What is there now is not reported (the caller reads it). */
  follow(root: string): void {
    if (!this.closed) this.add(root, false);
  }

  /** Stops following `dir` and every folder under it (it was deleted, or is no longer of interest). */
  forget(dir: string): void {
    for (const d of this.watches.dirs()) if (d === dir || d.startsWith(dir + path.sep)) this.watches.unwatch(d);
  }

  close(): void {
    this.closed = true;
    this.watches.closeAll();
  }

  private add(dir: string, announce: boolean): void {
    if (this.closed || this.o.ignore?.(dir)) return;
    if (!this.watches.has(dir) && this.watches.size >= (this.o.maxFolders ?? Infinity)) {
      if (!this.full) { this.full = true; this.o.onFull?.(); }
      return;
    }
    if (this.watches.watch(dir, (type, name) => this.onEntry(dir, type, name)) !== 'opened') return;
    for (const e of listEntries(dir)) {
      const p = path.join(dir, e.name);
      if (announce) this.onEvent({ kind: 'create', path: p });
      if (e.isDirectory()) this.add(p, announce);
    }
  }

  private onEntry(dir: string, type: string, name: string | null): void {
    if (this.closed) return;
    if (name === null) { this.look(dir); return; }
    const p = path.join(dir, name);
    // A folder's own handle also reports the folder's removal under its own name: that is the parent's news.
    if (p === path.join(dir, path.basename(dir)) && !fs.existsSync(dir)) { this.look(dir); return; }
    this.look(p, type === 'change');
  }

  /** Reports what `p` is now: gone (and forgotten), a folder (followed, its entries reported), or a file. */
  private look(p: string, changed = false): void {
    let st: fs.Stats;
    try { st = fs.statSync(p); } catch {
      this.forget(p);
      this.onEvent({ kind: 'delete', path: p });
      return;
    }
    if (st.isDirectory()) {
      if (!this.watches.has(p)) this.onEvent({ kind: 'create', path: p });
      this.add(p, true);
      return;
    }
    this.onEvent({ kind: changed ? 'change' : 'create', path: p });
  }
}

function listEntries(dir: string): fs.Dirent[] {
  try { return fs.readdirSync(dir, { withFileTypes: true }); } catch { return []; }
}
