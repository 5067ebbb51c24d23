import * as path from 'node:path';
import * as vscode from 'vscode';
import { remainingAttempts } from '../../core/results/attempts';
import { DEFAULT_MAX_INFRA_RATE, describeInfraRate, infraRate, type InfraRate } from '../../core/results/infraRate';
import { defaultResultsDir, listRuns, readRun, readTrialsFile, TRIALS_FILE } from '../../core/results/store';
import type { TrialRecord } from '../../core/results/trial';
import { enginesFromSettings, reportEngines } from '../sandbox/engines';
import { loadRunTasks, openForResume, resumableParameters, resumeJobs } from '../../core/sandbox/resume';
import { readValidations } from '../../core/results/validations';
import { checksWithoutVerdict } from '../../core/validate/resume';
import type { TaskValidation } from '../../core/validate/types';
import { countOutcomes, TrialRunner } from '../../core/sandbox/runner';
import type { CommandSpec } from '../commands/command';
import { sandboxOf } from '../sandbox/sandboxService';
import { bandOf } from './bandService';
import { agentFromSpec } from '../model/keys';
import type { RunNode } from '../runs/items';

/** What Resume Run returns (and the extension-host test reads). */
export interface ResumeRunResult {
  readonly runDir: string;
  /** Attempts that already had an outcome and were kept. */
  readonly kept: number;
  readonly ran: readonly TrialRecord[];
  readonly infra: InfraRate;
}

/** The workspace's `run` runs that still owe attempts, newest first. */
function resumableRuns(): { label: string; description: string; detail: string; dir: string }[] {
  const out: { label: string; description: string; detail: string; dir: string }[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const dir of listRuns(defaultResultsDir(folder.uri.fsPath))) {
      const run = readRun(dir);
      const p = run.params;
      // A validation owes checks until its verdicts are written (validation.json).
      if (p?.kind === 'validate' && p.validate && p.attempts && Array.isArray(p.tasks) && readValidations(dir) === undefined) {
        out.push({
          label: p.id, dir, description: `validation · ${checksWithoutVerdict(p, run.trials)} nop/oracle check(s) to run`,
          detail: `${p.tasks.length} task(s) × ${p.attempts} run(s); ${p.finishedAt ? 'ended' : 'interrupted'} before its verdicts`,
        });
        continue;
      }
      if (p?.kind !== 'run' || !p.agent || !p.attempts || !Array.isArray(p.tasks)) continue;
      const plan = remainingAttempts({ tasks: p.tasks, attempts: p.attempts, agent: p.agent }, run.trials);
      if (!plan.remaining.length) continue;
      out.push({
        label: p.id, dir,
        description: `${plan.remaining.length} of ${plan.planned} attempt(s) to run · ${p.agent}`,
        detail: `${p.tasks.length} task(s) × ${p.attempts}; ${p.finishedAt ? 'ended' : 'interrupted'} — ${Object.entries(plan.byReason).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ')}`,
      });
    }
  }
  return out;
}

/**
 * Taskwright: Resume Run… — the CLI's `run --resume` in the editor: only the attempts a run still
 * owes (missing, cancelled, lost to infra), with the run's own options from its run.json, with
 * progress and cancel; the band refreshes when it ends. On a validation, `validate --resume`: only
 * its checks without a verdict (`resumeValidation`); it returns the task verdicts.
 */
