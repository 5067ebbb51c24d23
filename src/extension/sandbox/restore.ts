import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultResultsDir, listRuns } from '../../core/results/store';
import { VALIDATION_FILE } from '../../core/results/validations';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { SandboxService, sandboxOf } from './sandboxService';

const DELAY_MS = 300;

function anyStoredValidation(): boolean {
  return (vscode.workspace.workspaceFolders ?? []).some((f) => listRuns(defaultResultsDir(f.uri.fsPath))
    .some((d) => fs.existsSync(path.join(d, VALIDATION_FILE))));
}

/**
 * Validation verdicts survive a reload: once the tasks are loaded, and whenever a `validation.json`
 * appears, changes or its run goes (a validation in a terminal, a deleted run), each task's latest
 * stored validation is published as its status and diagnostics. The sandbox service is only created
 * when there is something to show. `alsoRestore` (the Testing view) is re-applied at the same moments.
 */
export function restoreValidations(ctx: Ctx, alsoRestore?: () => number): vscode.Disposable {
  let timer: NodeJS.Timeout | undefined;
  const run = async (): Promise<void> => {
    timer = undefined;
    try {
      await ctx.tasks.whenIdle();
      await ctx.audit.docsIndexed();
      if (!anyStoredValidation() && !ctx.hasService(SandboxService)) return;
      const n = sandboxOf(ctx).restore();
      if (n) ctx.log.info(`restored the last validation of ${n} task(s) from the results store`);
      const shown = alsoRestore?.() ?? 0;
      if (shown) ctx.log.info(`showed the last validation of ${shown} task(s) in the Testing view`);
    } catch (e) {
      ctx.log.warn(`could not restore stored validations: ${errorMessage(e)}`);
    }
  };
  const soon = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), DELAY_MS);
  };
  const subs = [
    // A validation written or removed, or a whole run folder gone.
    ctx.store.onDidChange((e) => { if (path.basename(e.path) === VALIDATION_FILE || (e.kind === 'remove' && e.path === e.runDir)) soon(); }),
    ctx.tasks.onDidChange((c) => { if (c.dirs === 'all') soon(); }),
  ];
  soon();
  return { dispose: () => { if (timer) clearTimeout(timer); for (const s of subs) s.dispose(); } };
}
