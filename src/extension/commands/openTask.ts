import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandSpec } from './command';
import { pickTask } from './taskArg';

/** Opens a task's instruction (the file an author edits most). */
export const openTask: CommandSpec = {
  id: 'taskwright.task.open',
  async run(ctx, arg) {
    const task = await pickTask(ctx, arg, 'Open which task?');
    if (!task) return;
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(task.dir, task.instructionFile)), { preview: false });
  },
};
