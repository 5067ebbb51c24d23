import * as vscode from 'vscode';
import type { ExplorerGroupSnapshot } from '../api';
import type { Ctx } from '../context';
import { describeFilter, isEmptyFilter, type TaskFilter } from './filter';
import type { ExplorerNode } from './nodes';
import { TaskTreeProvider } from './treeProvider';

export const VIEW_ID = 'taskwright.tasks';
const FILTER_STATE_KEY = 'taskwright.explorer.filter';
const REFRESH_DELAY_MS = 100;

/**
 * The Task Explorer view: owns the tree view and its provider, the filter (kept per workspace, and
 * mirrored in the `taskwright.explorer.filtered` context key for the title actions), and refreshes
 * the tree — debounced, and only while the view is visible (a hidden view refreshes when shown).
 */
export class TaskExplorer implements vscode.Disposable {
  readonly provider: TaskTreeProvider;
  readonly view: vscode.TreeView<ExplorerNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stale = false;

  constructor(private readonly ctx: Ctx) {
    this.provider = new TaskTreeProvider(ctx.tasks, ctx.status, () => ctx.config.get('explorer.showStatus'));
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this.provider, showCollapseAll: true });
    this.disposables.push(
      this.provider,
      this.view,
      ctx.tasks.onDidChange(() => this.scheduleRefresh()),
      ctx.status.onDidChange(() => this.scheduleRefresh()),
      ctx.config.onDidChange(['explorer.showStatus'], () => this.scheduleRefresh()),
      this.view.onDidChangeVisibility((e) => { if (e.visible && this.stale) this.scheduleRefresh(); }),
    );
    const saved = ctx.extension.workspaceState.get<TaskFilter>(FILTER_STATE_KEY);
    this.applyFilter(saved ?? {});
  }

  get filter(): TaskFilter {
    return this.provider.getFilter();
  }

  async setFilter(filter: TaskFilter): Promise<void> {
    this.applyFilter(filter);
    await this.ctx.extension.workspaceState.update(FILTER_STATE_KEY, isEmptyFilter(filter) ? undefined : filter);
  }

  /** Ids of the tasks shown now (after the filter), sorted. */
  visibleTaskIds(): string[] {
    return this.provider.visibleTaskIds();
  }

  /** The dataset and task rows as drawn (for the extension-host tests). */
  snapshot(): ExplorerGroupSnapshot[] {
    return this.provider.getChildren().map((ds) => ({
      label: String(this.provider.getTreeItem(ds).label),
      tasks: this.provider.getChildren(ds).map((n) => {
        const item = this.provider.getTreeItem(n);
        const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
        const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : typeof item.tooltip === 'string' ? item.tooltip : undefined;
        return { id: String(item.label), description: String(item.description ?? ''), contextValue: item.contextValue ?? '', ...(icon ? { icon } : {}), ...(tooltip ? { tooltip } : {}) };
      }),
    }));
  }

  /** Selects and expands the task in the tree (clearing a filter that hides it). */
  async reveal(taskDir: string, options: { focus?: boolean; expand?: boolean } = {}): Promise<boolean> {
    this.provider.rebuild(false);
    if (!this.provider.taskNode(taskDir) && !isEmptyFilter(this.filter)) await this.setFilter({});
    const node = this.provider.taskNode(taskDir);
    if (!node) return false;
    this.provider.rebuild();
    await this.view.reveal(node, { select: true, focus: options.focus ?? false, expand: options.expand ?? true });
    return true;
  }

  /** Rebuilds and redraws now (the Refresh command re-reads the disk first). */
  refreshNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stale = false;
    this.provider.rebuild();
    this.updateMessage();
  }

  private applyFilter(filter: TaskFilter): void {
    this.provider.setFilter(filter);
    void this.ctx.setContext('explorer.filtered', !isEmptyFilter(filter));
    this.updateMessage();
  }

  private updateMessage(): void {
    const f = this.filter;
    this.view.message = isEmptyFilter(f)
      ? undefined
      : `Filtered: ${describeFilter(f)} — ${this.provider.visibleTaskIds().length} of ${this.ctx.tasks.all().length} tasks`;
  }

  private scheduleRefresh(): void {
    if (!this.view.visible) {
      this.stale = true;
      this.provider.rebuild(false);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refreshNow(), REFRESH_DELAY_MS);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}
