import * as vscode from 'vscode';
import type { CommandSpec } from './command';
import { pickTask } from './taskArg';

/** Shows the active editor's task (or a picked one) in the Task Explorer. */
export const revealTask: CommandSpec = {
  id: 'taskwright.task.reveal',
  async run(ctx, arg) {
    const task = await pickTask(ctx, arg, 'Reveal which task?');
    if (!task) return;
    if (!(await ctx.explorer.reveal(task.dir, { focus: true }))) {
      void vscode.window.showWarningMessage(`Taskwright: ${task.id} is not in the Task Explorer.`);
    }
  },
};

/** Selects a task's folder in VS Code's file explorer. */
export const revealTaskFolder: CommandSpec = {
  id: 'taskwright.task.revealInExplorer',
  async run(ctx, arg) {
    const task = await pickTask(ctx, arg, 'Reveal which task?');
    if (task) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(task.dir));
  },
};
