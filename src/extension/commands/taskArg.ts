import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Task } from '../../core/model/task';
import type { Ctx } from '../context';
import type { ExplorerNode } from '../explorer/nodes';

function isExplorerNode(arg: unknown): arg is ExplorerNode {
  return typeof arg === 'object' && arg !== null && 'kind' in arg && ['dataset', 'task', 'file'].includes(String((arg as { kind: unknown }).kind));
}

/**
 * The task a command was invoked on: a Task Explorer node, a Uri (file or folder, from an editor or
 * the file explorer), a task folder path, or else the task of the active editor.
 */
export function taskFromArg(ctx: Ctx, arg: unknown): Task | undefined {
  if (isExplorerNode(arg)) return arg.kind === 'dataset' ? undefined : ctx.tasks.get(arg.task.dir) ?? arg.task;
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? ctx.tasks.containing(arg.fsPath) : undefined;
  if (typeof arg === 'string') return ctx.tasks.get(path.resolve(arg)) ?? ctx.tasks.containing(path.resolve(arg));
  const active = vscode.window.activeTextEditor?.document.uri;
  return active?.scheme === 'file' ? ctx.tasks.containing(active.fsPath) : undefined;
}

/** Like taskFromArg, but asks with a quick pick when the invocation names no task. */
export async function pickTask(ctx: Ctx, arg: unknown, placeHolder = 'Select a task'): Promise<Task | undefined> {
  const direct = taskFromArg(ctx, arg);
  if (direct) return direct;
  const tasks = ctx.tasks.all();
  if (tasks.length === 0) {
    void vscode.window.showInformationMessage('Taskwright: no tasks (task.yaml or task.toml) in this workspace.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    tasks.map((task) => ({
      label: task.id,
      description: `${task.metadata.difficulty} · ${task.metadata.category}`,
      detail: vscode.workspace.asRelativePath(task.dir),
      task,
    })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.task;
}

/** The dataset node's folder, when the command was invoked on one. */
export function datasetDirFromArg(arg: unknown): string | undefined {
  return isExplorerNode(arg) && arg.kind === 'dataset' ? arg.dir : undefined;
}
