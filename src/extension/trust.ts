import * as vscode from 'vscode';

/**
 * Untrusted workspaces get reading and listing only (package.json `capabilities.untrustedWorkspaces`
 * is `limited`): anything that builds images, runs containers, scripts, agents or sends the task to a
 * model asks for trust first. Every such command declares `needsTrust` (commands/command.ts) and is
 * refused by the one wrapper; the Testing view and run-on-save ask `isTrusted()` too.
 */
let simulated: boolean | undefined;
const refusals: string[] = [];

export function isTrusted(): boolean {
  return simulated ?? vscode.workspace.isTrusted;
}

/**
 * For the extension-host tests (the rig cannot open an untrusted workspace): `false` makes the gate
 * behave as in one, `undefined` returns to the workspace's own trust.
 */
export function simulateTrust(trusted: boolean | undefined): void {
  simulated = trusted;
  refusals.length = 0;
}

/** What the gate refused since the last `simulateTrust` (command ids or action texts). */
export function refusedSoFar(): readonly string[] {
  return [...refusals];
}

/** The message shown when an action needs a trusted workspace. */
export function untrustedMessage(action: string): string {
  return `Taskwright: ${action} needs a trusted workspace; in an untrusted one Taskwright only reads, lists and audits tasks. `
    + 'Use "Workspaces: Manage Workspace Trust" to trust this folder.';
}

/**
 * Returns true when trusted; otherwise tells the user why `action` cannot run (without waiting for
 * them to dismiss the message) and returns false. `who` names the refusal for the log and the tests.
 */
export function requireTrust(action: string, who = action): boolean {
  if (isTrusted()) return true;
  refusals.push(who);
  const manage = 'Manage Workspace Trust';
  void vscode.window.showWarningMessage(untrustedMessage(action), manage).then((choice) => {
    if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}
