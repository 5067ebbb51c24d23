import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_KINDS } from '../../core/agents/factory';
import { agentFromSpec } from '../model/keys';
import { trialLogFiles, trialLogsDir } from '../../core/results/runs';
import { runLabel, trialDescription, trialLabel } from '../runs/items';
import type { CommandSpec } from '../commands/command';
import { pickTask } from '../commands/taskArg';
import { sandboxOf } from './sandboxService';

/** Taskwright: Validate Task — build, nop × N, oracle × N, agreement, reward isolation, timeout margin. */
export const validateTask: CommandSpec = {
  id: 'taskwright.sandbox.validate',
  needsTrust: 'Validating a task (building its image and running it in Docker)',
  async run(ctx, arg) {
    const task = await pickTask(ctx, arg, 'Select a task to validate');
    if (!task) return undefined;
    const [v] = await sandboxOf(ctx).validate([task]);
    if (v) {
      const msg = `Taskwright: ${task.id} is ${v.verdict}${v.findings.length ? ` — ${v.findings.map((f) => f.rule).join(', ')}` : ''}`;
      void (v.verdict === 'valid' ? vscode.window.showInformationMessage(msg) : vscode.window.showWarningMessage(msg));
    }
    return v;
  },
};

/** Taskwright: Validate All Tasks. */
export const validateAll: CommandSpec = {
  id: 'taskwright.sandbox.validateAll',
  needsTrust: 'Validating tasks (building images and running them in Docker)',
  async run(ctx) {
    const tasks = ctx.tasks.all();
    if (!tasks.length) {
      void vscode.window.showInformationMessage('Taskwright: no tasks in this workspace.');
      return [];
    }
    const results = await sandboxOf(ctx).validate(tasks);
    const bad = results.filter((r) => r.verdict !== 'valid');
    void vscode.window.showInformationMessage(`Taskwright: ${results.length - bad.length} of ${results.length} tasks valid${bad.length ? `; not valid: ${bad.map((b) => `${b.id} (${b.verdict})`).join(', ')}` : ''}`);
    return results;
  },
};

/** Taskwright: Rerun Task… — one trial in a fresh container with the agent the user picks. */
export const rerunTask: CommandSpec = {
  id: 'taskwright.sandbox.rerun',
  needsTrust: 'Rerunning a task (building its image and running an agent in Docker)',
  async run(ctx, arg, agentSpec?: unknown) {
    const task = await pickTask(ctx, arg, 'Select a task to rerun');
    if (!task) return undefined;
    let spec = typeof agentSpec === 'string' ? agentSpec : undefined;
    if (!spec) {
      const picked = await vscode.window.showQuickPick(Object.keys(AGENT_KINDS).map((k) => ({
        label: k,
        description: k === 'oracle' ? 'runs the reference solution' : k === 'nop' ? 'does nothing (must fail)' : 'spec: kind:argument',
      })), { placeHolder: 'Agent for the trial' });
      if (!picked) return undefined;
      spec = picked.label;
      if (!['oracle', 'nop'].includes(spec)) {
        const rest = await vscode.window.showInputBox({ prompt: `Agent spec after '${spec}:'`, placeHolder: 'model or program' });
        if (!rest) return undefined;
        spec = `${spec}:${rest}`;
      }
    }
    // The agent reads its key where every path does: the stored key, then the environment.
    const record = await sandboxOf(ctx).rerun(task, await agentFromSpec(ctx, spec));
    if (record) {
      const detail = record.infra ? ` — ${record.infra.kind}: ${record.infra.message}` : '';
      void vscode.window.showInformationMessage(`Taskwright: ${task.id} with ${spec}: ${record.outcome}${record.reward !== null ? ` (reward ${record.reward})` : ''}${detail}`);
    }
    return record;
  },
};

/**
 * Taskwright: Open Trial Logs… — any trial of the task in the results store (every run, newest first,
 * this session's or not), then one of its log files.
 */
export const openTrialLogs: CommandSpec = {
  id: 'taskwright.sandbox.openTrialLogs',
  async run(ctx, arg) {
    const task = await pickTask(ctx, arg, 'Select a task');
    if (!task) return undefined;
    ctx.runs.refreshNow();
    const trials = ctx.runs.runs().flatMap((run) => run.run.trials
      .filter((t) => path.resolve(run.workspaceDir, t.task) === task.dir || (t.taskId ?? path.basename(t.task)) === task.id)
      .map((t) => ({ run, t })));
    if (!trials.length) {
      void vscode.window.showInformationMessage(`Taskwright: ${task.id} has no trials in the results store; run "Validate Task", "Rerun Task" or "Run Policy…" first.`);
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(trials.map(({ run, t }) => ({
      label: `${trialLabel(t)}`, description: `${runLabel(run.run)} · ${trialDescription(t)}`,
      detail: `${run.run.id}${t.infra ? ` — ${t.infra.kind}: ${t.infra.message}` : ''}`, run, t,
    })), { placeHolder: `Trial of ${task.id}`, matchOnDescription: true, matchOnDetail: true });
    if (!picked) return undefined;
    const files = await trialLogFiles(picked.run.run.dir, picked.t);
    if (!files.length) {
      void vscode.window.showInformationMessage(`Taskwright: trial ${picked.t.trial} left no log files.`);
      return undefined;
    }
    const file = files.length === 1 ? files[0] : (await vscode.window.showQuickPick(files, { placeHolder: `Logs of ${picked.t.trial}` }));
    if (!file) return undefined;
    const full = path.join(trialLogsDir(picked.run.run.dir, picked.t), ...file.split('/'));
    await vscode.window.showTextDocument(vscode.Uri.file(full), { preview: true });
    return full;
  },
};

/** Taskwright: Show Sandbox Log. */
export const showSandboxLog: CommandSpec = {
  id: 'taskwright.sandbox.showLog',
  run(ctx) {
    sandboxOf(ctx).output.show(true);
  },
};
