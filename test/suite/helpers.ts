// Shared by the extension-host suites: the extension's test API, the open workspace (the rig opens
// examples/), diagnostic codes, and polling for what the extension does asynchronously.
import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskwrightApi } from '../../src/extension/api';

export const EXTENSION_ID = 'taskwright.taskwright';

/** The activated extension's test API, once its first task discovery has finished. */
export async function api(): Promise<TaskwrightApi> {
  const ext = vscode.extensions.getExtension<TaskwrightApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded in this extension host`);
  const a = await ext.activate();
  await a.taskExplorer.ready();
  return a;
}

export function workspaceDir(): string {
  const ws = vscode.workspace.workspaceFolders?.[0];
  assert.ok(ws, 'no workspace folder open (the rig opens examples/)');
  return ws.uri.fsPath;
}

/** A file of an example task under `examples/tasks/<task>/`. */
export function exampleUri(task: string, file = ''): vscode.Uri {
  return vscode.Uri.file(path.join(workspaceDir(), 'tasks', task, ...file.split('/').filter(Boolean)));
}

export function codeOf(d: vscode.Diagnostic): string | undefined {
  if (d.code === undefined) return undefined;
  return String(typeof d.code === 'object' ? d.code.value : d.code);
}

/** Waits (polling) until `check` holds; the deadline only bounds a hang, it is not what is tested. */
export async function until(what: string, check: () => boolean, deadlineMs = 45_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