export const resumeRun: CommandSpec = {
  id: 'taskwright.band.resumeRun',
  needsTrust: 'Resuming a run (building images and running an agent in Docker)',
  async run(ctx, arg): Promise<ResumeRunResult | readonly TaskValidation[] | undefined> {
    // A path, a Uri, or a run row of the Runs view (its Resume action on an interrupted run).
    let runDir = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : isRunNode(arg) ? arg.run.dir : undefined;
    if (!runDir) {
      const runs = resumableRuns();
      if (!runs.length) {
        void vscode.window.showInformationMessage('Taskwright: no run in this workspace has attempts left to make.');
        return undefined;
      }
      runDir = (await vscode.window.showQuickPick(runs, { placeHolder: 'Run to resume', matchOnDescription: true }))?.dir;
      if (!runDir) return undefined;
    }
    const dir = runDir;
    const kind = readRun(dir).params?.kind === 'validate' ? 'validate' : 'run';
    const params = resumableParameters(dir, kind);
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(dir))?.uri.fsPath ?? path.resolve(dir, '../../..');
    const loaded = await loadRunTasks(params, folder, true);
    if (loaded.changed.length) {
      const go = 'Resume Anyway';
      const pick = await vscode.window.showWarningMessage(
        `Taskwright: ${loaded.changed.length} task(s) of ${params.id} changed since the run started (${loaded.changed.slice(0, 3).join(', ')}${loaded.changed.length > 3 ? ', …' : ''}). Their new attempts would be counted with attempts of the old version.`,
        { modal: true, detail: 'Start a new run to measure the edited tasks on their own; resuming anyway is recorded in run.json.' }, go);
      if (pick !== go) return undefined;
    }
    if (kind === 'validate') {
      return vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification, title: `Taskwright: resuming validation ${params.id}`, cancellable: true,
      }, (progress, token) => sandboxOf(ctx).resumeValidation(dir, loaded, token, { progress }));
    }
    const tasks = loaded.tasks;
    const agent = await agentFromSpec(ctx, params.agent as string);
    const perEngine = vscode.workspace.getConfiguration('taskwright').get<number>('sandbox.concurrency') ?? 2;
    const out = sandboxOf(ctx).output;
    return vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: `Taskwright: resuming ${params.id}`, cancellable: true,
    }, async (progress, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled')));
      // The engines of the user's settings, as for Run Policy… (a pool when several are set).
      const engines = enginesFromSettings(perEngine, (l) => out.warn(l));
      const { runtime, concurrency } = engines;
      await runtime.ping(ctl.signal);
      const session = await openForResume(runtime, dir);
      try {
        const jobs = resumeJobs(session.plan, tasks, agent);
        out.info(`resuming ${params.id}: ${session.plan.done} of ${session.plan.planned} attempt(s) kept, ${jobs.length} to run with ${agent.spec}`);
        if (jobs.length) {
          session.store.beginResume({
            startedAt: new Date().toISOString(), pid: process.pid, remaining: jobs.length, ...(loaded.changed.length ? { changedTasks: loaded.changed } : {}),
          }, loaded.changed.length ? loaded.changedDigests : undefined);
        }
        let done = 0;
        const results = jobs.length ? await new TrialRunner({ runtime }, session.store).runAll(jobs, {
          concurrency, retries: params.retries, signal: ctl.signal, ...(params.timeoutPolicy ? { timeoutPolicy: params.timeoutPolicy } : {}),
          ...(params.checkpoint ? { checkpoint: params.checkpoint } : {}),
          onOutput: (text) => { for (const line of text.replace(/\n$/, '').split('\n')) out.info(line); },
          onTrial: (r, job) => {
            if (r.record.outcome !== 'infra-error' || !r.retryable) done++;
            progress.report({ message: `${job.task.id} #${job.attempt}: ${r.record.outcome} (${done}/${jobs.length})`, increment: 100 / jobs.length });
          },
        }) : [];
        const ran = results.flat().map((r) => r.record);
        const ledger = readTrialsFile(path.join(dir, TRIALS_FILE)).trials;
        session.store.finish(countOutcomes(ledger));
        if (ctl.signal.aborted) throw new vscode.CancellationError();
        const infra = infraRate(ledger.filter((r) => r.agent === agent.spec), params.maxInfraRate ?? DEFAULT_MAX_INFRA_RATE);
        const line = describeInfraRate(infra);
        const msg = `Taskwright: resumed ${params.id} — ${session.plan.done} attempt(s) kept, ${ran.length} trial(s) run${ran.length ? ` (${Object.entries(countOutcomes(ran)).map(([k, v]) => `${v} ${k}`).join(', ')})` : ''}${line ? `; ${line}` : ''}`;
        void (infra.exceeded ? vscode.window.showWarningMessage(msg) : vscode.window.showInformationMessage(msg));
        return { runDir: dir, kept: session.plan.done, ran, infra };
      } finally {
        session.release();
        sub.dispose();
        await reportEngines(engines, (l) => out.info(l));
        bandOf(ctx).refresh();
      }
    });
  },
};

function isRunNode(arg: unknown): arg is RunNode {
  return typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === 'run' && typeof (arg as RunNode).run?.dir === 'string';
}
