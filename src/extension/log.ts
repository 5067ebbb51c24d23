import * as vscode from 'vscode';

/** The one output channel of the extension ("Taskwright" in the Output view, with log levels). */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Taskwright', { log: true });
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
