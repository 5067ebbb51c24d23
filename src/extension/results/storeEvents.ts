import * as vscode from 'vscode';
import { defaultResultsDir } from '../../core/results/store';
import { type StoreEvent, StoreWatcher } from '../../core/results/storeWatcher';

/**
 * The one watch on the workspace's results stores (`.taskwright/runs` of each local folder) that the
 * Runs view, the band, the band panel and restored validations all listen to. A VS Code file watcher
 * is not enough here: it misses every run of a store made in one `mkdir -p` (see StoreWatcher).
 */
export class ResultsStoreEvents implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<StoreEvent>();
  /** A run folder, or a file directly in one, appeared, changed or went. */
  readonly onDidChange = this.emitter.event;
  private watchers: StoreWatcher[] = [];
  private readonly folders: vscode.Disposable;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.folders = vscode.workspace.onDidChangeWorkspaceFolders(() => this.rewatch());
    this.rewatch();
  }

  private rewatch(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      if (f.uri.scheme !== 'file') continue;
      try {
        this.watchers.push(new StoreWatcher(f.uri.fsPath, defaultResultsDir(f.uri.fsPath), (e) => this.emitter.fire(e)));
      } catch (e) {
        this.log.warn(`results store of ${f.uri.fsPath} is not watched: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  dispose(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.folders.dispose();
    this.emitter.dispose();
  }
}
