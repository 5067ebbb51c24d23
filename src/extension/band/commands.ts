import * as path from 'node:path';
import * as vscode from 'vscode';
import { detectResults } from '../../core/band/sources';
import { bandCountsText } from '../../core/band/format';
import type { Task } from '../../core/model/task';
import { defaultResultsDir, newRunId, RunStore } from '../../core/results/store';
import { enginesFromSettings, reportEngines } from '../sandbox/engines';
import { countOutcomes, TrialRunner, type TrialJob } from '../../core/sandbox/runner';
import type { CommandSpec } from '../commands/command';
import { taskFromArg } from '../commands/taskArg';
import type { Ctx } from '../context';
import { sandboxOf } from '../sandbox/sandboxService';
import { bandOf, modelKey } from './bandService';
import { agentFromSpec } from '../model/keys';
import { resumeRun } from './resumeRun';
import { taskDigests } from '../../core/results/taskDigest';

const LAST_SPEC_KEY = 'taskwright.band.lastAgentSpec';

async function pickTasks(ctx: Ctx, arg: unknown): Promise<Task[] | undefined> {
  const direct = taskFromArg(ctx, arg);
  if (direct && arg !== undefined) return [direct];
  const tasks = ctx.tasks.all();
  if (!tasks.length) {
    void vscode.window.showInformationMessage('Taskwright: no tasks (task.yaml or task.toml) in this workspace.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    tasks.map((task) => ({ label: task.id, description: task.metadata.difficulty, detail: vscode.workspace.asRelativePath(task.dir), picked: true, task })),
    { canPickMany: true, placeHolder: 'Tasks to run the policy on', matchOnDetail: true },
  );
  return picked?.length ? picked.map((p) => p.task) : undefined;
}

/**
 * Taskwright: Run Policy… — tasks × attempts of a policy agent, each in a fresh container, with
 * progress per task and cancel; the trials land in the results store and the band refreshes.
 */
export const runPolicy: CommandSpec = {
  id: 'taskwright.band.runPolicy',
  needsTrust: 'Running a policy agent on tasks (building images and running containers)',
  async run(ctx, arg, specArg?: unknown, attemptsArg?: unknown) {
    const tasks = await pickTasks(ctx, arg);
    if (!tasks) return undefined;
    const last = ctx.extension.workspaceState.get<string>(LAST_SPEC_KEY);
    const spec = typeof specArg === 'string' ? specArg : await vscode.window.showInputBox({
      prompt: 'Agent spec', value: last ?? 'anthropic:claude-sonnet-4-5',
      placeHolder: 'anthropic:<model> · openai:<model>@http://host:8000/v1 · command:<program> · oracle · nop',
      validateInput: (v) => (/^(oracle|nop|anthropic:.+|openai:.+|command:.+)$/.test(v.trim()) ? undefined : 'anthropic:<model>, openai:<model>@<base-url>, command:<program>, oracle or nop'),
    });
    if (!spec) return undefined;
    const attemptsText = typeof attemptsArg === 'number' ? String(attemptsArg) : await vscode.window.showInputBox({
      prompt: 'Attempts per task (pass@k needs at least k)', value: '2',
      validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'a whole number ≥ 1'),
    });
    if (!attemptsText) return undefined;
    const attempts = Number(attemptsText);
    await ctx.extension.workspaceState.update(LAST_SPEC_KEY, spec.trim());
    const agent = await agentFromSpec(ctx, spec.trim());
    const perEngine = vscode.workspace.getConfiguration('taskwright').get<number>('sandbox.concurrency') ?? 2;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(tasks[0]!.dir));
    const resultsDir = defaultResultsDir(folder?.uri.fsPath ?? path.dirname(tasks[0]!.dir));
    const out = sandboxOf(ctx).output;
    return vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: `Taskwright: ${agent.spec} on ${tasks.length} task(s) × ${attempts}`, cancellable: true,
    }, async (progress, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled')));
      const engines = enginesFromSettings(perEngine, (l) => out.warn(l));
      const { runtime, concurrency } = engines;
      const work = ctx.trials.begin(tasks.length * attempts);
      try {
        const store = RunStore.create(resultsDir, {
          id: newRunId(agent.spec.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 24)), kind: 'run', agent: agent.spec,
          ...(agent.model ? { model: agent.model } : {}), tasks: tasks.map((t) => vscode.workspace.asRelativePath(t.dir, false)),
          taskDigests: taskDigests(tasks.map((t) => ({ path: vscode.workspace.asRelativePath(t.dir, false), dir: t.dir }))),
          attempts, concurrency, retries: 2, startedAt: new Date().toISOString(), endpoint: runtime.endpoint, pid: process.pid,
          // The task paths are relative to the workspace folder: a resume finds them from there.
          ...(folder ? { cwd: folder.uri.fsPath } : {}),
        });
        const runner = new TrialRunner({ runtime }, store);
        await runner.prepare(ctl.signal);
        const jobs: TrialJob[] = [];
        for (let a = 1; a <= attempts; a++) for (const task of tasks) jobs.push({ task, taskPath: vscode.workspace.asRelativePath(task.dir, false), agent, attempt: a });
        for (const t of tasks) ctx.status.set(t.dir, 'band', { level: 'running', summary: `running ${agent.spec}…` });
        let done = 0;
        out.info(`${agent.spec}: ${tasks.length} task(s) × ${attempts} attempt(s); results in ${store.dir}`);
        const results = await runner.runAll(jobs, {
          concurrency, retries: 2, signal: ctl.signal,
          onOutput: (text) => { for (const line of text.replace(/\n$/, '').split('\n')) out.info(line); },
          onTrial: (r, job) => {
            if (r.record.outcome !== 'infra-error' || !r.retryable) done++;
            work.finished(done);
            progress.report({ message: `${job.task.id} #${job.attempt}: ${r.record.outcome} (${done}/${jobs.length})`, increment: 100 / jobs.length });
          },
        });
        const records = results.flat().map((r) => r.record);
        await reportEngines(engines, (l) => out.info(l));
        store.finish(countOutcomes(records));
        const band = bandOf(ctx);
        const report = band.refresh();
        const mine = report?.models.find((m) => m.model === (agent.model ?? agent.spec));
        // The band model the explorer shows changes only when the user asks (the button), never by itself.
        if (mine && !band.selectedModel()) await band.selectModel(modelKey(mine));
        if (ctl.signal.aborted) throw new vscode.CancellationError();
        const c = mine?.counts;
        const bands = c ? `; band: ${bandCountsText(c)}` : '';
        const show = 'Show Its Band';
        const offer = mine && band.selectedModel() !== modelKey(mine) ? [show] : [];
        void vscode.window.showInformationMessage(`Taskwright: ${agent.spec} — ${Object.entries(countOutcomes(records)).map(([k, v]) => `${v} ${k}`).join(', ')}${bands}`, ...offer).then((choice) => {
          if (choice === show && mine) void band.selectModel(modelKey(mine));
        });
        return records;
      } finally {
        work.dispose();
        sub.dispose();
        bandOf(ctx).refresh();
      }
    });
  },
};

