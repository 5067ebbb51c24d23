// Runs inside the real VS Code extension host with `examples/` open: the light bulb on an audit
// diagnostic offers "Fix with Claude"; the command asks the local Anthropic wire-format server, whose
// first change leaves the finding (it goes back to the model as a failed tool result) and whose second
// removes it; the checked change lands in the editor as a WorkspaceEdit, and the finding goes.
// It works on a copy of the example (examples/tmp-fix-*/), so no edit can reach the example itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { FixResult } from '../../src/core/fix/fix';
import { startAnthropicServer, type AnthropicScriptedServer } from '../support/anthropicServer';
import { countToolResults } from '../support/scripted';
import { api, codeOf, exampleUri, until, workspaceDir } from './helpers';

const KEY = 'sk-fix-extension-host-suite';
const TASK = 'dedupe-contacts';
const FILE = 'tests/test.sh';
const RULE = 'pipeline-status-masked';

describe('Fix with Claude', () => {
  let tmp = '';
  let uri = exampleUri(TASK, FILE);
  let server: AnthropicScriptedServer | undefined;
  let onDisk = '';
  const savedEnv = process.env.ANTHROPIC_BASE_URL;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(workspaceDir(), 'tmp-fix-'));
    fs.cpSync(exampleUri(TASK).fsPath, path.join(tmp, TASK), { recursive: true });
    uri = vscode.Uri.file(path.join(tmp, TASK, ...FILE.split('/')));
    const a = await api();
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();
    onDisk = fs.readFileSync(uri.fsPath, 'utf8');
    const fixed = onDisk.replace(/^#!\/bin\/bash\n/, '#!/bin/bash\nset -o pipefail\n');
    const stillMasked = onDisk.replace('mkdir -p /logs/verifier', '# keep the log\nmkdir -p /logs/verifier');
    server = await startAnthropicServer({
      apiKey: KEY,
      script: (req) => ({
        kind: 'turn', usage: { input: 2500, output: 400 },
        toolCalls: [{ name: 'submit_fix', input: { explanation: 'tee hid pytest\'s status', files: [{ path: FILE, content: countToolResults(req.body) === 0 ? stillMasked : fixed }] } }],
      }),
    });
    process.env.ANTHROPIC_BASE_URL = server.url;
  });

  after(async () => {
    await vscode.commands.executeCommand('taskwright.models.setApiKey', '');
    if (savedEnv === undefined) delete process.env.ANTHROPIC_BASE_URL;
    else process.env.ANTHROPIC_BASE_URL = savedEnv;
    await server?.close();
    // The unsaved edit is reverted (so closing asks nothing), then the copy goes.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
    if (doc?.isDirty) { await vscode.window.showTextDocument(doc); await vscode.commands.executeCommand('workbench.action.files.revert'); }
    const changed = fs.readFileSync(uri.fsPath, 'utf8') !== onDisk;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(tmp, { recursive: true, force: true });
    const a = await api();
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();
    assert.equal(changed, false, 'nothing was saved behind the user');
  });

  it('offers the fix on the diagnostic, rechecks each change, and applies only the checked one', async function () {
    this.timeout(120_000);
    const a = await api();
    await vscode.commands.executeCommand('taskwright.models.setApiKey', KEY);
    const editor = await vscode.window.showTextDocument(uri);
    const ours = (): vscode.Diagnostic[] => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'taskwright' && codeOf(d) === RULE);
    await until(`${RULE} on ${FILE}`, () => ours().length > 0);
    await a.diagnostics.whenIdle();
    const d = ours()[0]!;
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value);
    const action = actions.find((x) => x.title === `Fix with Claude: ${RULE}`);
    assert.ok(action?.command, `a Fix with Claude action (got: ${actions.map((x) => x.title).join('; ')})`);
    assert.equal(action.command.command, 'taskwright.fix.finding');
    const [dir, finding] = action.command.arguments as [string, { rule: string; file: string }];
    assert.deepEqual([finding.rule, finding.file], [RULE, FILE]);
    assert.equal(dir, path.join(tmp, TASK), 'the finding of the copy');

    // preview: false applies the checked edit directly (the default opens the refactor preview).
    const result = await vscode.commands.executeCommand<FixResult | undefined>('taskwright.fix.finding', dir, finding, { preview: false });
    assert.ok(result, 'no result (see the Taskwright log)');
    assert.equal(result.status, 'fixed');
    assert.equal(result.rounds, 2, 'the first change still showed the finding and went back to the model');
    assert.equal(server!.requests.filter((r) => r.path === '/v1/messages').length, 2);
    assert.match(editor.document.getText(), /^#!\/bin\/bash\nset -o pipefail\n/);
    assert.equal(fs.readFileSync(uri.fsPath, 'utf8'), onDisk, 'the edit is in the editor, not saved behind the user');
    await until(`${RULE} gone after the fix`, () => ours().length === 0);
  });
});
