import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';

/** The files that get "Validate | Run oracle | Run nop": task configs and the tests that decide the reward. */
export const CODELENS_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: '**/task.toml' },
  { scheme: 'file', pattern: '**/task.yaml' },
  { scheme: 'file', pattern: '**/tests/test.sh' },
  { scheme: 'file', pattern: '**/test_*.py' },
];

/** The command every lens runs: a Testing-view profile on one task, so results land in Test Results. */
export const RUN_PROFILE_COMMAND = 'taskwright.testing.runProfile';

const LENSES = [
  { title: 'Validate', profile: 'validate', tooltip: 'Validate this task in Docker (build, nop, oracle, agreement, reward isolation…)' },
  { title: 'Run oracle', profile: 'oracle', tooltip: 'One trial of the reference solution' },
  { title: 'Run nop', profile: 'nop', tooltip: 'One trial of an agent that does nothing (must fail)' },
] as const;

/**
 * CodeLens on a task's config and test files (setting `taskwright.codeLens`). Lenses are shown only
 * for files of a task in the index, at the top of the file.
 */
export class TaskCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly ctx: Ctx) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.ctx.config.get('codeLens', doc.uri)) return [];
    const task = this.ctx.tasks.containing(doc.uri.fsPath);
    if (!task) return [];
    const rel = path.relative(task.dir, doc.uri.fsPath);
    // A `test_*.py` outside the task's tests (say, in its environment) is not the verifier's.
    const base = path.basename(rel);
    if (base.startsWith('test_') && base.endsWith('.py') && !rel.startsWith(`${task.verifier.testsDir}${path.sep}`)) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return LENSES.map((l) => new vscode.CodeLens(top, { title: l.title, tooltip: l.tooltip, command: RUN_PROFILE_COMMAND, arguments: [task.dir, l.profile] }));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
