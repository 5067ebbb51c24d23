import * as path from 'node:path';
import * as vscode from 'vscode';
import { configParseProblem } from '../../core/loader/problems';
import type { Task } from '../../core/model/task';
import type { StatusLevel, TaskStatusService } from '../tasks/status';
import type { TaskIndex } from '../tasks/taskIndex';
import { isEmptyFilter, matchesFilter, type TaskFacts, type TaskFilter } from './filter';
import { groupByDataset, keyFiles, type DatasetNode, type ExplorerNode, type FileNode, type TaskNode } from './nodes';

const STATUS_ICON: Readonly<Record<StatusLevel, vscode.ThemeIcon>> = {
  running: new vscode.ThemeIcon('loading~spin'),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  info: new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground')),
  ok: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
};
const TASK_ICON = new vscode.ThemeIcon('beaker');
const DATASET_ICON = new vscode.ThemeIcon('library');
const INSTRUCTION_LINES = 8;

/**
 * The Task Explorer's data: a view over the task index and the status service. The node model is
 * rebuilt (cheaply, in memory) when they change; getChildren never touches the disk.
 */
export class TaskTreeProvider implements vscode.TreeDataProvider<ExplorerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExplorerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private datasets: DatasetNode[] = [];
  private readonly taskNodes = new Map<string, TaskNode>();
  private readonly parents = new Map<string, DatasetNode>();
  private filter: TaskFilter = {};

  constructor(
    private readonly index: TaskIndex,
    private readonly status: TaskStatusService,
    private readonly showStatus: () => boolean = () => true,
  ) {
    this.rebuild();
  }

  setFilter(filter: TaskFilter): void {
    this.filter = filter;
    this.rebuild();
  }

  getFilter(): TaskFilter {
    return this.filter;
  }

  /** Recomputes the nodes from the index; `notify` fires the tree's change event. */
  rebuild(notify = true): void {
    const tasks = isEmptyFilter(this.filter) ? this.index.all() : this.index.all().filter((t) => matchesFilter(t, this.filter, this.facts(t.dir)));
    this.datasets = groupByDataset(tasks, this.index.roots());
    this.taskNodes.clear();
    this.parents.clear();
    for (const ds of this.datasets) {
      for (const task of ds.tasks) {
        this.taskNodes.set(task.dir, { kind: 'task', task });
        this.parents.set(task.dir, ds);
      }
    }
    if (notify) this.changed.fire(undefined);
  }

  /** A task's health (its icon's level; nothing while it runs or has no status) and its band. */
  private facts(dir: string): TaskFacts {
    const task = this.index.get(dir);
    if (task && configParseProblem(task.id, task.problems)) return { health: 'error' };
    const level = this.status.combined(dir)?.level;
    const band = this.status.get(dir).get('band')?.band;
    return { ...(level && level !== 'running' ? { health: level } : {}), ...(band ? { band } : {}) };
  }

  /** Ids of the tasks currently shown (after the filter), sorted. */
  visibleTaskIds(): string[] {
    return [...this.taskNodes.values()].map((n) => n.task.id).sort();
  }

  taskNode(dir: string): TaskNode | undefined {
    return this.taskNodes.get(dir);
  }

  getChildren(node?: ExplorerNode): ExplorerNode[] {
    if (!node) return this.datasets;
    if (node.kind === 'dataset') return node.tasks.map((t) => this.taskNodes.get(t.dir)).filter((n): n is TaskNode => !!n);
    if (node.kind === 'task') return keyFiles(node.task);
    return [];
  }

  getParent(node: ExplorerNode): ExplorerNode | undefined {
    if (node.kind === 'dataset') return undefined;
    if (node.kind === 'task') return this.parents.get(node.task.dir);
    return this.taskNodes.get(node.task.dir);
  }

  getTreeItem(node: ExplorerNode): vscode.TreeItem {
    switch (node.kind) {
      case 'dataset': return this.datasetItem(node);
      case 'task': return this.taskItem(node.task);
      case 'file': return fileItem(node);
    }
  }

  private datasetItem(node: DatasetNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `dataset:${node.dir}`;
    item.description = `${node.tasks.length} task${node.tasks.length === 1 ? '' : 's'}`;
    item.tooltip = node.dir;
    item.iconPath = DATASET_ICON;
    item.resourceUri = vscode.Uri.file(node.dir);
    item.contextValue = 'taskwright.dataset';
    return item;
  }

  private taskItem(task: Task): vscode.TreeItem {
    const item = new vscode.TreeItem(task.id, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `task:${task.dir}`;
    const broken = configParseProblem(task.id, task.problems);
    if (broken) {
      // What the loader filled in for a config it could not read is no fact about the task: say why instead.
      item.description = `config does not parse: ${broken}`;
      item.iconPath = STATUS_ICON.error;
      const md = new vscode.MarkdownString(undefined, true);
      md.appendMarkdown(`**${escape(task.id)}** — $(error) ${escape(task.configFile)} does not parse\n\n`);
      md.appendText(broken);
      item.tooltip = md;
      item.contextValue = `taskwright.task.${task.format}`;
      return item;
    }
    const band = this.showStatus() ? this.status.get(task.dir).get('band')?.label : undefined;
    item.description = `${task.metadata.difficulty} · ${task.metadata.category}${band ? ` · ${band}` : ''}`;
    const status = this.showStatus() ? this.status.combined(task.dir) : undefined;
    item.iconPath = status ? STATUS_ICON[status.level] : TASK_ICON;
    item.tooltip = this.taskTooltip(task);
    item.contextValue = `taskwright.task.${task.format}`;
    return item;
  }

  private taskTooltip(task: Task): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${escape(task.id)}** — ${task.format === 'tb1' ? 'Terminal-Bench 1' : 'Harbor'} · `);
    md.appendText(`${task.metadata.difficulty} · ${task.metadata.category}`);
    md.appendMarkdown('\n\n---\n\n');
    const lines = (task.instruction ?? '').trim().split(/\r?\n/);
    if (lines.length && lines[0]) {
      md.appendMarkdown(instructionMarkdown(lines.slice(0, INSTRUCTION_LINES)));
      if (lines.length > INSTRUCTION_LINES) md.appendMarkdown('\n\n*…*');
    } else {
      md.appendMarkdown('*No instruction.*');
    }
    const statuses = [...this.status.get(task.dir)];
    if (statuses.length) {
      md.appendMarkdown('\n\n---\n\n');
      for (const [source, s] of statuses) {
        const icon = source === 'band' && s.level !== 'running' ? 'graph' : STATUS_ICON[s.level].id;
        md.appendMarkdown(`$(${icon}) **${source}**: ${escape(s.summary)}  \n`);
      }
    }
    return md;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

const ROLE_LABEL: Readonly<Record<FileNode['role'], string>> = {
  config: 'config',
  instruction: 'instruction',
  environment: 'environment',
  tests: 'tests',
  solution: 'solution',
};

function fileItem(node: FileNode): vscode.TreeItem {
  const uri = vscode.Uri.file(path.join(node.task.dir, ...node.file.split('/')));
  const item = new vscode.TreeItem(node.file, vscode.TreeItemCollapsibleState.None);
  item.id = `file:${node.task.dir}:${node.role}:${node.file}`;
  item.resourceUri = uri;
  item.contextValue = node.exists ? 'taskwright.file' : 'taskwright.file.missing';
  if (node.exists) {
    item.description = node.task.format === 'tb1' && node.role === 'config' ? 'config · instruction' : ROLE_LABEL[node.role];
    item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
  } else {
    item.description = `${ROLE_LABEL[node.role]} · missing`;
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    item.tooltip = `${node.file} is configured but does not exist in ${node.task.id}`;
  }
  return item;
}

/**
 * The instruction's first lines as Markdown (it is Markdown: code spans, lists, headings render). The
 * tooltip is untrusted (no command links, no HTML); theme-icon syntax is escaped so `$(x)` stays text,
 * and a code fence cut open by the line limit is closed so the status lines below are not swallowed.
 */
export function instructionMarkdown(lines: readonly string[]): string {
  const text = lines.join('\n').replace(/\$\(/g, '\\$(');
  const fences = lines.filter((l) => /^\s*(```|~~~)/.test(l));
  if (fences.length % 2 === 0) return text;
  return `${text}\n${fences[fences.length - 1]?.trim().startsWith('~~~') ? '~~~' : '```'}`;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
