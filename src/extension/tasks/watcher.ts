import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TaskIndex } from './taskIndex';

const CONFIG_FILES = new Set(['task.yaml', 'task.toml']);
const IGNORED = /[\\/](node_modules|\.git|\.taskwright)([\\/]|$)/;

/**
 * Watches the workspace and tells the index what to reload, coalescing a burst of events (a save, a
 * `git checkout`) into one update after `delayMs`: a config file created or deleted, or a folder
 * holding tasks deleted, means rediscovery; any other change reloads only the task that holds it.
 */
export function watchTasks(index: TaskIndex, log: vscode.LogOutputChannel, delayMs = 250): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  const dirty = new Set<string>();
  // Paths created outside every known task: a copied-in folder may hold new tasks.
  const created = new Set<string>();
  let rediscover = false;
  let timer: NodeJS.Timeout | undefined;

  const flush = async (): Promise<void> => {
    timer = undefined;
    const fresh = [...created];
    created.clear();
    for (const p of fresh) if (await isDirectory(p)) rediscover = true;
    if (rediscover) {
      log.debug('watcher: rediscovering tasks');
      rediscover = false;
      dirty.clear();
      void index.rediscover();
      return;
    }
    const dirs = [...dirty];
    dirty.clear();
    if (dirs.length) {
      log.debug(`watcher: reloading ${dirs.join(', ')}`);
      void index.reload(dirs);
    }
  };
  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void flush(), delayMs);
  };
  const onEvent = (kind: 'create' | 'change' | 'delete') => (uri: vscode.Uri): void => {
    if (uri.scheme !== 'file' || IGNORED.test(uri.fsPath)) return;
    const p = uri.fsPath;
    log.trace(`watcher: ${kind} ${p}`);
    if (CONFIG_FILES.has(path.basename(p)) && kind !== 'change') rediscover = true;
    else if (kind === 'delete' && index.all().some((t) => t.dir === p || t.dir.startsWith(p + path.sep))) rediscover = true;
    else {
      const task = index.containing(p);
      if (task) dirty.add(task.dir);
      else if (kind === 'create') created.add(p);
      else return;
    }
    schedule();
  };

  return vscode.Disposable.from(
    watcher,
    watcher.onDidCreate(onEvent('create')),
    watcher.onDidChange(onEvent('change')),
    watcher.onDidDelete(onEvent('delete')),
    { dispose: () => { if (timer) clearTimeout(timer); } },
  );
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
