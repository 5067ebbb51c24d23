// Runs inside the real VS Code extension host with `examples/` open and `taskwright.audit.scope` set to
// `openTasks`: opening a task file audits its task and shows the findings as diagnostics (source, code,
// docs link), the explorer shows the task's worst finding, a quick fix changes the file and the finding
// goes, closing clears, and "Audit Workspace" publishes diagnostics for every task. (The default scope,
// every task in Problems without opening a file, is status.test.ts.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { api, assertLinksRulePage, until, exampleUri, codeOf } from './helpers';

// examples/README.md documents this defect: tests/test.sh pipes pytest into tee without pipefail.
const TASK = 'dedupe-contacts';
const FILE = 'tests/test.sh';
const RULE = 'pipeline-status-masked';

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'taskwright');
}

describe('Audit diagnostics and quick fixes', () => {
  const uri = exampleUri(TASK, FILE);
  let onDisk = '';

  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  before(async () => {
    onDisk = fs.readFileSync(uri.fsPath, 'utf8');
    // These cases follow diagnostics as files open and close: Problems for open tasks only.
    await config().update('audit.scope', 'openTasks', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('audit.scope', undefined, vscode.ConfigurationTarget.Global);
    const changed = fs.readFileSync(uri.fsPath, 'utf8') !== onDisk;
    if (changed) fs.writeFileSync(uri.fsPath, onDisk); // never leave the example modified, even on failure
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(changed, false, 'the example on disk is left as it was');
  });

  it('shows the finding on the opened file with source, rule code and docs link', async () => {
    const a = await api();
    await vscode.window.showTextDocument(uri);
    await until(`${RULE} on ${FILE}`, () => ours(uri).some((d) => codeOf(d) === RULE));
    await a.diagnostics.whenIdle();
    const d = ours(uri).find((x) => codeOf(x) === RULE);
    assert.ok(d);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    const line = onDisk.split('\n').findIndex((l) => /\|\s*tee\b/.test(l));
    assert.equal(d.range.start.line, line, 'on the pytest | tee line');
    assertLinksRulePage(d, RULE);
  });

  it('shows the task\'s worst finding as its icon in the Task Explorer', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    await until('the task row shows an error icon', () => a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === TASK)?.icon === 'error');
  });

  it('offers the preferred quick fix, which changes the file and clears the finding', async () => {
    const a = await api();
    const editor = await vscode.window.showTextDocument(uri);
    const d = ours(uri).find((x) => codeOf(x) === RULE);
    assert.ok(d, 'the finding is there before the fix');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value);
    // (the command's results carry title, kind, edit and isPreferred, not the diagnostics)
    const fix = actions.find((x) => x.title === 'Add `set -o pipefail`');
    assert.ok(fix?.edit, `the rule's quick fix for ${RULE} (got: ${actions.map((x) => x.title).join('; ')})`);
    assert.equal(fix.isPreferred, true, 'marked preferred (the rule says it is safe)');
    assert.ok(actions.some((x) => x.title === `Ignore ${RULE} on this line`), 'a suppression action too');
    assert.equal(await vscode.workspace.applyEdit(fix.edit), true);
    assert.match(editor.document.getText(), /set -o pipefail/);
    assert.notEqual(editor.document.getText(), onDisk);
    // The unsaved text is audited (overlay): the finding goes without saving.
    await until(`${RULE} gone after the fix`, () => !ours(uri).some((x) => codeOf(x) === RULE));
    await a.diagnostics.whenIdle();
    assert.ok(!ours(uri).some((x) => codeOf(x) === RULE));
  });

  it('re-audits when the edit is undone, and clears the diagnostics when the file closes', async () => {
    const a = await api();
    const editor = await vscode.window.showTextDocument(uri);
    const doc = editor.document;
    // Put the text back as it is on disk (so nothing is ever saved over the example), unsaved first.
    const restore = new vscode.WorkspaceEdit();
    restore.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), onDisk);
    assert.equal(await vscode.workspace.applyEdit(restore), true);
    await until(`${RULE} back after the undo`, () => ours(uri).some((x) => codeOf(x) === RULE));
    // Text equal to the saved text is not dirty in VS Code; save only if it still is (same bytes).
    if (doc.isDirty) assert.equal(await doc.save(), true);
    assert.equal(doc.isDirty, false);
    assert.equal(fs.readFileSync(uri.fsPath, 'utf8'), onDisk);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await until('diagnostics cleared after close', () => ours(uri).length === 0);
    await a.diagnostics.whenIdle();
    assert.equal(ours(uri).length, 0);
  });

  it('Audit Workspace publishes diagnostics for every task', async () => {
    const a = await api();
    const totals = await vscode.commands.executeCommand<{ tasks: number; errors: number }>('taskwright.audit.workspace');
    assert.equal(totals.tasks, a.taskExplorer.taskIds().length);
    assert.ok(totals.errors >= 1, 'the documented defects include at least one error');
    assert.ok(ours(uri).some((d) => codeOf(d) === RULE), 'pinned diagnostics on a file that is not open');
    await vscode.commands.executeCommand('taskwright.audit.clear');
    assert.equal(ours(uri).length, 0, 'Clear drops them again (the file is not open)');
  });
});
