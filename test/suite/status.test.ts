// Runs inside the real VS Code extension host with `examples/` open and every editor closed: the
// background audit that colours the Task Explorer publishes every task's findings to Problems (no file
// opened), honours `taskwright.audit.severity` (`info` as Information, `off` gone), and the status bar
// item counts exactly what Problems holds of Taskwright's findings.
import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, codeOf, exampleUri, until, workspaceDir } from './helpers';

const TASK = 'dedupe-contacts';
const FILE = 'tests/test.sh';
const RULE = 'pipeline-status-masked';

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'taskwright');
}

/** Taskwright's diagnostics in Problems, by severity, as the status bar should count them. */
function problemCounts(): { errors: number; warnings: number; infos: number } {
  const n = { errors: 0, warnings: 0, infos: 0 };
  for (const [, list] of vscode.languages.getDiagnostics()) {
    for (const d of list) {
      if (!d.source?.startsWith('taskwright')) continue;
      if (d.severity === vscode.DiagnosticSeverity.Error) n.errors++;
      else if (d.severity === vscode.DiagnosticSeverity.Warning) n.warnings++;
      else n.infos++;
    }
  }
  return n;
}

describe('Status you can trust', () => {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  const uri = exampleUri(TASK, FILE);

  before(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(config().get('audit.scope'), 'workspace', 'the default scope is every task');
  });

  after(async () => {
    await config().update('audit.severity', undefined, vscode.ConfigurationTarget.Global);
  });

  it('publishes every task\'s findings to Problems without opening a file', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath.startsWith(path.join(workspaceDir(), 'tasks'))
      && vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === d.uri.fsPath))), 'no task file is open');
    await until(`${RULE} on the closed ${FILE}`, () => ours(uri).some((d) => codeOf(d) === RULE));
    // Every task whose icon says error or warning has a diagnostic of that severity under its folder.
    for (const id of a.taskExplorer.taskIds()) {
      const dir = path.join(workspaceDir(), 'tasks', id);
      const audit = a.taskExplorer.status(dir).find((s) => s.source === 'audit');
      if (!audit || audit.level === 'ok') continue;
      const want = audit.level === 'error' ? vscode.DiagnosticSeverity.Error : audit.level === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
      const under = vscode.languages.getDiagnostics().filter(([u]) => u.fsPath.startsWith(dir + path.sep)).flatMap(([, l]) => l.filter((d) => d.source === 'taskwright'));
      assert.ok(under.some((d) => d.severity === want), `${id}: icon ${audit.level} (${audit.summary}) but Problems has ${under.length} finding(s) of other severities`);
    }
  });

  it('filters the Task Explorer by health (the icon), and clears', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    const health = (id: string): string | undefined => a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === id)?.icon;
    const icons = new Map(a.taskExplorer.taskIds().map((id) => [id, health(id)]));
    const errors = [...icons].filter(([, icon]) => icon === 'error').map(([id]) => id).sort();
    assert.ok(errors.includes(TASK), `${TASK} has an error icon`);
    await vscode.commands.executeCommand('taskwright.tasks.filter', { health: ['error'] });
    await until('only tasks with an error icon', () => JSON.stringify(a.taskExplorer.visibleTaskIds()) === JSON.stringify(errors));
    await vscode.commands.executeCommand('taskwright.tasks.clearFilter');
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), a.taskExplorer.taskIds());
  });

  it('honours taskwright.audit.severity: info is Information, off removes the finding', async () => {
    const a = await api();
    await config().update('audit.severity', { [RULE]: 'info' }, vscode.ConfigurationTarget.Global);
    await until(`${RULE} as Information`, () => ours(uri).some((d) => codeOf(d) === RULE && d.severity === vscode.DiagnosticSeverity.Information));
    await a.diagnostics.whenIdle();
    assert.ok(!ours(uri).some((d) => codeOf(d) === RULE && d.severity !== vscode.DiagnosticSeverity.Information), 'never shown as a warning');
    await config().update('audit.severity', { [RULE]: 'off' }, vscode.ConfigurationTarget.Global);
    await until(`${RULE} gone when off`, () => !ours(uri).some((d) => codeOf(d) === RULE));
    await config().update('audit.severity', undefined, vscode.ConfigurationTarget.Global);
    await until(`${RULE} back as an error`, () => ours(uri).some((d) => codeOf(d) === RULE && d.severity === vscode.DiagnosticSeverity.Error));
  });

  it('the status bar counts what Problems holds and opens the Runs view', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    const want = problemCounts();
    assert.ok(want.errors >= 1, 'the examples hold at least one error');
    // Compared with Problems as it is at each look: a late re-audit may change both, the bar follows.
    let now = want;
    await until('status bar counts equal to Problems', () => {
      const s = a.statusBar.current();
      now = problemCounts();
      return s.errors === now.errors && s.warnings === now.warnings && s.infos === now.infos;
    }, 20_000, () => `bar ${JSON.stringify(a.statusBar.current())} vs Problems ${JSON.stringify(problemCounts())}`);
    const s = a.statusBar.current();
    assert.match(s.text, new RegExp(`^\\$\\(beaker\\) Taskwright \\$\\(error\\) ${now.errors} \\$\\(warning\\) ${now.warnings} \\$\\(info\\) ${now.infos}`));
    assert.equal(s.running, 0);
    assert.doesNotMatch(s.text, /running/);
    // Its click target is the Runs view.
    assert.equal(a.statusBar.command(), 'taskwright.runs.focus');
    assert.ok((await vscode.commands.getCommands(true)).includes('taskwright.runs.focus'), 'the Runs view is contributed');
  });
});
