import * as path from 'node:path';
import * as vscode from 'vscode';
import { dockerGates } from '../../core/generate/gates';
import { MetaAgent } from '../../core/generate/metaAgent';
import { generateTasks } from '../../core/generate/pipeline';
import { renderReportText, type YieldReport } from '../../core/generate/report';
import { DEFAULT_GEN_DIFFICULTY, GEN_DIFFICULTIES, type GenDifficulty, type GenerateRequest } from '../../core/generate/types';
import type { TaskFormat } from '../../core/model/task';
import { defaultResultsDir } from '../../core/results/store';
import { DockerodeRuntime } from '../../core/sandbox/dockerRuntime';
import { reapOrphans } from '../../core/sandbox/reaper';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { connectModel } from '../model/connect';
import { agentFromSpec, anthropicCredentials, setApiKeyCommand } from '../model/keys';
import { reportDocumentsOf } from './reportDocument';

const LAST_REQUEST_KEY = 'taskwright.generate.last';
const LAST_REPORT_KEY = 'taskwright.generate.lastReport';

/** Arguments that skip the questions (tests, keybindings). */
export type GenerateArgs = Omit<GenerateRequest, 'batch'> & { readonly batch?: boolean; readonly runs?: number };

function isGenerateArgs(a: unknown): a is GenerateArgs {
  if (typeof a !== 'object' || a === null) return false;
  const o = a as Record<string, unknown>;
  return typeof o.topic === 'string' && typeof o.outDir === 'string' && typeof o.count === 'number' && (o.format === 'harbor' || o.format === 'tb1');
}

const step = (n: number): string => `Generate Tasks (${n}/6)`;
const wholeNumber = (v: string): string | undefined => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'a whole number ≥ 1');

async function askOutDir(ctx: Ctx): Promise<string | undefined> {
  const dirs = new Set<string>(ctx.tasks.roots());
  for (const t of ctx.tasks.all()) dirs.add(path.dirname(t.dir));
  const browse = { label: '$(folder-opened) Browse…', dir: undefined as string | undefined };
  const picked = await vscode.window.showQuickPick([
    ...[...dirs].sort().map((dir) => ({ label: vscode.workspace.asRelativePath(dir, true), description: dir, dir })), browse,
  ], { title: step(5), placeHolder: 'Folder that receives the accepted tasks', ignoreFocusOut: true });
  if (!picked) return undefined;
  if (picked.dir) return picked.dir;
  const chosen = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Generate Here' });
  return chosen?.[0]?.fsPath;
}

/** The quick-input flow: topic, count, format, difficulty, output folder, model and rounds. */
async function askRequest(ctx: Ctx): Promise<GenerateArgs | undefined> {
  const last = ctx.extension.workspaceState.get<Partial<GenerateArgs>>(LAST_REQUEST_KEY) ?? {};
  const topic = await vscode.window.showInputBox({ title: step(1), prompt: 'Topic or domain of the tasks', value: last.topic, placeHolder: 'e.g. log analysis with awk and Python', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'a topic is required') });
  if (!topic) return undefined;
  const count = await vscode.window.showInputBox({ title: step(2), prompt: 'How many tasks', value: String(last.count ?? 3), ignoreFocusOut: true, validateInput: wholeNumber });
  if (!count) return undefined;
  const format = await vscode.window.showQuickPick([
    { label: 'Harbor / Terminal-Bench 2', description: 'task.toml', format: 'harbor' as TaskFormat },
    { label: 'Terminal-Bench 1', description: 'task.yaml', format: 'tb1' as TaskFormat },
  ], { title: step(3), placeHolder: 'Task format', ignoreFocusOut: true });
  if (!format) return undefined;
  // A single-choice pick starts on its first item: the last choice, else the CLI's default, goes first.
  const preset = last.difficulty ?? DEFAULT_GEN_DIFFICULTY;
  const difficulty = await vscode.window.showQuickPick(GEN_DIFFICULTIES.map((label) => ({
    label, description: label === last.difficulty ? 'last used' : label === DEFAULT_GEN_DIFFICULTY ? 'default (as taskwright generate)' : undefined,
  })).sort((a, b) => Number(b.label === preset) - Number(a.label === preset)), { title: step(4), placeHolder: 'Target difficulty', ignoreFocusOut: true });
  if (!difficulty) return undefined;
  const outDir = await askOutDir(ctx);
  if (!outDir) return undefined;
  const modelAndRounds = await vscode.window.showInputBox({ title: step(6), prompt: 'Model and repair rounds per task (MODEL ROUNDS; "default" picks the newest active Sonnet the API lists)', value: `${last.model ?? 'default'} ${last.rounds ?? 3}`, ignoreFocusOut: true, validateInput: (v) => (/^\S+\s+[1-9]\d*$/.test(v.trim()) ? undefined : 'e.g. default 3') });
  if (!modelAndRounds) return undefined;
  const [model, rounds] = modelAndRounds.trim().split(/\s+/) as [string, string];
  const args: GenerateArgs = { topic: topic.trim(), count: Number(count), format: format.format, difficulty: difficulty.label as GenDifficulty, outDir, model, rounds: Number(rounds) };
  await ctx.extension.workspaceState.update(LAST_REQUEST_KEY, { ...args, outDir: undefined });
  return args;
}

