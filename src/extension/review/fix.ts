import * as path from 'node:path';
import * as vscode from 'vscode';
import { auditTask } from '../../core/audit/index';
import { fixFinding, type FixResult, type Recheck } from '../../core/fix/fix';
import type { FileChange } from '../../core/fix/changes';
import { loadTask } from '../../core/loader/index';
import type { Finding } from '../../core/model/finding';
import { loadRubric } from '../../core/review/rubric';
import { reviewTask } from '../../core/review/review';
import type { CommandSpec } from '../commands/command';
import type { Ctx } from '../context';
import type { AuditService } from '../diagnostics/auditService';
import { DIAGNOSTIC_SOURCE } from '../diagnostics/convert';
import { connectModel } from '../model/connect';
import { sandboxOf, SANDBOX_SOURCE } from '../sandbox/sandboxService';
import { reviewFindingOf, REVIEW_SOURCE } from './shown';

export const FIX_COMMAND = 'taskwright.fix.finding';

/**
 * How a finding is checked again: by the audit, by a validation in Docker of the changed copy (a
 * dynamic finding), or by a review of its one criterion (no cache: the text changed).
 */
function recheckFor(finding: Finding, ctx: Ctx, caller: Parameters<typeof reviewTask>[1]['caller']): Recheck {
  if (finding.source === 'validate') return (task, signal) => sandboxOf(ctx).validateDraft(task, signal);
  if (finding.source !== 'review') return (task, signal) => auditTask(task, { signal });
  const criterion = finding.rule.replace(/^review-/, '');
  return async (task, signal) => {
    const rubric = loadRubric();
    const only = { ...rubric, criteria: rubric.criteria.filter((c) => c.id === criterion) };
    ctx.log.info(`fix: reviewing ${task.id} again on ${criterion}`);
    return (await reviewTask(task, { caller, rubric: only, signal })).findings;
  };
}

/** The checked change as an edit: each file replaced whole (or created); `confirm` opens the refactor preview. */
export function fixEdit(taskDir: string, changes: readonly FileChange[], confirm: boolean): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  const meta: vscode.WorkspaceEditEntryMetadata = { label: 'Fix with Claude', needsConfirmation: confirm };
  for (const c of changes) {
    const uri = vscode.Uri.file(path.join(taskDir, ...c.file.split('/')));
    if (c.before === undefined) {
      edit.createFile(uri, { ignoreIfExists: false, contents: Buffer.from(c.after, 'utf8') }, meta);
      continue;
    }
    const lines = c.before.split('\n');
    const end = new vscode.Position(lines.length - 1, lines[lines.length - 1]?.length ?? 0);
    edit.replace(uri, new vscode.Range(new vscode.Position(0, 0), end), c.after, meta);
  }
  return edit;
}

/**
 * Taskwright: Fix with Claude — asks for the smallest change that removes one finding, checks it on
 * a scratch copy with the checker that found it, and offers it as a WorkspaceEdit in the refactor
 * preview (nothing is written unless the user accepts). Arguments: the task folder, the finding, and
 * optionally `{ model, preview }` (`preview: false` applies the checked edit without the preview).
 */
export const fixFindingCommand: CommandSpec = {
  id: FIX_COMMAND,
  needsTrust: 'Fix with Claude (sends the task\'s files to a model, and may validate the change in Docker)',
  async run(ctx: Ctx, dirArg?: unknown, findingArg?: unknown, opts?: unknown): Promise<FixResult | undefined> {
    if (typeof dirArg !== 'string' || !findingArg || typeof (findingArg as Finding).rule !== 'string') {
      void vscode.window.showInformationMessage('Taskwright: Fix with Claude works on a finding: use the light bulb on a Taskwright diagnostic.');
      return undefined;
    }
    const finding = findingArg as Finding;
    const o = (opts ?? {}) as { model?: string; preview?: boolean };
    const task = ctx.tasks.get(dirArg) ?? await loadTask(dirArg);
    const caller = await connectModel(ctx, 'Fix with Claude', o.model);
    if (!caller) return undefined;
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Taskwright: fixing ${finding.rule} in ${task.id}`, cancellable: true }, async (progress, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled')));
      try {
        return await fixFinding(task, finding, {
          caller, recheck: recheckFor(finding, ctx, caller), signal: ctl.signal,
          onProgress: (line) => { ctx.log.info(`fix: ${line}`); progress.report({ message: line }); },
        });
      } finally {
        sub.dispose();
      }
    });
    const cost = result.costUsd === null ? 'cost unknown' : `$${result.costUsd.toFixed(4)}`;
    ctx.log.info(`fix: ${task.id} ${finding.rule}: ${result.status} in ${result.rounds} round(s); ${result.usage.input} in / ${result.usage.output} out tokens, ${cost}`);
    if (result.status !== 'fixed') {
      void vscode.window.showWarningMessage(`Taskwright: no checked fix for ${finding.rule} after ${result.rounds} round(s) (see the Taskwright log).`);
      return result;
    }
    const applied = await vscode.workspace.applyEdit(fixEdit(task.dir, result.changes, o.preview !== false), { isRefactoring: true });
    ctx.log.info(`fix: ${applied ? 'applied' : 'not applied'}: ${result.changes.map((c) => c.file).join(', ')}`);
    return result;
  },
};

/** "Fix with Claude" on every Taskwright diagnostic: the audit's, the validation's and the review's. */
export class FixWithClaudeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly ctx: Ctx, private readonly audit: AuditService) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    const published = this.audit.published(document.uri);
    for (const d of context.diagnostics) {
      let hit: { taskDir: string; finding: Finding } | undefined;
      if (d.source === DIAGNOSTIC_SOURCE && published) {
        const placed = published.findings.find((p) => p.diagnostic.range.isEqual(d.range) && p.diagnostic.message === d.message);
        if (placed) hit = { taskDir: published.taskDir, finding: placed.finding };
      } else if (d.source === REVIEW_SOURCE) {
        hit = reviewFindingOf(this.ctx, document.uri, d);
      } else if (d.source === SANDBOX_SOURCE) {
        hit = sandboxOf(this.ctx).findingAt(document.uri, d);
      }
      if (!hit) continue;
      const action = new vscode.CodeAction(`Fix with Claude: ${hit.finding.rule}`, vscode.CodeActionKind.QuickFix);
      action.command = { command: FIX_COMMAND, title: action.title, arguments: [hit.taskDir, hit.finding] };
      action.diagnostics = [d];
      out.push(action);
    }
    return out;
  }
}

export function registerFixActions(ctx: Ctx, audit: AuditService): vscode.Disposable {
  return vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new FixWithClaudeActions(ctx, audit), { providedCodeActionKinds: FixWithClaudeActions.kinds });
}
