import * as path from 'node:path';
import * as vscode from 'vscode';
import { deleteRun, trialLogFiles, trialLogsDir } from '../../core/results/runs';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';
import { BandPanel } from '../panel/bandPanel';
import { TrialPanel } from '../trial/trialPanel';
import { runLabel, trialLabel, type RunNode, type RunsNode, type TrialNode } from './items';

function isNode(arg: unknown): arg is RunsNode {
  return typeof arg === 'object' && arg !== null && ['run', 'runTask', 'trial', 'log'].includes((arg as { kind?: unknown }).kind as string);
}

function runOf(node: RunsNode): RunNode {
  switch (node.kind) {
    case 'run': return node;
    case 'runTask': return node.parent;
    case 'trial': return node.parent.parent;
    case 'log': return node.parent.parent.parent;
  }
}

/** The node a command was given from the view, else the view's selection. */
function target(ctx: Ctx, arg: unknown): RunsNode | undefined {
  return isNode(arg) ? arg : ctx.runs.view.selection[0];
}

/** The workspace task a run's record names (its path relative to the workspace folder, else its id). */
function taskDirOf(ctx: Ctx, run: RunNode, task: string, taskId: string | undefined): string | undefined {
  const direct = ctx.tasks.get(path.resolve(run.workspaceDir, task));
  if (direct) return direct.dir;
  const byId = ctx.tasks.all().filter((t) => t.id === (taskId ?? path.basename(task)));
  return byId.length === 1 ? byId[0]?.dir : undefined;
}

export const refreshRuns: CommandSpec = {
  id: 'taskwright.runs.refresh',
  run(ctx) {
    ctx.runs.refreshNow({ imports: true });
  },
};

/**
 * Open Trial: the trial viewer on a trial of the Runs view (its row's default click), or on a trial
 * folder given as a path or Uri (a Taskwright trial folder or a Harbor job's trial folder).
 */
export const openTrial: CommandSpec = {
  id: 'taskwright.runs.openTrial',
  run(ctx, arg) {
    const given = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? path.resolve(arg) : undefined;
    if (given) {
      TrialPanel.show(ctx, given);
      return given;
    }
    const node = target(ctx, arg);
    if (node?.kind !== 'trial' && node?.kind !== 'log') {
      void vscode.window.showInformationMessage('Taskwright: select a trial in the Runs view to open it.');
      return undefined;
    }
    const trial: TrialNode = node.kind === 'trial' ? node : node.parent;
    const dir = trialLogsDir(runOf(node).run.dir, trial.trial);
    TrialPanel.show(ctx, dir, trial.trial);
    return dir;
  },
};

/** Open Trial Logs: the trial's log files in a pick (its first key log when there is one file). */
export const openRunTrialLogs: CommandSpec = {
  id: 'taskwright.runs.openTrialLogs',
  async run(ctx, arg) {
    const node = target(ctx, arg);
    if (node?.kind !== 'trial' && node?.kind !== 'log') return undefined;
    const trial: TrialNode = node.kind === 'trial' ? node : node.parent;
    const runDir = runOf(node).run.dir;
    const files = await trialLogFiles(runDir, trial.trial);
    if (!files.length) {
      void vscode.window.showInformationMessage(`Taskwright: trial ${trial.trial.trial} left no log files.`);
      return undefined;
    }
    const file = files.length === 1 ? files[0] : await vscode.window.showQuickPick(files, { placeHolder: `Logs of ${trialLabel(trial.trial)} (${trial.trial.taskId ?? trial.trial.task})` });
    if (!file) return undefined;
    const uri = vscode.Uri.file(path.join(trialLogsDir(runDir, trial.trial), ...file.split('/')));
    await vscode.window.showTextDocument(uri, { preview: true });
    return uri.fsPath;
  },
};

/** Reveal in Explorer: the run's or the trial's folder in the workbench's file explorer. */
export const openRunFolder: CommandSpec = {
  id: 'taskwright.runs.openFolder',
  async run(ctx, arg) {
    const node = target(ctx, arg);
    if (!node) return undefined;
    const run = runOf(node);
    const dir = node.kind === 'trial' ? trialLogsDir(run.run.dir, node.trial) : node.kind === 'log' ? trialLogsDir(run.run.dir, node.parent.trial) : run.run.dir;
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(dir));
    return dir;
  },
};

/** Rerun: one new trial of the task with the trial's agent (Rerun Task…, in a fresh container). */
export const rerunFromRun: CommandSpec = {
  id: 'taskwright.runs.rerun',
  needsTrust: 'Rerunning a task (building its image and running an agent in Docker)',
  async run(ctx, arg) {
    const node = target(ctx, arg);
    if (!node || node.kind === 'run' || node.kind === 'log') return undefined;
    const run = runOf(node);
    if (run.run.imported) {
      void vscode.window.showInformationMessage('Taskwright: an imported trial ran under its own harness; rerun its task from the Task Explorer with a Taskwright agent.');
      return undefined;
    }
    const group = node.kind === 'runTask' ? node.group : node.parent.group;
    const record = node.kind === 'trial' ? node.trial : group.trials[group.trials.length - 1];
    if (!record) return undefined;
    const dir = taskDirOf(ctx, run, group.task, group.taskId);
    if (!dir) {
      void vscode.window.showWarningMessage(`Taskwright: task ${group.taskId} (${group.task}) is not in this workspace.`);
      return undefined;
    }
    return vscode.commands.executeCommand('taskwright.sandbox.rerun', dir, record.agent);
  },
};

/**
 * Delete Run: removes the run folder after a modal confirmation (`confirmed` true skips it, for
 * scripted use). A run still being written is refused.
 */
export const deleteRunCommand: CommandSpec = {
  id: 'taskwright.runs.delete',
  async run(ctx, arg, confirmed?: unknown) {
    const node = target(ctx, arg);
    if (!node) return false;
    const { run, resultsDir } = runOf(node);
    if (run.imported) {
      void vscode.window.showWarningMessage(`Taskwright: ${run.id} is an imported ${run.imported === 'harbor' ? 'Harbor job' : 'TB1 run'}; Taskwright does not delete it.`);
      return false;
    }
    if (run.state === 'running') {
      void vscode.window.showWarningMessage(`Taskwright: run ${run.id} is still running; cancel it first.`);
      return false;
    }
    if (confirmed !== true) {
      const del = 'Delete Run';
      const answer = await vscode.window.showWarningMessage(
        `Delete run ${runLabel(run)} (${run.id})?`,
        { modal: true, detail: `${run.trials.length} trial(s) and their logs in ${vscode.workspace.asRelativePath(run.dir)} are deleted; the band no longer counts them.` },
        del,
      );
      if (answer !== del) return false;
    }
    deleteRun(resultsDir, run.dir);
    ctx.log.info(`deleted run ${run.dir}`);
    ctx.runs.refreshNow();
    return true;
  },
};

/** Show in Band Panel: the solvability band of this run alone. */
export const revealRunInBand: CommandSpec = {
  id: 'taskwright.runs.revealInBand',
  run(ctx, arg) {
    const node = target(ctx, arg);
    if (!node) return undefined;
    const run = runOf(node).run;
    BandPanel.show(ctx, run.dir);
    return run.dir;
  },
};

export const RUNS_COMMANDS: readonly CommandSpec[] = [refreshRuns, openTrial, openRunTrialLogs, openRunFolder, rerunFromRun, deleteRunCommand, revealRunInBand];
