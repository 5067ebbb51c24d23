import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Task } from '../../core/model/task';
import { IGNORED_FOLDERS, loadTasks } from '../../core/discovery/index';
import { loadTask } from '../../core/loader/index';
import type { Config } from '../config';
import { errorMessage } from '../log';

export interface TaskIndexChange {
  /** Task folders added, reloaded or removed; `all` after a full rediscovery. */
  readonly dirs: readonly string[] | 'all';
}

/**
 * Every task under the workspace folders, loaded from disk by the core. The Task Explorer, the
 * diagnostics and the other areas read tasks from here; the watcher (tasks/watcher.ts) tells it what
 * changed so only the affected task is reloaded.
 */
export class TaskIndex implements vscode.Disposable {
  private tasks = new Map<string, Task>();
  private discovery: AbortController | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<TaskIndexChange>();
  readonly onDidChange = this.changed.event;
  private loaded = false;

  constructor(private readonly config: Config, private readonly log: vscode.LogOutputChannel) {}

  /** Absolute paths of the local workspace folders. */
  roots(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  /** True once the first discovery has finished. */
  get isLoaded(): boolean {
    return this.loaded;
  }

  all(): Task[] {
    return [...this.tasks.values()].sort((a, b) => a.dir.localeCompare(b.dir));
  }

  get(dir: string): Task | undefined {
    return this.tasks.get(dir);
  }

  /** The task whose folder holds `fsPath` (the innermost one when tasks nest). */
  containing(fsPath: string): Task | undefined {
    let best: Task | undefined;
    for (const t of this.tasks.values()) {
      if ((fsPath === t.dir || fsPath.startsWith(t.dir + path.sep)) && (!best || t.dir.length > best.dir.length)) best = t;
    }
    return best;
  }

  /** Finds every task folder again and loads them all (aborts a discovery still running). */
  rediscover(): Promise<void> {
    this.discovery?.abort();
    const controller = new AbortController();
    this.discovery = controller;
    return this.enqueue(async () => {
      if (controller.signal.aborted) return;
      const started = Date.now();
      const roots = this.roots();
      const ignore = roots.length ? this.config.get('discovery.exclude', vscode.workspace.workspaceFolders?.[0]) : [];
      let loaded: Task[];
      try {
        loaded = await loadTasks(roots, { signal: controller.signal, ignore });
      } catch (e) {
        if (controller.signal.aborted) return; // a newer discovery took over
        throw e;
      }
      const next = new Map(loaded.map((t) => [t.dir, t] as const));
      if (controller.signal.aborted) return;
      this.tasks = next;
      this.loaded = true;
      this.log.info(`Found ${next.size} task(s) under ${roots.length} folder(s) in ${Date.now() - started} ms`);
      this.changed.fire({ dirs: 'all' });
    });
  }

  /**
   * Finds the tasks under the given folders again and leaves the rest of the index alone: for folders
   * made after the window opened, whose contents no watcher may have reported (tasks/watcher.ts).
   * Tasks found are (re)loaded, known tasks under the folders that are gone are dropped.
   */
  rescan(dirs: readonly string[]): Promise<void> {
    return this.enqueue(async () => {
      const roots = this.roots();
      const ignore = roots.length ? this.config.get('discovery.exclude', vscode.workspace.workspaceFolders?.[0]) : [];
      // Only what a full discovery would search: inside a workspace folder, below no ignored folder.
      const skipped = new Set([...IGNORED_FOLDERS, ...ignore]);
      const inside = (p: string): boolean => roots.some((r) => (p === r || p.startsWith(r + path.sep))
        && !path.relative(r, p).split(path.sep).some((part) => skipped.has(part)));
      const under = (taskDir: string): boolean => dirs.some((d) => taskDir === d || taskDir.startsWith(d + path.sep));
      const found = await loadTasks(dirs.filter(inside), { ignore });
      const touched: string[] = [];
      for (const t of found) { this.tasks.set(t.dir, t); touched.push(t.dir); }
      const kept = new Set(found.map((t) => t.dir));
      for (const dir of [...this.tasks.keys()]) if (under(dir) && !kept.has(dir)) { this.tasks.delete(dir); touched.push(dir); }
      if (touched.length) {
        this.log.debug(`Rescanned ${dirs.join(', ')}: ${found.length} task(s)`);
        this.changed.fire({ dirs: touched });
      }
    });
  }

  /** Reloads the given task folders from disk (drops the ones that are no longer tasks). */
  reload(dirs: readonly string[]): Promise<void> {
    return this.enqueue(async () => {
      const touched: string[] = [];
      for (const dir of new Set(dirs)) {
        const task = await this.loadOne(dir);
        if (task) this.tasks.set(dir, task);
        else if (!this.tasks.delete(dir)) continue;
        touched.push(dir);
      }
      if (touched.length) this.changed.fire({ dirs: touched });
    });
  }

  private async loadOne(dir: string): Promise<Task | undefined> {
    try {
      return await loadTask(dir);
    } catch (e) {
      // The loader reports malformed tasks as problems; a throw means the folder is gone or unreadable.
      this.log.warn(`Could not load task ${dir}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** Resolves when every discovery and reload queued so far has finished. */
  whenIdle(): Promise<void> {
    return this.queue;
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work, work).catch((e: unknown) => this.log.error(`Task index: ${errorMessage(e)}`));
    this.queue = next;
    return next;
  }

  dispose(): void {
    this.discovery?.abort();
    this.changed.dispose();
  }
}
