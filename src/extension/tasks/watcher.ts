import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { IGNORED_FOLDERS } from '../../core/discovery/index';
import { escapeRegExp } from '../../core/parse/regex';
import { FolderFollower } from '../../core/watch/folderFollower';
import type { TaskIndex } from './taskIndex';

const CONFIG_FILES = new Set(['task.yaml', 'task.toml']);
// The folders discovery never searches, as a path test.
const IGNORED = new RegExp(`[\\\\/](${IGNORED_FOLDERS.map(escapeRegExp).join('|')})([\\\\/]|$)`);
/** A second look at a created folder once writers have settled (an unzip, a generator, a `cp -r`). */
const SETTLE_MS = 1500;
/** Followed folders (one handle each) before new ones are left to VS Code's watcher alone. */
const MAX_FOLLOWED = 2000;

type Kind = 'create' | 'change' | 'delete';

/**
 * Watches the workspace and tells the index what to reload, coalescing a burst of events (a save, a
 * `git checkout`) into one update after `delayMs`: a config file created or deleted, or a folder
 * holding tasks deleted, means rediscovery; any other change reloads only the task that holds it.
 *
 * A folder created outside every known task is not trusted to VS Code's recursive watcher, which
 * reports the top of a `mkdir -p a/b/c` but nothing made below it then or later (LevelWatches explains
 * why): the folder is rescanned at once and again after SETTLE_MS, and followed level by level from
 * then on (FolderFollower, the mechanism the results store uses), so a task made inside it appears,
 * and its later edits and its deletion are heard.
 */
export function watchTasks(index: TaskIndex, log: vscode.LogOutputChannel, delayMs = 250, settleMs = SETTLE_MS): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  const dirty = new Set<string>();
  // Paths created outside every known task: a made or copied-in folder may hold new tasks.
  const created = new Set<string>();
  let rediscover = false;
  let timer: NodeJS.Timeout | undefined;
  const settling = new Set<NodeJS.Timeout>();

  const follower = new FolderFollower((e) => onEvent(e.kind)(e.path), {
    ignore: (dir) => IGNORED.test(dir),
    maxFolders: MAX_FOLLOWED,
    onFull: () => log.warn(`watcher: ${MAX_FOLLOWED} created folders followed; tasks made in further new folders need Refresh`),
  });

  const flush = async (): Promise<void> => {
    timer = undefined;
    const fresh: string[] = [];
    for (const p of created) if (await isDirectory(p)) fresh.push(p);
    created.clear();
    // Followed first, then read: anything written after the handles opened is heard, anything before is read.
    for (const dir of fresh) follower.follow(dir);
    if (rediscover) {
      log.debug('watcher: rediscovering tasks');
      rediscover = false;
      dirty.clear();
      void index.rediscover();
    } else {
      const dirs = [...dirty];
      dirty.clear();
      if (dirs.length) {
        log.debug(`watcher: reloading ${dirs.join(', ')}`);
        void index.reload(dirs);
      }
      if (fresh.length) {
        log.debug(`watcher: rescanning created ${fresh.join(', ')}`);
        void index.rescan(fresh);
      }
    }
    if (fresh.length) {
      const again = setTimeout(() => { settling.delete(again); void index.rescan(fresh); }, settleMs);
      settling.add(again);
    }
  };
  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void flush(), delayMs);
  };
  function onEvent(kind: Kind): (p: string) => void {
    return (p) => {
      if (IGNORED.test(p)) return;
      log.trace(`watcher: ${kind} ${p}`);
      if (kind === 'delete') follower.forget(p);
      if (CONFIG_FILES.has(path.basename(p)) && kind !== 'change') rediscover = true;
      else if (kind === 'delete' && index.all().some((t) => t.dir === p || t.dir.startsWith(p + path.sep))) rediscover = true;
      else {
        const task = index.containing(p);
        if (task) dirty.add(task.dir);
        else if (kind === 'create' && !follower.follows(p)) created.add(p);
        else return;
      }
      schedule();
    };
  }
  const fromVsCode = (kind: Kind) => (uri: vscode.Uri): void => { if (uri.scheme === 'file') onEvent(kind)(uri.fsPath); };

  return vscode.Disposable.from(
    watcher,
    watcher.onDidCreate(fromVsCode('create')),
    watcher.onDidChange(fromVsCode('change')),
    watcher.onDidDelete(fromVsCode('delete')),
    {
      dispose: () => {
        if (timer) clearTimeout(timer);
        for (const t of settling) clearTimeout(t);
        follower.close();
      },
    },
  );
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
