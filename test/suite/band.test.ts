// Runs inside the real VS Code extension host with `examples/` open: "Import Results…" reads Harbor
// job folders written by this test (two models, rollouts of example tasks), the Task Explorer shows
// each task's solvability band for the selected model, and "Select Band Model…" switches it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskwrightApi } from '../../src/extension/api';
import { api, until, writeHarborJob } from './helpers';

function taskDir(id: string): string {
  const ws = vscode.workspace.workspaceFolders?.[0];
  assert.ok(ws, 'no workspace folder open (the rig opens examples/)');
  const dir = path.join(ws.uri.fsPath, 'tasks', id);
  assert.ok(fs.existsSync(dir), `example task ${id} is missing at ${dir}`);
  return dir;
}

function bandStatus(a: TaskwrightApi, id: string): { level: string; summary: string } | undefined {
  return a.taskExplorer.status(taskDir(id)).find((s) => s.source === 'band');
}

describe('Solvability band', () => {
  let tmp: string | undefined;

  after(async () => {
    if (!tmp) return;
    fs.rmSync(tmp, { recursive: true, force: true });
    // With the imported folders gone the band has no models left, and no task keeps a band status.
    const a = await api();
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();
    await until('band statuses cleared after the imports were deleted', () => bandStatus(a, 'word-frequency') === undefined);
  });

  it('imports Harbor jobs and shows each task\'s band for the selected model in the Task Explorer', async () => {
    const a = await api();
    await a.diagnostics.whenIdle();
    const iconsBefore = new Map(a.taskExplorer.snapshot().flatMap((g) => g.tasks).map((t) => [t.id, t.icon]));
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-band-suite-'));
    const jobs = path.join(tmp, 'jobs');
    writeHarborJob(jobs, '2026-11-20__10-00-00', 'model-a', {
      'word-frequency': [1, 1], // 2/2 → too easy
      'semver-sort': [1, 0], // 1/2 → in band
      'csv-region-totals': [0, 0], // 0/2 → too hard
    });
    writeHarborJob(jobs, '2026-11-21__10-00-00', 'model-b', { 'word-frequency': [0, 0] });

    const report = await vscode.commands.executeCommand<{ k: number; models: { model: string }[] } | undefined>('taskwright.band.importResults', vscode.Uri.file(jobs));
    assert.ok(report, 'Import Results returned no report');
    assert.deepEqual(report.models.map((m) => m.model).sort(), ['model-a', 'model-b']);

    assert.equal(await vscode.commands.executeCommand('taskwright.band.selectModel', 'model-a'), 'model-a');
    await until('the status bar names the band model', () => a.statusBar.current().model === 'model-a');
    assert.match(a.statusBar.current().text, /\$\(graph\) model-a$/);
    const easy = bandStatus(a, 'word-frequency');
    assert.ok(easy, 'word-frequency has no band status after the import');
    assert.match(easy.summary, /^band for model-a: too easy — 2\/2 solved/);
    const inBand = bandStatus(a, 'semver-sort');
    assert.match(inBand?.summary ?? '(none)', /^band for model-a: in band — 1\/2 solved/);
    const hard = bandStatus(a, 'csv-region-totals');
    assert.match(hard?.summary ?? '(none)', /^band for model-a: too hard — 0\/2 solved/);
    // A task with no rollouts gets no band status.
    assert.equal(bandStatus(a, 'dedupe-contacts'), undefined);

    // The band is text on the row ("in band 50%"), never the icon: the icon stays the task's health.
    const rows = (): Map<string, { description: string; icon?: string }> => new Map(a.taskExplorer.snapshot().flatMap((g) => g.tasks).map((t) => [t.id, t]));
    await until('band text on the rows', () => /· too hard 0%$/.test(rows().get('csv-region-totals')?.description ?? ''));
    assert.match(rows().get('word-frequency')?.description ?? '', /· too easy 100%$/);
    assert.match(rows().get('semver-sort')?.description ?? '', /· in band 50%$/);
    assert.doesNotMatch(rows().get('dedupe-contacts')?.description ?? '', /band|too /);
    for (const id of ['csv-region-totals', 'word-frequency', 'semver-sort']) {
      assert.equal(rows().get(id)?.icon, iconsBefore.get(id), `${id}: the band changed the icon`);
    }

    // The filter narrows by band (for the selected model), and clears.
    await vscode.commands.executeCommand('taskwright.tasks.filter', { bands: ['too-hard'] });
    await until('only the too-hard task shown', () => JSON.stringify(a.taskExplorer.visibleTaskIds()) === JSON.stringify(['csv-region-totals']));
    await vscode.commands.executeCommand('taskwright.tasks.filter', { bands: ['in-band', 'too-easy'] });
    await until('in band and too easy shown', () => JSON.stringify(a.taskExplorer.visibleTaskIds()) === JSON.stringify(['semver-sort', 'word-frequency']));
    await vscode.commands.executeCommand('taskwright.tasks.clearFilter');
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), a.taskExplorer.taskIds());

    // Switching the model re-publishes every task's band: model-b only ran word-frequency, and failed it.
    assert.equal(await vscode.commands.executeCommand('taskwright.band.selectModel', 'model-b'), 'model-b');
    assert.match(bandStatus(a, 'word-frequency')?.summary ?? '(none)', /^band for model-b: too hard — 0\/2 solved/);
    assert.equal(bandStatus(a, 'semver-sort'), undefined, 'semver-sort has no rollouts of model-b');
  });
});
