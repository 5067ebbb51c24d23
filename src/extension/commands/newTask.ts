import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TaskFormat } from '../../core/model/task';
import { createTask, taskIdProblem } from '../../core/scaffold/index';
import type { Ctx } from '../context';
import type { CommandSpec } from './command';
import { datasetDirFromArg } from './taskArg';

/** Arguments that skip the questions (keybindings, other extensions, tests). */
export interface NewTaskArgs {
  readonly format: TaskFormat;
  readonly id: string;
  readonly parentDir: string;
}

function isNewTaskArgs(arg: unknown): arg is NewTaskArgs {
  if (typeof arg !== 'object' || arg === null) return false;
  const a = arg as Record<string, unknown>;
  return (a.format === 'tb1' || a.format === 'harbor') && typeof a.id === 'string' && typeof a.parentDir === 'string';
}

async function askFormat(): Promise<TaskFormat | undefined> {
  const picked = await vscode.window.showQuickPick([
    { label: 'Harbor / Terminal-Bench 2', description: 'task.toml, instruction.md, environment/, solution/, tests/', format: 'harbor' as const },
    { label: 'Terminal-Bench 1', description: 'task.yaml, Dockerfile, run-tests.sh, solution.sh, tests/', format: 'tb1' as const },
  ], { title: 'New Task (1/3): format', placeHolder: 'Which task format?' });
  return picked?.format;
}

async function askId(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: 'New Task (2/3): id',
    prompt: 'The task id is its folder name',
    placeHolder: 'e.g. count-words',
    validateInput: (v) => taskIdProblem(v.trim()),
  }).then((v) => v?.trim());
}

async function askParent(ctx: Ctx, id: string): Promise<string | undefined> {
  const dirs = new Set<string>();
  for (const t of ctx.tasks.all()) dirs.add(path.dirname(t.dir));
  for (const root of ctx.tasks.roots()) dirs.add(root);
  const browse = { label: '$(folder-opened) Browse…', dir: undefined };
  const picked = await vscode.window.showQuickPick([
    ...[...dirs].sort().map((dir) => ({ label: vscode.workspace.asRelativePath(dir, true), description: dir, dir })),
    browse,
  ], { title: `New Task (3/3): where to create ${id}`, placeHolder: 'Folder that will hold the new task folder' });
  if (!picked) return undefined;
  if (picked.dir) return picked.dir;
  const chosen = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Create Task Here' });
  return chosen?.[0]?.fsPath;
}

/**
 * Scaffolds a complete, working task (its solution passes its tests, its tests fail without it) from
 * the core's templates, then shows it in the Task Explorer and opens its instruction. Returns the
 * new task folder.
 */
export const newTask: CommandSpec = {
  id: 'taskwright.task.new',
  async run(ctx, arg) {
    let args: NewTaskArgs | undefined;
    if (isNewTaskArgs(arg)) args = arg;
    else {
      const format = await askFormat();
      if (!format) return undefined;
      const id = await askId();
      if (!id) return undefined;
      const parentDir = datasetDirFromArg(arg) ?? await askParent(ctx, id);
      if (!parentDir) return undefined;
      args = { format, id, parentDir };
    }
    const dir = await createTask(args.parentDir, { format: args.format, id: args.id });
    ctx.log.info(`Created ${args.format} task ${dir}`);
    await ctx.tasks.rediscover();
    const task = ctx.tasks.get(dir);
    if (task) {
      await ctx.explorer.reveal(dir, { expand: true });
      if (!isNewTaskArgs(arg)) await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, task.instructionFile)), { preview: false });
    } else {
      // The folder is outside the workspace folders: open what was made anyway.
      void vscode.window.showInformationMessage(`Taskwright: created ${args.id} in ${args.parentDir}, outside the workspace folders.`);
    }
    return dir;
  },
};
