import * as vscode from 'vscode';
import type { Finding } from '../../core/model/finding';
import type { Task } from '../../core/model/task';
import type { Ctx } from '../context';
import type { AuditService } from './auditService';
import { DIAGNOSTIC_SOURCE, taskFileUri, toRange, type PlacedFinding } from './convert';

/** Files whose comments start with `#`, where `# taskwright: ignore[rule]` suppresses a finding. */
const HASH_COMMENT_FILE = /(\.py|\.sh|\.bash|(^|\/)Dockerfile[^/]*|\.dockerfile)$/i;

function sameDiagnostic(a: vscode.Diagnostic, b: vscode.Diagnostic): boolean {
  const code = (d: vscode.Diagnostic): string => String(typeof d.code === 'object' ? d.code.value : d.code);
  return a.range.isEqual(b.range) && a.message === b.message && code(a) === code(b);
}

/**
 * Quick fixes for Taskwright diagnostics: a finding's own fix (its text edits, possibly across files
 * of the task, as one WorkspaceEdit; preferred when the rule marks it safe), and a suppression
 * comment for the line. Offered only for the document version the audit saw, so edits never land
 * on shifted text.
 */
export class AuditCodeActions implements vscode.CodeActionProvider {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly ctx: Ctx, private readonly audit: AuditService) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const published = this.audit.published(document.uri);
    if (!published || (published.version !== undefined && published.version !== document.version)) return [];
    const task = this.ctx.tasks.get(published.taskDir);
    if (!task) return [];
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== DIAGNOSTIC_SOURCE) continue;
      const placed = published.findings.find((p) => sameDiagnostic(p.diagnostic, diagnostic));
      if (!placed) continue;
      const fix = fixAction(task, placed, diagnostic, document.uri);
      if (fix) actions.push(fix);
      const suppress = suppressAction(document, placed.finding, diagnostic);
      if (suppress) actions.push(suppress);
    }
    return actions;
  }
}

function fixAction(task: Task, placed: PlacedFinding, diagnostic: vscode.Diagnostic, here: vscode.Uri): vscode.CodeAction | undefined {
  const fix = placed.finding.fix;
  if (!fix || fix.edits.length === 0) return undefined;
  const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
  const edit = new vscode.WorkspaceEdit();
  for (const e of fix.edits) edit.replace(taskFileUri(task, e.file), toRange(e.range), e.newText);
  action.edit = edit;
  action.diagnostics = [diagnostic];
  action.isPreferred = fix.preferred === true;
  // An edit in another file is shown, not made silently: that file opens beside, at the new text.
  const elsewhere = fix.edits.find((e) => taskFileUri(task, e.file).toString() !== here.toString());
  if (elsewhere) {
    const uri = taskFileUri(task, elsewhere.file);
    const at = changedRange(elsewhere.range?.start ?? { line: 0, character: 0 }, elsewhere.newText);
    action.command = { command: SHOW_EDIT_COMMAND, title: 'Show the change', arguments: [uri.toString(), at.start.line, at.start.character, at.end.line, at.end.character] };
  }
  return action;
}

/** Where `newText` inserted at `start` lies once applied (a leading line break, the separator, left out). */
export function changedRange(start: { line: number; character: number }, newText: string): vscode.Range {
  let line = start.line;
  let character = start.character;
  let text = newText;
  if (text.startsWith('\n')) { line += 1; character = 0; text = text.slice(1); }
  const body = text.replace(/\n$/, '');
  const lines = body.split('\n');
  const endLine = line + lines.length - 1;
  const endChar = lines.length === 1 ? character + body.length : (lines[lines.length - 1] ?? '').length;
  return new vscode.Range(line, character, endLine, endChar);
}

export const SHOW_EDIT_COMMAND = 'taskwright.audit.showEdit';

/** Opens a file a quick fix changed beside the editor, the change selected (the code action's follow-up). */
export function registerShowEdit(): vscode.Disposable {
  return vscode.commands.registerCommand(SHOW_EDIT_COMMAND, async (uri: unknown, sl: unknown, sc: unknown, el: unknown, ec: unknown) => {
    if (typeof uri !== 'string' || ![sl, sc, el, ec].every((n) => typeof n === 'number')) return undefined;
    const selection = new vscode.Range(sl as number, sc as number, el as number, ec as number);
    return vscode.window.showTextDocument(vscode.Uri.parse(uri), { viewColumn: vscode.ViewColumn.Beside, selection, preview: true });
  });
}

function suppressAction(document: vscode.TextDocument, finding: Finding, diagnostic: vscode.Diagnostic): vscode.CodeAction | undefined {
  if (!finding.range || !finding.file || !HASH_COMMENT_FILE.test(finding.file)) return undefined;
  const line = finding.range.start.line;
  if (line >= document.lineCount) return undefined;
  const text = document.lineAt(line).text;
  const indent = text.slice(0, text.length - text.trimStart().length);
  const action = new vscode.CodeAction(`Ignore ${finding.rule} on this line`, vscode.CodeActionKind.QuickFix);
  action.edit = new vscode.WorkspaceEdit();
  // The comment goes on the line above: a trailing `#` would become part of a Dockerfile instruction.
  action.edit.insert(document.uri, new vscode.Position(line, 0), `${indent}# taskwright: ignore[${finding.rule}]\n`);
  action.diagnostics = [diagnostic];
  return action;
}

export function registerCodeActions(ctx: Ctx, audit: AuditService): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new AuditCodeActions(ctx, audit), {
      providedCodeActionKinds: AuditCodeActions.providedCodeActionKinds,
    }),
    registerShowEdit(),
  );
}