/** The yield report as a read-only document (its own scheme), the text report then its JSON. */
export async function showGenerationReport(ctx: Ctx, report: YieldReport): Promise<vscode.TextEditor> {
  const body = `${renderReportText(report)}\n\n\`\`\`json\n${JSON.stringify(report, null, 2)}\n\`\`\`\n`;
  const uri = reportDocumentsOf(ctx).put(`generate-${new Date().toISOString().replace(/[:.]/g, '-')}`, body);
  return vscode.window.showTextDocument(uri, { preview: true });
}

/**
 * Taskwright: Generate Tasks… — the meta-agent drafts tasks, each is audited, built and validated in
 * Docker and repaired from structured feedback; accepted tasks land in the chosen folder (the Task
 * Explorer's file watcher shows them), and the yield report opens at the end.
 */
export const generateTasksCommand: CommandSpec = {
  id: 'taskwright.generate.tasks',
  needsTrust: 'Generating tasks builds and runs them in Docker',
  async run(ctx: Ctx, arg?: unknown) {
    // No key, no questions: asking six of them and then refusing for want of a key wastes the user's time.
    if (!isGenerateArgs(arg) && !(await anthropicCredentials(ctx, 'generating tasks'))) return undefined;
    const req = isGenerateArgs(arg) ? arg : await askRequest(ctx);
    if (!req) return undefined;
    let caller;
    try {
      caller = await connectModel(ctx, 'generating tasks', req.model);
    } catch (e) {
      // A model that does not exist or a refused key: one message, nothing started.
      void vscode.window.showErrorMessage(`Taskwright: ${errorMessage(e)}`);
      ctx.log.error(`generate: ${errorMessage(e)}`);
      return undefined;
    }
    if (!caller) return undefined;
    // The calibration policy reads its key where every path does (model/keys.ts).
    const policy = req.calibrate ? await agentFromSpec(ctx, req.calibrate) : undefined;
    const agent = new MetaAgent({ caller, format: req.format });
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(req.outDir));
    const resultsDir = defaultResultsDir(folder?.uri.fsPath ?? req.outDir);
    const report = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: `Taskwright: generating ${req.count} task(s)`, cancellable: true,
    }, async (progress, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled')));
      try {
        const runtime = new DockerodeRuntime();
        await runtime.ping(ctl.signal);
        await reapOrphans(runtime);
        let lastStage = '';
        return await generateTasks({ ...req, model: caller.model, batch: req.batch ?? false }, {
          agent,
          gates: dockerGates({ runtime, resultsDir, runs: req.runs ?? 2, ...(policy ? { policy } : {}) }),
          signal: ctl.signal,
          relativeTo: folder?.uri.fsPath,
          onProgress: (e) => {
            // A new stage is a new line in the log; streamed tokens only update the notification.
            const stage = `${e.slot}/${e.round}/${e.stage}`;
            if (stage !== lastStage) ctx.log.info(`generate: ${e.message}`);
            lastStage = stage;
            progress.report({ message: e.message, ...(e.stage === 'accepted' || e.stage === 'rejected' ? { increment: 100 / req.count } : {}) });
          },
        });
      } finally {
        sub.dispose();
      }
    });
    const text = renderReportText(report);
    ctx.log.info(`generate: yield report\n${text}`);
    await ctx.extension.workspaceState.update(LAST_REPORT_KEY, report);
    const show = 'Show Report';
    const c = report.counts;
    void vscode.window.showInformationMessage(
      `Taskwright: ${c.accepted} of ${c.requested} task(s) accepted (${c.rejected} rejected, ${c.errors} errors${c.cancelled ? `, ${c.cancelled} cancelled` : ''}).`, show,
    ).then(async (choice) => {
      if (choice === show) await showGenerationReport(ctx, report);
    });
    return report;
  },
};

function isYieldReport(v: unknown): v is YieldReport {
  return typeof v === 'object' && v !== null && (v as { version?: unknown }).version === 1 && Array.isArray((v as { tasks?: unknown }).tasks)
    && typeof (v as { counts?: unknown }).counts === 'object' && typeof (v as { request?: unknown }).request === 'object';
}

/** Taskwright: Show Last Generation Report — the workspace's last yield report (or the one passed), read-only. */
export const showLastReport: CommandSpec = {
  id: 'taskwright.generate.showReport',
  async run(ctx, arg?: unknown) {
    const report = isYieldReport(arg) ? arg : ctx.extension.workspaceState.get<unknown>(LAST_REPORT_KEY);
    if (!isYieldReport(report)) {
      void vscode.window.showInformationMessage('Taskwright: no generation report yet in this workspace; run "Generate Tasks…".');
      return undefined;
    }
    return (await showGenerationReport(ctx, report)).document.uri;
  },
};

export const GENERATE_COMMANDS: readonly CommandSpec[] = [generateTasksCommand, showLastReport, setApiKeyCommand];
