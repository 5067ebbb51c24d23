import type * as vscode from 'vscode';
import type { Finding } from '../../core/model/finding';
import type { Ctx } from '../context';

/** Review diagnostics are apart from the audit's: their own source, and "model" in the message so the hover says who claims it. */
export const REVIEW_SOURCE = 'taskwright-review';

interface ShownReviewFinding { readonly uri: string; readonly range: vscode.Range; readonly message: string; readonly taskDir: string; readonly finding: Finding }
/** The findings behind the review diagnostics on show, so a code action can hand one to "Fix with Claude". */
const shown = new WeakMap<Ctx, ShownReviewFinding[]>();

/** The list of shown review findings with the given task's dropped (it is being reviewed again); push onto it. */
export function shownReviewFindings(ctx: Ctx, taskDir: string): ShownReviewFinding[] {
  const list = (shown.get(ctx) ?? []).filter((x) => x.taskDir !== taskDir);
  shown.set(ctx, list);
  return list;
}

/** The review finding behind a diagnostic the editor hands back (a copy: matched by file, range and message). */
export function reviewFindingOf(ctx: Ctx, uri: vscode.Uri, d: vscode.Diagnostic): { taskDir: string; finding: Finding } | undefined {
  const hit = (shown.get(ctx) ?? []).find((x) => x.uri === uri.toString() && x.range.isEqual(d.range) && x.message === d.message);
  return hit ? { taskDir: hit.taskDir, finding: hit.finding } : undefined;
}
