// Runs inside the real VS Code extension host with `examples/` open: the Solvability Band panel opened
// on a run of the results store follows its trials.jsonl as it grows (the watcher re-reads it), and
// switching the panel to another source starts its view state afresh; its source picker lists the store,
// each run and each import, and a panel on an imported job follows the trials that land in it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, until, workspaceDir, writeHarborJob } from './helpers';

const runsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');

function line(trial: string, task: string, attempt: number, model: string, reward: 0 | 1): string {
  return `${JSON.stringify({
    trial, task: `tasks/${task}`, taskId: task, agent: `anthropic:${model}`, model, attempt, outcome: reward ? 'passed' : 'failed', reward,
    startedAt: `2026-11-29T10:0${attempt}:00.000Z`, durations: { build: 1, agent: 10, verifier: 2 }, logs: `trials/${trial}`,
  })}\n`;
}

function writeRun(id: string, model: string, lines: string): string {
  const dir = path.join(runsDir(), id);
  fs.mkdirSync(path.join(dir, 'trials'), { recursive: true });
  // No finishedAt: the run is still streaming.
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ id, kind: 'run', agent: `anthropic:${model}`, model, tasks: ['tasks/semver-sort'], attempts: 2, concurrency: 1, retries: 0, startedAt: '2026-11-29T10:00:00.000Z', pid: process.pid }));
  fs.writeFileSync(path.join(dir, 'trials.jsonl'), lines);
  return dir;
}

describe('Solvability band panel, live', () => {
  const written: string[] = [];

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const d of written) fs.rmSync(d, { recursive: true, force: true });
  });

  it('updates while trials.jsonl grows, and resets its view when the source changes', async () => {
    const a = await api();
    const first = writeRun('20261129-100000-live-a', 'live-a', line('a1', 'semver-sort', 1, 'live-a', 1));
    const second = writeRun('20261129-110000-live-b', 'live-b', line('b1', 'word-frequency', 1, 'live-b', 0));
    written.push(first, second);

    // The source picker offers the whole store, each run, each import; a job imported now is listed too.
    const job = path.join(os.tmpdir(), `tw-band-live-job-${process.pid}`);
    writeHarborJob(job, 'live-job', 'live-c', { 'semver-sort': [1] });
    written.push(job);
    await vscode.commands.executeCommand('taskwright.band.importResults', vscode.Uri.file(path.join(job, 'live-job')));
    const sources = a.bandPanel.sourceChoices().map((c) => c.source);
    for (const s of [path.dirname(first), first, second, path.join(job, 'live-job')]) assert.ok(sources.includes(s), `${s} among the sources: ${JSON.stringify(sources)}`);

    // On an imported job that is still running, each trial Harbor finishes (its folder and result.json
    // made in one go) is counted as it lands.
    await vscode.commands.executeCommand('taskwright.band.openPanel', path.join(job, 'live-job'));
    const jobRow = (): { attempts: number } | undefined => a.bandPanel.current()?.models.find((m) => m.key.includes('live-c'))?.tasks.find((t) => t.id === 'semver-sort');
    await until('the panel on the imported job', () => a.bandPanel.current()?.ready === true && jobRow()?.attempts === 1, 45_000, () => JSON.stringify(a.bandPanel.current()?.models));
    writeHarborJob(job, 'live-job', 'live-c', { 'semver-sort': [1, 0] });
    await until('the job\'s new trial counted', () => jobRow()?.attempts === 2, 30_000, () => JSON.stringify(a.bandPanel.current()?.models));

    await vscode.commands.executeCommand('taskwright.band.openPanel', first);
    const row = (): { attempts: number; successes: number } | undefined => a.bandPanel.current()?.models.find((m) => m.key === 'live-a')?.tasks.find((t) => t.id === 'semver-sort');
    await until('the panel shows live-a', () => a.bandPanel.current()?.ready === true && row()?.attempts === 1);
    await until('the webview reported its view state', () => a.bandPanel.current()?.viewState.model === 'live-a');

    fs.appendFileSync(path.join(first, 'trials.jsonl'), line('a2', 'semver-sort', 2, 'live-a', 0));
    await until('the appended trial counted', () => row()?.attempts === 2);
    assert.equal(row()?.successes, 1);

    await vscode.commands.executeCommand('taskwright.band.openPanel', second);
    await until('the panel on the second run', () => a.bandPanel.current()?.source === second && (a.bandPanel.current()?.models.some((m) => m.key === 'live-b') ?? false));
    await until('the view state of the new source', () => a.bandPanel.current()?.viewState.model === 'live-b');
    const state = a.bandPanel.current()?.viewState ?? {};
    assert.equal(state.source, second);
    assert.equal(state.filter, '');
    assert.equal(state.thresholds, undefined, 'no thresholds carried over');
  });
});
