import fs from 'node:fs';

/** What `LevelWatches.watch` did: opened a new handle, kept the one it had, or found no folder. */
export type WatchOutcome = 'opened' | 'kept' | 'missing';

/**
 * Non-recursive `fs.watch` handles, one per folder, for following a tree one level at a time.
 *
 * Why not a recursive watcher (VS Code's, @parcel/watcher): on inotify it adds a watch when it sees a
 * folder appear, so the levels made before that watch exists — everything under the first folder of
 * one `mkdir -p a/b/c`, and whatever is written there — are never reported, then or later, until the
 * window reloads. Whoever follows a tree with these handles lists a folder when `watch` answers
 * `'opened'`, so nothing made before its handle existed is missed. The results store
 * (results/storeWatcher.ts) and the Task Explorer's created folders (folderFollower.ts) both rely on it.
 */
export class LevelWatches {
  /** Each watched folder's handle and the inode it was opened on (a folder removed and made again is a new one). */
  private readonly handles = new Map<string, { readonly w: fs.FSWatcher; readonly ino: number }>();

  /** `onError(dir)`: a handle failed and was closed; the caller looks at `dir` again. */
  constructor(private readonly onError: (dir: string) => void) {}

  get size(): number {
    return this.handles.size;
  }

  has(dir: string): boolean {
    return this.handles.has(dir);
  }

  dirs(): string[] {
    return [...this.handles.keys()];
  }

  /** Watches `dir` (once per inode); `'missing'` when it is not a folder now (its parent brings it in later). */
  watch(dir: string, listener: (type: string, name: string | null) => void): WatchOutcome {
    const ino = inodeOf(dir);
    const old = this.handles.get(dir);
    if (old && old.ino === ino) return 'kept';
    // Gone, or removed and made again: the old handle hears nothing any more.
    if (old) this.unwatch(dir);
    if (ino === undefined) return 'missing';
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, { persistent: false }, (type, name) => listener(type, name === null ? null : String(name)));
    } catch {
      return 'missing';
    }
    w.on('error', () => {
      w.close();
      if (this.handles.get(dir)?.w === w) this.handles.delete(dir);
      this.onError(dir);
    });
    this.handles.set(dir, { w, ino });
    return 'opened';
  }

  unwatch(dir: string): void {
    this.handles.get(dir)?.w.close();
    this.handles.delete(dir);
  }

  closeAll(): void {
    for (const { w } of this.handles.values()) w.close();
    this.handles.clear();
  }
}

function inodeOf(dir: string): number | undefined {
  try { const st = fs.statSync(dir); return st.isDirectory() ? st.ino : undefined; } catch { return undefined; }
}
