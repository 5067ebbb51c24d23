// Runs inside the real VS Code extension host (code-server's Node host, or desktop VS Code through
// @vscode/test-cli) with the workspace `examples/` open: the extension must activate, register every
// command it contributes, and list the example tasks in the Task Explorer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskwrightApi } from '../../src/extension/api';

const EXTENSION_ID = 'taskwright.taskwright';

interface ContributedCommand { command: string; title: string }

function extension(): vscode.Extension<TaskwrightApi> {
  const ext = vscode.extensions.getExtension<TaskwrightApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded in this extension host`);
  return ext;
}

function contributedCommands(ext: vscode.Extension<TaskwrightApi>): ContributedCommand[] {
  const pkg = ext.packageJSON as { contributes?: { commands?: ContributedCommand[] } };
  return pkg.contributes?.commands ?? [];
}

/** Example task folders in the open workspace: any folder holding a task.yaml or a task.toml. */
function exampleTaskFolders(): string[] {
  const ws = vscode.workspace.workspaceFolders?.[0];
  assert.ok(ws, 'the rig opens examples/ as the workspace; no workspace folder is open');
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 3) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = path.join(dir, e.name);
      if (fs.existsSync(path.join(p, 'task.yaml')) || fs.existsSync(path.join(p, 'task.toml'))) found.push(e.name);
      else walk(p, depth + 1);
    }
  };
  walk(ws.uri.fsPath, 0);
  return found.sort();
}

describe('Taskwright activation', () => {
  it('activates in the extension host', async () => {
    // activate() resolves with the extension's exports once activate() has returned; the Extension
    // object handed out before activation may be a stale snapshot, so ask the registry again.
    const api = await extension().activate();
    assert.ok(api && typeof api === 'object', 'activate() returned no API object');
    assert.equal(extension().isActive, true);
  });

  it('registers every command it contributes', async () => {
    const ext = extension();
    await ext.activate();
    const contributed = contributedCommands(ext).map((c) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('lists every example task in the Task Explorer', async () => {
    const api = await extension().activate();
    assert.ok(api?.taskExplorer, 'activate() returned no taskExplorer test API');
    await api.taskExplorer.ready();
    const expected = exampleTaskFolders();
    assert.ok(expected.length >= 2, `expected example tasks in the workspace, found ${expected.length}`);
    // A fresh workspace has no filter, so the explorer shows every task found on disk.
    assert.deepEqual(api.taskExplorer.visibleTaskIds(), expected);
  });
});
