// Runs inside the real VS Code extension host with `examples/` open: the Runs view reads the results
// store on disk (run folders written here as an earlier session would have left them, so what it shows
// survives a reload), draws runs → tasks → trials with outcome, reward, duration, model and attempt,
// follows a `trials.jsonl` that grows, opens a trial's logs, shows a run in the band panel, reruns a
// trial's task with its agent in Docker, and deletes a run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskwrightApi } from '../../src/extension/api';
import { api, until, workspaceDir, writeHarborJob } from './helpers';

const runsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');
const listRuns = (): string[] => (fs.existsSync(runsDir()) ? fs.readdirSync(runsDir()) : []);

interface Trial {
  trial: string; task: string; taskId: string; agent: string; model?: string; attempt: number; try?: number;
  outcome: string; reward: number | null; startedAt: string; durations: { build: number | null; agent: number | null; verifier: number | null };
  logs: string; infra?: { kind: string; message: string };
}

function trial(id: string, task: string, attempt: number, outcome: string, reward: number | null, extra: Partial<Trial> = {}): Trial {
  return {
    trial: id, task: `tasks/${task}`, taskId: task, agent: 'oracle', model: 'test-model', attempt, outcome, reward,
    startedAt: `2026-11-30T10:0${attempt}:00.000Z`, durations: { build: 2, agent: 30, verifier: 10 }, logs: `trials/${id}`, ...extra,
  };
}

/** A run folder as `RunStore` leaves it: run.json, trials.jsonl, one folder of logs per trial. */
function writeRun(id: string, trials: readonly Trial[], params: Record<string, unknown>): string {
  const dir = path.join(runsDir(), id);
  fs.mkdirSync(path.join(dir, 'trials'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id, kind: 'run', agent: 'oracle', model: 'test-model', tasks: [], concurrency: 1, retries: 2, startedAt: '2026-11-30T10:00:00.000Z', pid: 1, ...params }, null, 2));
  fs.writeFileSync(path.join(dir, 'trials.jsonl'), trials.map((t) => `${JSON.stringify(t)}\n`).join(''));
  for (const t of trials) {
    fs.mkdirSync(path.join(dir, t.logs), { recursive: true });
    fs.writeFileSync(path.join(dir, t.logs, 'verdict.txt'), `${t.outcome}\n`);
  }
  return dir;
}

async function rows(a: TaskwrightApi): Promise<Awaited<ReturnType<TaskwrightApi['runs']['snapshot']>>> {
  return a.runs.snapshot(3);
}

