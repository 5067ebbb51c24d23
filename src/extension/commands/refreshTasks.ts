import * as vscode from 'vscode';
import type { CommandSpec } from './command';

export const refreshTasks: CommandSpec = {
  id: 'taskwright.tasks.refresh',
  async run(ctx) {
    await vscode.window.withProgress({ location: { viewId: 'taskwright.tasks' } }, () => ctx.tasks.rediscover());
    ctx.explorer.refreshNow();
  },
};
