import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { requireTrust } from '../trust';

/**
 * One command of the extension: its id (`taskwright.<area>.<verb>`, also declared in package.json
 * `contributes.commands`) and what it does. `run` receives the extension's context and the arguments
 * VS Code passes (a tree node from a view menu, a Uri from an editor or explorer menu, nothing from
 * the palette).
 */
export interface CommandSpec {
  readonly id: string;
  /**
   * Set for commands that run workspace code (build images, run scripts, containers, agents): they
   * refuse, with an explanation, in an untrusted workspace. The text names the action for the user.
   */
  readonly needsTrust?: string;
  run(ctx: Ctx, ...args: unknown[]): unknown;
}

/**
 * Registers one command with the wrapper every command gets: the trust gate, a log line, and errors
 * shown to the user (with a button to the log) instead of vanishing into the extension host.
 */
export function registerCommand(ctx: Ctx, spec: CommandSpec): vscode.Disposable {
  return vscode.commands.registerCommand(spec.id, async (...args: unknown[]) => {
    const { log } = ctx;
    if (spec.needsTrust && !requireTrust(spec.needsTrust, spec.id)) {
      log.info(`${spec.id}: refused in an untrusted workspace`);
      return undefined;
    }
    log.debug(`${spec.id}: start`);
    try {
      return await spec.run(ctx, ...args);
    } catch (e) {
      if (e instanceof vscode.CancellationError) {
        log.info(`${spec.id}: cancelled`);
        return undefined;
      }
      log.error(`${spec.id}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      const showLog = 'Show Log';
      void vscode.window.showErrorMessage(`Taskwright: ${errorMessage(e)}`, showLog).then((c) => {
        if (c === showLog) log.show(true);
      });
      return undefined;
    }
  });
}
