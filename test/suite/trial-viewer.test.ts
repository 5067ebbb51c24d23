// Runs inside the real VS Code extension host with `examples/` open: the trial viewer opened from a
// trial row of the Runs view on a Taskwright trial (trajectory.jsonl, verifier output, reward, build
// log) and on a trial of an imported Harbor job (ATIF), asserting what the panel posted and what the
// webview reported it drew after the `ready` handshake.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, until, workspaceDir } from './helpers';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/trials');
const RUN_ID = '20261130-100000-test-trial-viewer';

describe('Trial viewer', () => {
  const runDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs', RUN_ID);
  let tmp = '';

  before(() => {
    fs.cpSync(path.join(FIXTURES, 'runs/run-1'), runDir(), { recursive: true });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-trial-viewer-'));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(runDir(), { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
    await vscode.commands.executeCommand('taskwright.runs.refresh');
  });

  it('opens on a Taskwright trial from its row: header, steps with exit codes and cuts, failing tests', async () => {
    const a = await api();
    await vscode.commands.executeCommand('taskwright.runs.focus');
    await vscode.commands.executeCommand('taskwright.runs.refresh');
    await until('the run in the Runs view', () => a.runs.shownRunDirs().includes(runDir()));
    const row = (await a.runs.snapshot(3)).find((r) => r.label === 'claude-sonnet-4-5' && r.description.startsWith('1 task'));
    const trialRow = row?.children?.[0]?.children?.[0];
    assert.equal(trialRow?.command, 'taskwright.runs.openTrial', 'a trial row opens the viewer when clicked');

    const dir = await vscode.commands.executeCommand<string>('taskwright.runs.openTrial', a.runs.node(runDir(), 'hello__1'));
    assert.equal(dir, path.join(runDir(), 'trials', 'hello__1'));
    await until('the webview drew the trial', () => a.trialPanel.current()?.rendered !== undefined);
    const p = a.trialPanel.current();
    assert.ok(p?.ready && p.view);
    assert.equal(p.view.source, 'taskwright');
    assert.equal(p.view.header.taskId, 'hello');
    assert.equal(p.view.header.outcome, 'failed');
    assert.equal(p.view.header.costUsd, 0.0281);
    assert.deepEqual(p.view.steps.map((s) => [s.kind, s.command ?? null, s.exitCode ?? null]), [
      ['command', 'ls -la /app', 0], ['command', 'seq 1 100000', 0], ['tool-error', null, null], ['message', null, null],
    ]);
    assert.ok(p.view.steps[1]?.output?.some((o) => o.kind === 'cut'), 'the agent\'s cut is marked');
    assert.equal(p.view.steps[0]?.reasoning, 'The task wants hello.txt in /app; check what is there.');
    assert.deepEqual(p.view.verifier?.failing, ['test_hello_content']);
    assert.deepEqual(p.view.rewards, [{ file: 'reward.txt', text: '0' }]);
    assert.ok(p.view.build);
    assert.deepEqual(p.rendered, { steps: 4, selected: 1, failing: 1 });
    assert.equal(p.viewState.dir, dir);

    // `o` on a step: its command and output as a read-only shell transcript, beside the viewer.
    const editor = await a.trialPanel.openStep(2);
    assert.ok(editor, 'a step document opened');
    assert.equal(editor.document.uri.scheme, 'taskwright-step', 'read-only (a content provider), not a file');
    assert.equal(editor.document.languageId, 'shellscript');
    const text = editor.document.getText();
    assert.ok(text.split('\n').includes('seq 1 100000'), `the command on a line of its own:\n${text}`);
    assert.match(text, /^# hello · hello__1 · step 2 · exit 0$/m);
    assert.match(text, /^# output:$/m, 'the output follows, commented');
    assert.notEqual(editor.viewColumn, vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview))?.viewColumn, 'beside the viewer');
  });

  it('opens on a trial of an imported Harbor job (ATIF trajectory)', async () => {
    const a = await api();
    const job = path.join(tmp, 'jobs', '2026-11-20__12-00-00');
    fs.cpSync(path.join(FIXTURES, 'harbor-job'), job, { recursive: true });
    await vscode.commands.executeCommand('taskwright.runs.focus');
    await vscode.commands.executeCommand('taskwright.band.importResults', vscode.Uri.file(job));
    await until('the imported job in the Runs view', () => a.runs.shownRunDirs().includes(job));
    const node = a.runs.node(job, 'regex-log__Vw1');
    assert.ok(node, 'the imported trial\'s node');
    await vscode.commands.executeCommand('taskwright.runs.openTrial', node);
    await until('the webview drew the Harbor trial', () => a.trialPanel.current()?.view?.source === 'harbor' && a.trialPanel.current()?.rendered !== undefined);
    const p = a.trialPanel.current();
    assert.ok(p?.view);
    assert.equal(p.view.header.taskId, 'regex-log');
    assert.equal(p.view.header.agent, 'harbor:terminus-2');
    assert.equal(p.view.header.outcome, 'failed');
    assert.match(p.view.instruction ?? '', /matches dates/);
    assert.deepEqual(p.view.steps.map((s) => s.tool), ['bash_command', 'bash_command', 'mark_task_complete']);
    assert.equal(p.view.steps[0]?.reasoning, 'I should look at the log format before writing anything.');
    assert.deepEqual(p.view.verifier?.failing, ['test_rejects_invalid_dates']);
    assert.deepEqual(p.rendered, { steps: 3, selected: 1, failing: 1 });
  });
});
