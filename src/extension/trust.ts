import * as vscode from 'vscode';

/**
 * Untrusted workspaces get reading and listing only (package.json `capabilities.untrustedWorkspaces`
 * is `limited`): anything that builds images, runs containers, scripts or agents asks for trust first.
 */
export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** The message shown when an action needs a trusted workspace. */
export function untrustedMessage(action: string): string {
  return `Taskwright: ${action} runs code from this workspace, so it needs a trusted workspace. `
    + 'Use "Workspaces: Manage Workspace Trust" to trust this folder.';
}

/** Returns true when trusted; otherwise tells the user why `action` cannot run and returns false. */
export async function requireTrust(action: string): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const manage = 'Manage Workspace Trust';
  const choice = await vscode.window.showWarningMessage(untrustedMessage(action), manage);
  if (choice === manage) await vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}
