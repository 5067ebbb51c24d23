import * as vscode from 'vscode';
import type { Finding } from '../../core/model/finding';
import type { CommandSpec } from './command';

/**
 * Audits every task of the workspace (with unsaved editor text), publishing diagnostics for all of
 * them, with progress and a Cancel button that stops between tasks. Returns the totals.
 */
export const auditWorkspace: CommandSpec = {
  id: 'taskwright.audit.workspace',
  async run(ctx) {
    await ctx.tasks.whenIdle();
    const tasks = ctx.tasks.all();
    if (tasks.length === 0) {
      void vscode.window.showInformationMessage('Taskwright: no tasks (task.yaml or task.toml) in this workspace.');
      return { tasks: 0, errors: 0, warnings: 0, infos: 0 };
    }
    const totals = { tasks: 0, errors: 0, warnings: 0, infos: 0 };
    const cancelled = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification,
      title: 'Taskwright: auditing tasks',
      cancellable: true,
    }, async (progress, token) => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        for (const task of tasks) {
          if (token.isCancellationRequested) return true;
          progress.report({ message: `${task.id} (${totals.tasks + 1}/${tasks.length})`, increment: 100 / tasks.length });
          const findings: Finding[] | undefined = await ctx.audit.auditNow(task.dir, { pin: true, signal: controller.signal });
          if (!findings) continue;
          totals.tasks++;
          for (const f of findings) {
            if (f.severity === 'error') totals.errors++;
            else if (f.severity === 'warning') totals.warnings++;
            else totals.infos++;
          }
        }
        return token.isCancellationRequested;
      } finally {
        sub.dispose();
      }
    });
    const summary = `${totals.tasks} of ${tasks.length} task(s): ${totals.errors} error(s), ${totals.warnings} warning(s), ${totals.infos} info`;
    ctx.log.info(`Audit Workspace ${cancelled ? 'cancelled after' : 'finished'}: ${summary}`);
    const show = 'Show Problems';
    void vscode.window.showInformationMessage(`Taskwright: ${cancelled ? 'audit cancelled after' : 'audited'} ${summary}.`, show).then((c) => {
      if (c === show) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
    return totals;
  },
};
