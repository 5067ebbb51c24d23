import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ResultsReader, summarizeImported, trialLogFiles, type RunSummary } from '../../core/results/runs';
import { defaultResultsDir } from '../../core/results/store';
import { bandOf } from '../band/bandService';
import type { Ctx } from '../context';
import { logItem, runItem, runTaskItem, trialItem, type RunNode, type RunsNode, type RunTaskNode, type TrialNode } from './items';

/** The Runs view (package.json `contributes.views`). */
export const RUNS_VIEW_ID = 'taskwright.runs';
const REFRESH_DELAY_MS = 300;

/** One row as drawn, with its children (for the extension-host tests). */
export interface RunsRowSnapshot {
  readonly label: string;
  readonly description: string;
  readonly contextValue: string;
  readonly icon?: string;
  /** The command a click on the row runs. */
  readonly command?: string;
  readonly children?: readonly RunsRowSnapshot[];
}

/**
 * The tree's data: the runs of every workspace folder's results store, read by the core
 * (`ResultsReader`, which rereads only runs whose files changed) when the view refreshes — never in
 * getChildren, which only walks the nodes in memory (a trial's log files are listed asynchronously
 * when it is expanded).
 */
class RunsProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly readers = new Map<string, { readonly reader: ResultsReader; readonly workspaceDir: string }>();
  /** Imported jobs / runs as last read: they do not grow under the store's watcher, so they are read on demand. */
  private readonly imported = new Map<string, readonly RunSummary[]>();
  private runs: RunNode[] = [];

  constructor(private readonly imports: () => readonly string[]) {}

  /** Rereads the stores (cheap for runs that did not change), and the imports when asked, then redraws. */
  reload(opts: { imports?: boolean } = {}): void {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    for (const dir of [...this.readers.keys()]) if (!folders.some((f) => defaultResultsDir(f) === dir)) this.readers.delete(dir);
    const runs: RunNode[] = [];
    for (const ws of folders) {
      const resultsDir = defaultResultsDir(ws);
      let entry = this.readers.get(resultsDir);
      if (!entry) this.readers.set(resultsDir, (entry = { reader: new ResultsReader(resultsDir), workspaceDir: ws }));
      for (const run of entry.reader.read()) runs.push({ kind: 'run', resultsDir, workspaceDir: ws, run });
    }
    const paths = this.imports();
    for (const p of [...this.imported.keys()]) if (!paths.includes(p)) this.imported.delete(p);
    for (const p of paths) {
      let list = this.imported.get(p);
      if (!list || opts.imports) this.imported.set(p, (list = fs.existsSync(p) ? summarizeImported(p) : []));
      for (const run of list) runs.push({ kind: 'run', resultsDir: p, workspaceDir: folders[0] ?? path.dirname(p), run });
    }
    this.runs = runs;
    this.changed.fire(undefined);
  }

  all(): readonly RunNode[] {
    return this.runs;
  }

  getChildren(node?: RunsNode): RunsNode[] | Promise<RunsNode[]> {
    if (!node) return this.runs;
    switch (node.kind) {
      case 'run': return node.run.tasks.map((group): RunTaskNode => ({ kind: 'runTask', parent: node, group }));
      case 'runTask': return node.group.trials.map((trial): TrialNode => ({ kind: 'trial', parent: node, trial }));
      case 'trial': return trialLogFiles(node.parent.parent.run.dir, node.trial).then((files) => files.map((file) => ({ kind: 'log' as const, parent: node, file })));
      case 'log': return [];
    }
  }

  getParent(node: RunsNode): RunsNode | undefined {
    return node.kind === 'run' ? undefined : node.parent;
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'run': return runItem(node);
      case 'runTask': return runTaskItem(node);
      case 'trial': return trialItem(node);
      case 'log': return logItem(node);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * The Runs view: every run of the results store → its tasks → their trials (outcome, reward,
 * duration, model, attempt) → the trial's log files. It reads the store on disk, so it shows the same
 * after a reload; a watcher on the store refreshes it (debounced, and only while it is visible: a
 * hidden view refreshes when shown) as `trials.jsonl` grows or runs come and go.
 */
export class RunsView implements vscode.Disposable {
  private readonly provider: RunsProvider;
  readonly view: vscode.TreeView<RunsNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stale = true;
  private readonly refreshed = new vscode.EventEmitter<void>();
  /** Fires after each reread of the stores. */
  readonly onDidRefresh = this.refreshed.event;

  constructor(private readonly ctx: Ctx) {
    this.provider = new RunsProvider(() => bandOf(ctx).imports());
    this.view = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: this.provider, showCollapseAll: true });
    const soon = (): void => this.refreshSoon();
    this.disposables.push(
      this.provider, this.view, this.refreshed,
      ctx.store.onDidChange(soon),
      vscode.workspace.onDidChangeWorkspaceFolders(soon),
      // Trials this window runs end with a write the watcher sees; the count changing is the earlier cue.
      ctx.trials.onDidChange(soon),
      // "Import Results…" refreshes the band: the imports may have changed.
      bandOf(ctx).onDidChange(() => this.refreshImportsSoon()),
      this.view.onDidChangeVisibility((e) => { if (e.visible && this.stale) this.refreshNow(); }),
    );
    if (this.view.visible) this.refreshNow();
  }

  runs(): readonly RunNode[] {
    return this.provider.all();
  }

  /** Rereads the stores now (the Refresh action also rereads the imports; after this window deletes a run). */
  refreshNow(opts: { imports?: boolean } = {}): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stale = false;
    const imports = opts.imports || this.importsStale;
    this.importsStale = false;
    try {
      this.provider.reload({ imports });
      const n = this.provider.all().length;
      this.view.message = n ? undefined : 'No runs yet. Validate a task, rerun one or run a policy: each run is kept in .taskwright/runs.';
    } catch (e) {
      this.ctx.log.error(`Runs view: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.refreshed.fire();
  }

  private importsStale = false;

  private refreshImportsSoon(): void {
    this.importsStale = true;
    this.refreshSoon();
  }

  refreshSoon(): void {
    if (!this.view.visible) {
      this.stale = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refreshNow(), REFRESH_DELAY_MS);
  }

  /** The node of a run, or of one of its trials (by trial id). */
  node(runDir: string, trialId?: string): RunsNode | undefined {
    const run = this.provider.all().find((r) => r.run.dir === runDir);
    if (!run || trialId === undefined) return run;
    for (const group of run.run.tasks) {
      const trial = group.trials.find((t) => t.trial === trialId);
      if (trial) return { kind: 'trial', parent: { kind: 'runTask', parent: run, group }, trial };
    }
    return undefined;
  }

  /** Reveals a run in the tree (after a refresh), expanded. */
  async reveal(runDir: string): Promise<boolean> {
    this.refreshNow();
    const node = this.provider.all().find((r) => r.run.dir === runDir);
    if (!node) return false;
    await this.view.reveal(node, { select: true, focus: false, expand: true });
    return true;
  }

  /** The rows as drawn, `depth` levels deep (1: runs; 2: and tasks; 3: and trials). */
  async snapshot(depth = 3): Promise<RunsRowSnapshot[]> {
    const draw = async (nodes: readonly RunsNode[], level: number): Promise<RunsRowSnapshot[]> => Promise.all(nodes.map(async (n) => {
      const item = this.provider.getTreeItem(n);
      const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
      const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
      const row = { label, description: String(item.description ?? ''), contextValue: item.contextValue ?? '', ...(icon ? { icon } : {}), ...(item.command ? { command: item.command.command } : {}) };
      if (level >= depth) return row;
      return { ...row, children: await draw(await this.provider.getChildren(n), level + 1) };
    }));
    return draw(this.provider.all(), 1);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}