/** Taskwright: Import Results… — Harbor job folders or Terminal-Bench 1 run folders into the band. */
export const importResults: CommandSpec = {
  id: 'taskwright.band.importResults',
  async run(ctx, arg) {
    const uris = arg instanceof vscode.Uri ? [arg] : await vscode.window.showOpenDialog({
      canSelectFolders: true, canSelectFiles: false, canSelectMany: true, openLabel: 'Import',
      title: 'Harbor job folders (jobs/<job>) or Terminal-Bench 1 run folders (runs/<id>)',
    });
    if (!uris?.length) return undefined;
    const ok: string[] = [];
    const bad: string[] = [];
    for (const u of uris) (detectResults(u.fsPath) ? ok : bad).push(u.fsPath);
    if (bad.length) void vscode.window.showWarningMessage(`Taskwright: not a Harbor job or TB1 run: ${bad.map((b) => path.basename(b)).join(', ')}`);
    if (!ok.length) return undefined;
    await bandOf(ctx).addImports(ok);
    const report = bandOf(ctx).current();
    void vscode.window.showInformationMessage(`Taskwright: imported ${ok.length} folder(s); models: ${report?.models.map((m) => modelKey(m)).join(', ') || 'none'}`);
    return report;
  },
};

/** Taskwright: Select Band Model… — whose band the Task Explorer shows. */
export const selectBandModel: CommandSpec = {
  id: 'taskwright.band.selectModel',
  async run(ctx, modelArg?: unknown) {
    const service = bandOf(ctx);
    const report = service.current() ?? service.refresh();
    const models = report?.models ?? [];
    if (!models.length) {
      void vscode.window.showInformationMessage('Taskwright: no rollouts yet — run "Run Policy…" or "Import Results…".');
      return undefined;
    }
    const key = typeof modelArg === 'string' ? modelArg : (await vscode.window.showQuickPick(models.map((m) => ({
      label: modelKey(m), description: `mean pass@${report!.k} ${m.meanPassAtK === null ? '—' : `${(m.meanPassAtK * 100).toFixed(1)}%`}`,
      detail: `${bandCountsText(m.counts, ' · ')} · ${m.infraErrors} infra errors`,
    })), { placeHolder: 'Model whose band the Task Explorer shows' }))?.label;
    if (!key) return undefined;
    await service.selectModel(key);
    return key;
  },
};

export const BAND_COMMANDS: readonly CommandSpec[] = [runPolicy, resumeRun, importResults, selectBandModel];
