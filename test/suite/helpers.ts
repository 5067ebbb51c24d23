// Shared by the extension-host suites: the extension's test API, the open workspace (the rig opens
// examples/), diagnostic codes, and polling for what the extension does asynchronously.
import assert from 'node:assert/strict';
import fs from 'node:fs';
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
export async function until(what: string, check: () => boolean, deadlineMs = 45_000, detail?: () => string): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`gave up waiting: ${what}${detail ? ` (${detail()})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Rewards per task: one trial folder per entry, in start order. */
type Rollouts = Readonly<Record<string, readonly number[]>>;

/**
 * A finished Harbor job as Harbor writes it (`<job>/config.json`, `<job>/result.json`, one
 * `<task>__<id>/result.json` per trial), reduced to the fields a TrialResult always carries.
 */
export function writeHarborJob(jobsDir: string, job: string, model: string, rollouts: Rollouts): void {
  const dir = path.join(jobsDir, job);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ job_name: job, n_attempts: 2 }));
  fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify({ started_at: '2026-11-20T10:00:00Z', finished_at: '2026-11-20T11:00:00Z' }));
  let n = 0;
  for (const [task, rewards] of Object.entries(rollouts)) {
    for (const reward of rewards) {
      n++;
      const trial = `${task}__t${String(n).padStart(6, '0')}`;
      const started = `2026-11-20T10:${String(n).padStart(2, '0')}:00Z`;
      fs.mkdirSync(path.join(dir, trial), { recursive: true });
      fs.writeFileSync(path.join(dir, trial, 'result.json'), JSON.stringify({
        id: `${job}-${n}`, task_name: task, trial_name: trial, task_id: { path: `tasks/${task}` }, source: 'tasks',
        agent_info: { name: 'terminus-2', version: '2.0.0', model_info: { name: model, provider: 'test' } },
        agent_result: { n_input_tokens: 1000, n_output_tokens: 100 },
        verifier_result: { rewards: { reward } },
        exception_info: null,
        started_at: started, finished_at: started.replace(':00Z', ':30Z'),
      }));
    }
  }
}


/** The workspace's results store (`.taskwright/runs`) and the run folders in it. */
export const workspaceRunsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');
export const listWorkspaceRuns = (): string[] => (fs.existsSync(workspaceRunsDir()) ? fs.readdirSync(workspaceRunsDir()) : []);

/**
 * Hooks for a suite that validates in Docker: `taskwright.sandbox.runs` is 1 while it runs (one nop
 * and one oracle run keep it short; the user-level value is restored after), and the run folders it
 * wrote are removed at the end. `runsBefore` holds the runs that existed when it started.
 */
export function oneRunPerAgent(): { readonly runsBefore: ReadonlySet<string> } {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('taskwright');
  const state = { runsBefore: new Set<string>() as ReadonlySet<string> };
  let saved: number | undefined;
  before(async () => {
    state.runsBefore = new Set(listWorkspaceRuns());
    saved = config().inspect<number>('sandbox.runs')?.globalValue;
    await config().update('sandbox.runs', 1, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('sandbox.runs', saved, vscode.ConfigurationTarget.Global);
    for (const id of listWorkspaceRuns().filter((r) => !state.runsBefore.has(r))) fs.rmSync(path.join(workspaceRunsDir(), id), { recursive: true, force: true });
  });
  return state;
}

/**
 * The rule a diagnostic's code links to: its target is the command that opens the rule's page shipped
 * with the extension beside the editor (`command:taskwright.rules.open?["rule"]`), or undefined.
 */
export function linkedRule(d: vscode.Diagnostic): string | undefined {
  if (typeof d.code !== 'object' || d.code.target.scheme !== 'command' || d.code.target.path !== 'taskwright.rules.open') return undefined;
  const args: unknown = JSON.parse(decodeURIComponent(d.code.target.query));
  return Array.isArray(args) && typeof args[0] === 'string' ? args[0] : undefined;
}

/** Asserts that the diagnostic links the page of `rule`, which ships with the extension. */
export function assertLinksRulePage(d: vscode.Diagnostic, rule: string): void {
  const page = path.join(vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ?? '', 'docs', 'rules', `${rule}.md`);
  assert.ok(fs.existsSync(page), `docs/rules/${rule}.md ships with the extension`);
  assert.equal(linkedRule(d), rule, `the code links the page of ${rule} (got ${typeof d.code === 'object' ? d.code.target.toString() : String(d.code)})`);
}
