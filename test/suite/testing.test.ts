// Runs inside the real VS Code extension host with `examples/` open and the real Docker Engine:
// tasks as tests. The Testing view's tree follows the task index (dataset → task → checks); the
// Validate profile on fix-service-config (whose tests pass without a solution, see examples/README.md)
// reports each check with its state, the `nop` check failed at tests/test.sh; after the store is
// re-read as a reload does, the same states come back from `validation.json`. A cancelled run leaves
// no container behind. The CodeLens on the task's files offers Validate, Run oracle and Run nop.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, exampleUri, listWorkspaceRuns, oneRunPerAgent, until, workspaceDir, workspaceRunsDir } from './helpers';

const TASK = 'fix-service-config';
const runsDir = workspaceRunsDir;
const listRuns = listWorkspaceRuns;
const containersOf = (run: string): string => execFileSync('docker', ['ps', '-aq', '--filter', `label=taskwright.run=${run}`], { encoding: 'utf8' }).trim();

describe('Testing view: tasks as tests', () => {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  oneRunPerAgent();

  it('lists datasets and tasks from the task index, with the four run profiles', async () => {
    const a = await api();
    const tree = a.testing.tree();
    const tasks = tree.flatMap((d) => d.children.map((t) => t.label)).sort();
    assert.deepEqual(tasks, a.taskExplorer.taskIds(), 'one test item per task of the explorer');
    assert.ok(tree.some((d) => d.label === 'tasks'), `datasets: ${tree.map((d) => d.label).join(', ')}`);
    assert.deepEqual(a.testing.profiles().map((p) => p.label), ['Validate', 'Oracle', 'Nop', 'Run Policy…']);
    assert.deepEqual(a.testing.profiles().filter((p) => p.isDefault).map((p) => p.label), ['Validate']);
  });

  it('offers Validate | Run oracle | Run nop as CodeLens on a task\'s config and tests', async () => {
    await api();
    const lensesOf = async (file: string): Promise<vscode.CodeLens[]> => {
      // The lens command reads the open model: the file is opened first, as a user's editor would be.
      const doc = await vscode.workspace.openTextDocument(exampleUri(TASK, file));
      return vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    };
    for (const file of ['task.toml', 'tests/test.sh']) {
      const lenses = await lensesOf(file);
      const ours = lenses.filter((l) => l.command?.command === 'taskwright.testing.runProfile');
      assert.deepEqual(ours.map((l) => l.command?.title), ['Validate', 'Run oracle', 'Run nop'], `lenses on ${file}`);
      assert.deepEqual(ours.map((l) => l.command?.arguments?.[1]), ['validate', 'oracle', 'nop']);
      assert.equal(ours[0]?.command?.arguments?.[0], path.join(workspaceDir(), 'tasks', TASK));
    }
    const lensesOff = async (): Promise<number> => (await lensesOf('task.toml'))
      .filter((l) => l.command?.command === 'taskwright.testing.runProfile').length;
    await config().update('codeLens', false, vscode.ConfigurationTarget.Global);
    try {
      assert.equal(await lensesOff(), 0, 'taskwright.codeLens = false hides the lenses');
    } finally {
      await config().update('codeLens', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('runs Validate through the controller, reports each check, and shows it again from the store', async function () {
    this.timeout(10 * 60_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const before = new Set(listRuns());
    await a.testing.run(dir, 'validate');

    const nop = a.testing.state(`${dir}#nop`);
    assert.equal(nop?.state, 'failed', `nop: ${JSON.stringify(nop)}`);
    assert.equal(nop?.location?.file, `tasks/${TASK}/tests/test.sh`, 'the nop-passes message sits on the file that hands out the reward');
    assert.match(nop?.message ?? '', /without a solution/);
    assert.ok((nop?.durationMs ?? 0) > 0, 'the nop check has its trials\' duration');
    const oracle = a.testing.state(`${dir}#oracle`);
    assert.equal(oracle?.state, 'passed', `oracle: ${JSON.stringify(oracle)}`);
    assert.equal(a.testing.state(`${dir}#build`)?.state, 'passed');
    assert.equal(a.testing.state(`task:${dir}`)?.state, 'failed');
    assert.match(a.testing.state(`task:${dir}`)?.message ?? '', /misaligned/);
    // The check items exist under the task in the tree.
    const taskNode = a.testing.tree().flatMap((d) => d.children).find((t) => t.label === TASK);
    assert.ok(taskNode?.children.some((c) => c.id === `${dir}#reward-isolation`), 'the task item has its checks');

    const created = listRuns().filter((r) => !before.has(r));
    assert.equal(created.length, 1, `one validation run: ${created.join(', ')}`);
    assert.ok(fs.existsSync(path.join(runsDir(), created[0]!, 'validation.json')));
    assert.equal(containersOf(created[0]!), '', 'no container left by the run');

    // A reload: the controller forgets, re-reads the store and shows the same verdicts (no durations: the store keeps verdicts).
    const shown = a.testing.restore(true);
    assert.ok(shown >= 1, `restored ${shown} task(s)`);
    assert.equal(a.testing.state(`${dir}#nop`)?.state, 'failed');
    assert.equal(a.testing.state(`${dir}#nop`)?.location?.file, `tasks/${TASK}/tests/test.sh`);
    assert.equal(a.testing.state(`${dir}#oracle`)?.state, 'passed');
    assert.equal(a.testing.state(`task:${dir}`)?.state, 'failed');
    // Nothing newer in the store: a second read changes nothing.
    assert.equal(a.testing.restore(), 0);
  });

  it('runs the Oracle and Nop profiles as one trial each, with their output in the run', async function () {
    this.timeout(5 * 60_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    await a.testing.run(dir, 'oracle');
    const oracle = a.testing.state(`${dir}#oracle`);
    assert.equal(oracle?.state, 'passed', `oracle: ${JSON.stringify(oracle)}`);
    assert.ok((oracle?.durationMs ?? 0) > 0, 'the trial\'s duration is reported');
    await a.testing.run(dir, 'nop');
    // This task's tests pass with no solution: the nop check fails, at the verifier's entry script.
    const nop = a.testing.state(`${dir}#nop`);
    assert.equal(nop?.state, 'failed', `nop: ${JSON.stringify(nop)}`);
    assert.equal(nop?.location?.file, `tasks/${TASK}/tests/test.sh`);
    assert.match(nop?.message ?? '', /does nothing passed/);
  });

  it('validates the task whose file is saved when taskwright.testing.runOnSave is on', async function () {
    this.timeout(10 * 60_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const instruction = exampleUri(TASK, 'instruction.md');
    const original = fs.readFileSync(instruction.fsPath, 'utf8');
    const before = new Set(listRuns());
    const seqBefore = a.testing.state(`task:${dir}`)?.seq ?? 0;
    await config().update('testing.runOnSave', true, vscode.ConfigurationTarget.Global);
    try {
      const doc = await vscode.workspace.openTextDocument(instruction);
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), '\n'));
      await doc.save();
      await until('a validation run started by the save', () => listRuns().some((r) => !before.has(r)), 60_000);
      const run = listRuns().find((r) => !before.has(r))!;
      await until('its verdicts stored and shown', () => fs.existsSync(path.join(runsDir(), run, 'validation.json'))
        && a.testing.state(`task:${dir}`)?.state === 'failed' && (a.testing.state(`task:${dir}`)?.seq ?? 0) > seqBefore, 8 * 60_000);
      assert.equal(a.testing.state(`${dir}#nop`)?.state, 'failed');
    } finally {
      await config().update('testing.runOnSave', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      fs.writeFileSync(instruction.fsPath, original);
    }
    // Off again: a save runs nothing.
    const after = new Set(listRuns());
    const doc = await vscode.workspace.openTextDocument(instruction);
    await doc.save();
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(listRuns().filter((r) => !after.has(r)), [], 'no run once the setting is off');
  });

  it('a cancelled run stops and leaves no container', async function () {
    this.timeout(5 * 60_000);
    const a = await api();
    const dir = path.join(workspaceDir(), 'tasks', TASK);
    const before = new Set(listRuns());
    const source = new vscode.CancellationTokenSource();
    const running = a.testing.run(dir, 'validate', source.token);
    let run = '';
    await until('a container of the run', () => {
      run = listRuns().find((r) => !before.has(r)) ?? '';
      return run !== '' && containersOf(run) !== '';
    }, 4 * 60_000);
    source.cancel();
    await running;
    source.dispose();
    assert.equal(a.testing.state(`task:${dir}`)?.state, 'skipped', 'a cancelled task is skipped, not failed');
    await until('the run\'s containers removed', () => containersOf(run) === '', 60_000);
  });
});
