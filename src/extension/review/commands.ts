import * as path from 'node:path';
import * as vscode from 'vscode';
import { worstSeverity } from '../../core/model/finding';
import { loadRubric } from '../../core/review/rubric';
import { reviewTask, type TaskReview } from '../../core/review/review';
import type { CommandSpec } from '../commands/command';
import { pickTask } from '../commands/taskArg';
import type { Ctx } from '../context';
import { toDiagnostic } from '../diagnostics/convert';
import { connectModel } from '../model/connect';
import { REVIEW_SOURCE, shownReviewFindings } from './shown';

export { REVIEW_SOURCE } from './shown';

const collections = new WeakMap<Ctx, vscode.DiagnosticCollection>();

function reviewDiagnostics(ctx: Ctx): vscode.DiagnosticCollection {
  let c = collections.get(ctx);
  if (!c) { c = ctx.own(vscode.languages.createDiagnosticCollection(REVIEW_SOURCE)); collections.set(ctx, c); }
  return c;
}

/**
 * Taskwright: Review Task with Claude — the rubric review of one task; its cited findings appear as
 * diagnostics (source `taskwright-review`, tagged "model"), unsupported claims are counted in the log.
 * Argument forms: a task (explorer node, Uri, folder path) and optionally `{ model, rubric }`.
 */
export const reviewTaskCommand: CommandSpec = {
  id: 'taskwright.review.task',
  needsTrust: 'Reviewing a task with Claude (sends its files to a model)',
  async run(ctx: Ctx, arg?: unknown, opts?: unknown) {
    const task = await pickTask(ctx, arg, 'Task to review with Claude');
    if (!task) return undefined;
    const o = (opts ?? {}) as { model?: string; rubric?: string };
    const caller = await connectModel(ctx, 'reviewing tasks', o.model);
    if (!caller) return undefined;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(task.dir));
    const cacheDir = path.join(folder?.uri.fsPath ?? task.dir, '.taskwright', 'review-cache');
    ctx.status.set(task.dir, 'review', { level: 'running', summary: `reviewing with ${caller.model}…` });
    const review: TaskReview = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Taskwright: reviewing ${task.id} with ${caller.model}`, cancellable: true }, async (_p, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled')));
      try {
        return await reviewTask(task, { caller, rubric: loadRubric(o.rubric), cacheDir, signal: ctl.signal });
      } finally {
        sub.dispose();
      }
    }).then((r) => r, (e: unknown) => { ctx.status.set(task.dir, 'review', undefined); throw e; });
    // The Task Explorer shows the review beside the audit and the validation (its icon and tooltip).
    ctx.status.set(task.dir, 'review', {
      level: worstSeverity(review.findings) ?? 'ok',
      summary: `${review.findings.length} finding(s) by ${review.model}${review.unsupported ? `, ${review.unsupported} unsupported claim(s) dropped` : ''}`,
    });
    const byUri = new Map<string, { uri: vscode.Uri; list: vscode.Diagnostic[] }>();
    const list = shownReviewFindings(ctx, task.dir);
    for (const f of review.findings) {
      const placed = toDiagnostic(task, f, () => undefined);
      placed.diagnostic.source = REVIEW_SOURCE;
      placed.diagnostic.message = `[model ${review.model}] ${f.message}`;
      const key = placed.uri.toString();
      list.push({ uri: key, range: placed.diagnostic.range, message: placed.diagnostic.message, taskDir: task.dir, finding: f });
      const entry = byUri.get(key) ?? { uri: placed.uri, list: [] };
      entry.list.push(placed.diagnostic);
      byUri.set(key, entry);
    }
    const diags = reviewDiagnostics(ctx);
    for (const file of task.files) diags.delete(vscode.Uri.file(path.join(task.dir, ...file.split('/'))));
    for (const { uri, list } of byUri.values()) diags.set(uri, list);
    const cost = review.costUsd === null ? 'cost unknown' : `$${review.costUsd.toFixed(4)}`;
    ctx.log.info(`review: ${task.id} with ${review.model}${review.cached ? ' (cached)' : ''}: ${review.findings.length} finding(s), ${review.unsupported} unsupported claim(s) dropped; ${review.usage.input} in / ${review.usage.output} out tokens, ${cost}`);
    void vscode.window.showInformationMessage(`Taskwright: ${task.id} reviewed — ${review.findings.length} finding(s)${review.unsupported ? `, ${review.unsupported} unsupported claim(s) dropped` : ''}.`);
    return review;
  },
};

export const REVIEW_COMMANDS: readonly CommandSpec[] = [reviewTaskCommand];