describe('Runs view', () => {
  const before = new Set<string>();
  let finished = '';
  let unfinished = '';
  let latest: Awaited<ReturnType<typeof rows>> = [];

  // An id that sorts after every real run and cannot be a live process (pid beyond Linux's pid_max).
  const DEAD_PID = 9_999_999;

  after(() => {
    for (const id of listRuns().filter((r) => !before.has(r))) fs.rmSync(path.join(runsDir(), id), { recursive: true, force: true });
  });

  it('shows runs from the store on disk: runs → tasks → trials with outcome, reward, duration, model, attempt', async () => {
    for (const r of listRuns()) before.add(r);
    const a = await api();
    finished = writeRun('20261130-100000-test-view-done', [
      trial('t1', 'semver-sort', 1, 'passed', 1),
      trial('t2', 'semver-sort', 2, 'failed', 0),
      trial('t3', 'word-frequency', 1, 'infra-error', null, { infra: { kind: 'engine-timeout', message: 'the engine did not answer' }, durations: { build: null, agent: null, verifier: null } }),
      trial('t4', 'word-frequency', 1, 'passed', 1, { try: 2 }),
    ], { finishedAt: '2026-11-30T10:10:00.000Z' });
    unfinished = writeRun('20261130-110000-test-view-open', [trial('u1', 'semver-sort', 1, 'passed', 1)], { startedAt: '2026-11-30T11:00:00.000Z', pid: DEAD_PID });

    await vscode.commands.executeCommand('taskwright.runs.focus');
    await until('both runs in the Runs view', () => a.runs.shownRunDirs().includes(finished) && a.runs.shownRunDirs().includes(unfinished));
    const shown = a.runs.shownRunDirs();
    assert.ok(shown.indexOf(unfinished) < shown.indexOf(finished), 'newest first');

    const all = await rows(a);
    const done = all.find((r) => r.description.startsWith('2 tasks · 2/3 passed · 1 infra · '));
    assert.ok(done, `the finished run's row (rows: ${JSON.stringify(all.map((r) => [r.label, r.description]))})`);
    assert.equal(done.label, 'test-model');
    assert.equal(done.contextValue, 'taskwright.run.finished');
    assert.deepEqual(done.children?.map((t) => [t.label, t.description]), [['semver-sort', '1/2 passed'], ['word-frequency', '1/1 passed']]);
    const semver = done.children?.[0]?.children ?? [];
    assert.deepEqual(semver.map((t) => [t.label, t.description, t.icon, t.contextValue]), [
      ['#1 passed', 'reward 1 · 42s · test-model', 'pass', 'taskwright.trial'],
      ['#2 failed', 'reward 0 · 42s · test-model', 'error', 'taskwright.trial'],
    ]);
    const words = done.children?.[1]?.children ?? [];
    assert.deepEqual(words.map((t) => [t.label, t.description, t.icon]), [
      ['#1 infra-error', 'no reward · 0s · test-model · engine-timeout', 'debug-disconnect'],
      ['#1 try 2 passed', 'reward 1 · 42s · test-model', 'pass'],
    ]);
    // A run without finishedAt whose writer is gone is interrupted, not running.
    const open = all.find((r) => r.description.includes('interrupted'));
    assert.equal(open?.contextValue, 'taskwright.run.interrupted');
  });

  it('follows trials.jsonl as it grows (file watcher, debounced)', async () => {
    const a = await api();
    fs.appendFileSync(path.join(unfinished, 'trials.jsonl'), `${JSON.stringify(trial('u2', 'semver-sort', 2, 'agent-timeout', 0))}\n`);
    await until('the appended trial in the view', () => {
      void rows(a).then((r) => { latest = r; });
      const run = latest.find((x) => x.description.includes('interrupted'));
      return run?.children?.[0]?.children?.some((t) => t.label === '#2 agent-timeout' && t.icon === 'watch') ?? false;
    });
  });

  it('opens a trial\'s logs and shows its run in the band panel', async () => {
    const a = await api();
    const node = a.runs.node(finished, 't2');
    assert.ok(node, 'trial t2 has a node');
    const opened = await vscode.commands.executeCommand<string>('taskwright.runs.openTrialLogs', node);
    assert.equal(opened, path.join(finished, 'trials', 't2', 'verdict.txt'));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, opened);
    assert.equal(vscode.window.activeTextEditor?.document.getText(), 'failed\n');

    assert.equal(await vscode.commands.executeCommand('taskwright.runs.revealInBand', a.runs.node(finished)), finished);
    await until('the band panel on that run', () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === `Solvability Band — ${path.basename(finished)}`)));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Open Trial Logs… on a task offers its trials from the store, not only this session\'s', async () => {
    const opening = vscode.commands.executeCommand<string | undefined>('taskwright.sandbox.openTrialLogs', path.join(workspaceDir(), 'tasks', 'semver-sort'));
    let settled = false;
    void Promise.resolve(opening).finally(() => { settled = true; });
    // Accept the first trial of the pick (the newest run's) as a user pressing Enter would.
    for (let i = 0; i < 100 && !settled; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    assert.equal(await opening, path.join(unfinished, 'trials', 'u1', 'verdict.txt'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('reruns a trial\'s task with its agent in Docker; the new run appears', async function () {
    this.timeout(10 * 60_000);
    const a = await api();
    const known = new Set(listRuns());
    const record = await vscode.commands.executeCommand<{ outcome: string; reward: number | null } | undefined>('taskwright.runs.rerun', a.runs.node(finished, 't1'));
    assert.equal(record?.outcome, 'passed', 'the oracle solves semver-sort');
    const created = listRuns().filter((r) => !known.has(r));
    assert.equal(created.length, 1, 'one new run folder');
    const dir = path.join(runsDir(), created[0]!);
    // The view saw the run while it ran; its run.json's finishedAt arrives through the watcher too.
    await until('the rerun in the Runs view, finished', () => {
      void rows(a).then((r) => { latest = r; });
      return a.runs.shownRunDirs()[0] === dir && latest[0]?.contextValue === 'taskwright.run.finished';
    });
    const top = latest[0];
    assert.equal(top?.children?.[0]?.label, 'semver-sort');
    assert.match(top?.children?.[0]?.children?.[0]?.label ?? '', /^#1 passed$/);
  });

  it('lists imported Harbor jobs as runs, whose trials open but are never deleted', async () => {
    const a = await api();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-runs-import-'));
    try {
      writeHarborJob(tmp, '2026-11-28__09-00-00', 'harbor-model', { 'semver-sort': [1, 0] });
      const job = path.join(tmp, '2026-11-28__09-00-00');
      await vscode.commands.executeCommand('taskwright.band.importResults', vscode.Uri.file(job));
      await until('the imported job in the Runs view', () => a.runs.shownRunDirs().includes(job));
      const row = (await rows(a)).find((r) => r.contextValue === 'taskwright.run.imported');
      assert.ok(row, 'an imported run row');
      assert.equal(row.label, 'harbor-model');
      assert.equal(row.description, '1 task · 1/2 passed · imported Harbor job');
      assert.deepEqual(row.children?.[0]?.children?.map((t) => [t.label, t.icon, t.contextValue]), [
        ['#1 passed', 'pass', 'taskwright.importedTrial'],
        ['#2 failed', 'error', 'taskwright.importedTrial'],
      ]);
      assert.equal(await vscode.commands.executeCommand('taskwright.runs.delete', a.runs.node(job), true), false, 'an import is not deleted');
      assert.ok(fs.existsSync(job));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      await vscode.commands.executeCommand('taskwright.runs.refresh');
    }
  });

  it('deletes a run (confirmed) and drops it from the view', async () => {
    const a = await api();
    assert.equal(await vscode.commands.executeCommand('taskwright.runs.delete', a.runs.node(finished), true), true);
    assert.equal(fs.existsSync(finished), false);
    assert.ok(!a.runs.shownRunDirs().includes(finished));
  });
});
