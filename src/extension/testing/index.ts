import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { errorMessage } from '../log';
import { isTrusted } from '../trust';
import { CODELENS_SELECTOR, RUN_PROFILE_COMMAND, TaskCodeLens } from './codeLens';
import { TaskTests } from './controller';
import { TestProfiles, type ProfileKind } from './profiles';

const SAVE_DELAY_MS = 500;
const KINDS: readonly ProfileKind[] = ['validate', 'oracle', 'nop', 'policy'];

export interface Testing extends vscode.Disposable {
  readonly tests: TaskTests;
  readonly profiles: TestProfiles;
  /** Runs a profile on one task as the Testing view would; resolves when the run has ended. */
  runTask(taskDir: string, kind: ProfileKind, token?: vscode.CancellationToken): Promise<void>;
}

/**
 * Tasks as tests: the controller, its run profiles, the command the CodeLens runs, and the opt-in
 * validation on save (`taskwright.testing.runOnSave`; nothing runs in an untrusted workspace).
 */
export function registerTesting(ctx: Ctx): Testing {
  const tests = new TaskTests(ctx);
  const profiles = new TestProfiles(ctx, tests);
  const lens = new TaskCodeLens(ctx);
  const subs: vscode.Disposable[] = [];

  const runTask = async (taskDir: string, kind: ProfileKind, token?: vscode.CancellationToken): Promise<void> => {
    await ctx.tasks.whenIdle();
    const item = tests.taskItem(path.resolve(taskDir)) ?? tests.taskItem(ctx.tasks.containing(path.resolve(taskDir))?.dir ?? '');
    if (!item) {
      void vscode.window.showInformationMessage(`Taskwright: ${taskDir} is not a task of this workspace.`);
      return;
    }
    const include = kind === 'validate' ? item : tests.check(tests.taskOf(item)!.dir, kind === 'policy' ? 'policy' : kind) ?? item;
    const request = new vscode.TestRunRequest([include], undefined, profiles.profiles.get(kind));
    const source = token ? undefined : new vscode.CancellationTokenSource();
    try {
      await profiles.handle(kind, request, token ?? source!.token);
    } finally {
      source?.dispose();
    }
  };

  subs.push(vscode.commands.registerCommand(RUN_PROFILE_COMMAND, async (dir: unknown, kind: unknown) => {
    const k = KINDS.find((x) => x === kind) ?? 'validate';
    const target = typeof dir === 'string' ? dir : dir instanceof vscode.Uri ? dir.fsPath : vscode.window.activeTextEditor?.document.uri.fsPath;
    if (!target) return;
    try {
      await runTask(target, k);
    } catch (e) {
      void vscode.window.showErrorMessage(`Taskwright: ${errorMessage(e)}`);
    }
  }));
  subs.push(vscode.languages.registerCodeLensProvider(CODELENS_SELECTOR, lens), lens);
  subs.push(ctx.config.onDidChange(['codeLens'], () => lens.refresh()));
  subs.push(ctx.tasks.onDidChange(() => lens.refresh()));

  // Validation on save: one pending run per task, the newer save cancelling the older run.
  const pending = new Map<string, { timer?: NodeJS.Timeout; source?: vscode.CancellationTokenSource }>();
  subs.push(vscode.workspace.onDidSaveTextDocument((doc) => {
    if (!isTrusted() || doc.uri.scheme !== 'file' || !ctx.config.get('testing.runOnSave', doc.uri)) return;
    if (doc.uri.fsPath.split(path.sep).includes('.taskwright')) return;
    const task = ctx.tasks.containing(doc.uri.fsPath);
    if (!task) return;
    const p = pending.get(task.dir) ?? {};
    if (p.timer) clearTimeout(p.timer);
    p.source?.cancel();
    p.timer = setTimeout(() => {
      const source = new vscode.CancellationTokenSource();
      p.timer = undefined;
      p.source = source;
      void runTask(task.dir, 'validate', source.token)
        .catch((e: unknown) => ctx.log.warn(`validation on save: ${errorMessage(e)}`))
        .finally(() => { if (p.source === source) p.source = undefined; source.dispose(); });
    }, SAVE_DELAY_MS);
    pending.set(task.dir, p);
  }));

  return {
    tests, profiles, runTask,
    dispose: () => {
      for (const p of pending.values()) { if (p.timer) clearTimeout(p.timer); p.source?.cancel(); }
      for (const s of subs) s.dispose();
      profiles.dispose();
      tests.dispose();
    },
  };
}
