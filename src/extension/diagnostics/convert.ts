import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Finding, Severity } from '../../core/model/finding';
import type { Range } from '../../core/model/positions';
import type { Task } from '../../core/model/task';

export const DIAGNOSTIC_SOURCE = 'taskwright';

const SEVERITY: Readonly<Record<Severity, vscode.DiagnosticSeverity>> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** A task file (relative, POSIX) as a file Uri. */
export function taskFileUri(task: Task, file: string): vscode.Uri {
  return vscode.Uri.file(path.join(task.dir, ...file.split('/')));
}

export function toRange(r: Range | undefined): vscode.Range {
  return r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : new vscode.Range(0, 0, 0, 0);
}

/** A finding placed on a file: task-level findings go on the task's config file. */
export interface PlacedFinding {
  readonly uri: vscode.Uri;
  readonly finding: Finding;
  readonly diagnostic: vscode.Diagnostic;
}

/**
 * The diagnostic for one finding: `source` taskwright, `code` the rule id linked to its docs page
 * (when the page ships with the extension), related locations for cross-file findings.
 */
export function toDiagnostic(task: Task, finding: Finding, docsUri: (rule: string) => vscode.Uri | undefined): PlacedFinding {
  const file = finding.file ?? task.configFile;
  const uri = taskFileUri(task, file);
  const d = new vscode.Diagnostic(toRange(finding.range), finding.message, SEVERITY[finding.severity]);
  d.source = DIAGNOSTIC_SOURCE;
  const target = docsUri(finding.rule);
  d.code = target ? { value: finding.rule, target } : finding.rule;
  if (finding.related?.length) {
    d.relatedInformation = finding.related.map((r) => new vscode.DiagnosticRelatedInformation(
      new vscode.Location(taskFileUri(task, r.file), toRange(r.range)), r.message));
  }
  return { uri, finding, diagnostic: d };
}

/** "2 errors, 1 warning" (or "no findings"), for the explorer's status line. */
export function summarize(findings: readonly Finding[]): string {
  const n = { error: 0, warning: 0, info: 0 };
  for (const f of findings) n[f.severity]++;
  const parts = (['error', 'warning', 'info'] as const).filter((s) => n[s] > 0).map((s) => `${n[s]} ${s === 'info' ? 'info' : s + (n[s] === 1 ? '' : 's')}`);
  if (!parts.length) return 'no findings';
  const worst = findings.find((f) => f.severity === 'error') ?? findings.find((f) => f.severity === 'warning') ?? findings[0];
  return worst ? `${parts.join(', ')} — worst: ${worst.rule}` : parts.join(', ');
}
