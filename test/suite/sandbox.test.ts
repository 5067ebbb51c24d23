// Runs inside the real VS Code extension host with `examples/` open and the real Docker Engine:
// "Validate Task" on fix-service-config (whose tests pass without any solution, see
// examples/README.md) builds the task, runs it in fresh containers and reports the dynamic
// `nop-passes` finding as a diagnostic on the file that decides the reward.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, assertLinksRulePage, workspaceDir, codeOf, listWorkspaceRuns, oneRunPerAgent, until, workspaceRunsDir } from './helpers';

/** The diagnostic source of dynamic (sandbox) findings, as documented for users. */
const SANDBOX_SOURCE = 'taskwright sandbox';
const TASK = 'fix-service-config';

const runsDir = workspaceRunsDir;
const listRuns = listWorkspaceRuns;

function sandboxDiagnostics(): [vscode.Uri, vscode.Diagnostic[]][] {
  return vscode.languages.getDiagnostics()
    .map(([uri, list]): [vscode.Uri, vscode.Diagnostic[]] => [uri, list.filter((d) => d.source === SANDBOX_SOURCE)])
    .filter(([, list]) => list.length > 0);
}

describe('Sandbox: Validate Task', () => {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  const runs = oneRunPerAgent();

  it('reports nop-passes on the task\'s tests/test.sh when a null agent earns reward', async function () {
    this.timeout(10 * 60_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    assert.ok(fs.existsSync(path.join(dir, 'task.toml')), `${dir} is not the Harbor example task`);
    assert.equal(config().get('sandbox.runs'), 1);

    const validating = vscode.commands.executeCommand<{ verdict: string; findings: { rule: string }[]; checks: { name: string; status: string; runs: number }[] } | undefined>('taskwright.sandbox.validate', dir);
    // While it runs, the status bar counts its trials.
    let sawRunning = 0;
    let settled = false;
    void Promise.resolve(validating).finally(() => { settled = true; });
    await until('the status bar counts running trials', () => {
      sawRunning = Math.max(sawRunning, a.statusBar.current().running);
      return sawRunning > 0 || settled;
    }, 5 * 60_000);
    assert.ok(sawRunning > 0, 'the status bar never showed a running trial');
    assert.match(a.statusBar.current().text, /\$\(sync~spin\) \d+ running/);
    const v = await validating;
    assert.equal(a.statusBar.current().running, 0, 'nothing counted as running after the validation');
    assert.ok(v, 'Validate Task returned nothing');
    assert.ok(v.findings.some((f) => f.rule === 'nop-passes'), `findings: ${v.findings.map((f) => f.rule).join(', ') || 'none'}`);
    assert.equal(v.verdict, 'misaligned');
    const nop = v.checks.find((c) => c.name === 'nop');
    assert.equal(nop?.status, 'fail');
    assert.equal(nop?.runs, 1, 'the runs setting (1) was not honoured');

    // Harbor's verifier entry point, tests/test.sh, is what hands out the reward: the finding sits there.
    const testSh = vscode.Uri.file(path.join(dir, 'tests', 'test.sh'));
    const onFile = vscode.languages.getDiagnostics(testSh).filter((d) => d.source === SANDBOX_SOURCE);
    const finding = onFile.find((d) => codeOf(d) === 'nop-passes');
    assert.ok(finding, `no ${SANDBOX_SOURCE} nop-passes diagnostic on tests/test.sh (sandbox diagnostics: ${JSON.stringify(sandboxDiagnostics().map(([u, l]) => [vscode.workspace.asRelativePath(u), l.map(codeOf)]))})`);
    assert.equal(finding.severity, vscode.DiagnosticSeverity.Error);
    assert.match(finding.message, /without a solution/);
    // The light bulb offers Fix with Claude on the dynamic finding too; its fix is checked by validating again.
    await vscode.window.showTextDocument(testSh); // code actions are asked of an open document
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', testSh, finding.range, vscode.CodeActionKind.QuickFix.value);
    const fixAction = actions.find((x) => x.title === 'Fix with Claude: nop-passes');
    assert.ok(fixAction?.command, `Fix with Claude on the sandbox diagnostic (got: ${actions.map((x) => x.title).join('; ')})`);
    const [fixDir, fixFinding] = fixAction.command.arguments as [string, { rule: string; source: string; file: string }];
    assert.deepEqual([fixDir, fixFinding.rule, fixFinding.source, fixFinding.file], [dir, 'nop-passes', 'validate', 'tests/test.sh']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Dynamic findings stay on this task's files.
    for (const [uri] of sandboxDiagnostics()) assert.ok(uri.fsPath.startsWith(dir + path.sep), `sandbox diagnostic outside the task: ${uri.fsPath}`);

    // The task's row shows the validation's verdict.
    const status = a.taskExplorer.status(dir).find((s) => s.source === 'validation');
    assert.equal(status?.level, 'error');
    assert.match(status?.summary ?? '', /misaligned/);

    // The finding links its rule's page, like the audit's.
    assertLinksRulePage(finding, 'nop-passes');

    // Every trial container was force-removed.
    const created = listRuns().filter((r) => !runs.runsBefore.has(r));
    assert.equal(created.length, 1, `expected one new validation run folder, got ${created.join(', ') || 'none'}`);
    // The verdicts are kept beside the trials, so a reload shows them again.
    const stored = JSON.parse(fs.readFileSync(path.join(runsDir(), created[0]!, 'validation.json'), 'utf8')) as { tasks: { id: string; verdict: string; findings: { rule: string }[] }[] };
    assert.equal(stored.tasks[0]?.verdict, 'misaligned');
    assert.ok(stored.tasks[0]?.findings.some((f) => f.rule === 'nop-passes'));
    const left = execFileSync('docker', ['ps', '-aq', '--filter', `label=taskwright.run=${created[0]}`], { encoding: 'utf8' }).trim();
    assert.equal(left, '', `containers left behind by run ${created[0]}`);
  });
});
