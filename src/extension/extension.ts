import * as vscode from 'vscode';
import type { TaskwrightApi } from './api';
import { COMMANDS, registerCommands } from './commands/index';
import { bandOf, modelKey } from './band/bandService';
import { Ctx } from './context';
import { TrialPanel } from './trial/trialPanel';
import { BandPanel } from './panel/bandPanel';
import { sourceItems } from './panel/openPanel';
import { restoreValidations } from './sandbox/restore';
import { TaskwrightStatusBar } from './statusBar/statusBar';
import { registerTesting } from './testing/index';
import { registerCodeActions } from './diagnostics/codeActions';
import { registerFixActions } from './review/fix';
import { watchTasks } from './tasks/watcher';
import { refusedSoFar, simulateTrust } from './trust';

export async function activate(extension: vscode.ExtensionContext): Promise<TaskwrightApi> {
  const ctx = new Ctx(extension);
  ctx.log.info(`Taskwright ${String(extension.extension.packageJSON.version)} activating (trusted: ${vscode.workspace.isTrusted})`);
  registerCommands(ctx);
  ctx.own(registerCodeActions(ctx, ctx.audit));
  ctx.own(registerFixActions(ctx, ctx.audit));
  ctx.own(watchTasks(ctx.tasks, ctx.log));
  ctx.own(vscode.workspace.onDidChangeWorkspaceFolders(() => void ctx.tasks.rediscover()));
  ctx.own(ctx.config.onDidChange(['discovery.exclude'], () => void ctx.tasks.rediscover()));
  ctx.own(ctx.tasks.onDidChange(() => void ctx.setContext('hasTasks', ctx.tasks.all().length > 0)));

  const statusBar = ctx.own(new TaskwrightStatusBar(ctx));
  const testing = ctx.own(registerTesting(ctx));
  ctx.own(restoreValidations(ctx, () => testing.tests.restore()));

  void ctx.tasks.rediscover();
  const api: TaskwrightApi = {
    taskExplorer: {
      taskIds: () => ctx.tasks.all().map((t) => t.id).sort(),
      visibleTaskIds: () => ctx.explorer.visibleTaskIds(),
      filter: () => ctx.explorer.filter,
      ready: () => ctx.tasks.whenIdle(),
      task: (dir) => ctx.tasks.get(dir),
      snapshot: () => ctx.explorer.snapshot(),
      selectedTaskDirs: () => ctx.explorer.view.selection.flatMap((n) => (n.kind === 'task' ? [n.task.dir] : [])),
      status: (dir) => [...ctx.status.get(dir)].map(([source, s]) => ({ source, level: s.level, summary: s.summary })),
    },
    diagnostics: {
      whenIdle: () => ctx.audit.whenIdle(),
    },
    runs: {
      snapshot: (depth) => ctx.runs.snapshot(depth),
      shownRunDirs: () => ctx.runs.runs().map((r) => r.run.dir),
      node: (runDir, trialId) => ctx.runs.node(runDir, trialId),
    },
    bandPanel: {
      sourceChoices: () => sourceItems(bandOf(ctx).imports()).map((i) => ({ label: i.label, source: i.source })),
      current: () => {
        const p = BandPanel.current;
        if (!p) return undefined;
        return {
          source: p.source, ready: p.isReady, viewState: { ...p.viewState },
          models: (p.report?.models ?? []).map((m) => ({ key: modelKey(m), tasks: m.tasks.map((t) => ({ id: t.id, attempts: t.attempts, successes: t.successes })) })),
        };
      },
    },
    testing: {
      tree: () => {
        const walk = (c: vscode.TestItemCollection): { id: string; label: string; children: unknown[] }[] => {
          const out: { id: string; label: string; children: unknown[] }[] = [];
          c.forEach((i) => out.push({ id: i.id, label: i.label, children: walk(i.children) }));
          return out.sort((a, b) => a.id.localeCompare(b.id));
        };
        return walk(testing.tests.controller.items) as ReturnType<TaskwrightApi['testing']['tree']>;
      },
      state: (id) => testing.tests.stateOf(id),
      run: (taskDir, kind, token) => testing.runTask(taskDir, kind, token),
      restore: (asAfterReload) => {
        if (asAfterReload) testing.tests.forget();
        return testing.tests.restore();
      },
      profiles: () => [...testing.profiles.profiles.values()].map((p) => ({ label: p.label, isDefault: p.isDefault })),
    },
    trialPanel: {
      current: () => {
        const p = TrialPanel.current;
        return p ? { ready: p.isReady, view: p.view, rendered: p.rendered, viewState: { ...p.viewState } } : undefined;
      },
      openStep: async (n) => TrialPanel.current?.openStep(n),
    },
    trust: {
      simulate: (trusted) => simulateTrust(trusted),
      refused: () => refusedSoFar(),
      gated: () => COMMANDS.filter((c) => c.needsTrust).map((c) => c.id).sort(),
    },
    statusBar: {
      current: () => statusBar.current(),
      command: () => (typeof statusBar.item.command === 'string' ? statusBar.item.command : statusBar.item.command?.command),
    },
  };
  return api;
}

export function deactivate(): void {
  // Everything is owned by the Ctx, which the ExtensionContext disposes.
}
