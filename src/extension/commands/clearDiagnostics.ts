import * as vscode from 'vscode';
import type { CommandSpec } from './command';

/** Drops the diagnostics "Audit Workspace" left on files that are not open (with `audit.scope` = `openTasks`). */
export const clearDiagnostics: CommandSpec = {
  id: 'taskwright.audit.clear',
  async run(ctx) {
    if (ctx.config.get('audit.scope') !== 'openTasks') {
      void vscode.window.showInformationMessage('Taskwright: Problems lists every task\'s findings (setting taskwright.audit.scope is "workspace"); there is nothing to clear.');
      return;
    }
    ctx.audit.clearPinned();
    await ctx.audit.whenIdle();
  },
};
