// Runs inside the real VS Code extension host with `examples/` open: "Import Results…" reads Harbor
// job folders written by this test (two models, rollouts of example tasks), the Task Explorer shows
// each task's solvability band for the selected model, and "Select Band Model…" switches it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { TaskwrightApi } from '../../src/extension/api';
import { api, until } from './helpers';

function taskDir(id: string): string {
  const ws = vscode.workspace.workspaceFolders?.[0];
  assert.ok(ws, 'no workspace folder open (the rig opens examples/)');
  const dir = path.join(ws.uri.fsPath, 'tasks', id);
  assert.ok(fs.existsSync(dir), `example task ${id} is missing at ${dir}`);
  return dir;
}

/** Rewards per task: one trial folder per entry, in start order. */
type Rollouts = Readonly<Record<string, readonly number[]>>;

/**
 * A finished Harbor job as Harbor writes it (`<job>/config.json`, `<job>/result.json`, one
 * `<task>__<id>/result.json` per trial), reduced to the fields a TrialResult always carries.
 */
function writeHarborJob(jobsDir: string, job: string, model: string, rollouts: Rollouts): void {
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
    const easy = bandStatus(a, 'word-frequency');
    assert.ok(easy, 'word-frequency has no band status after the import');
    assert.match(easy.summary, /^band for model-a: too easy — 2\/2 solved/);
    assert.equal(easy.level, 'info');
    const inBand = bandStatus(a, 'semver-sort');
    assert.match(inBand?.summary ?? '(none)', /^band for model-a: in band — 1\/2 solved/);
    assert.equal(inBand?.level, 'ok');
    const hard = bandStatus(a, 'csv-region-totals');
    assert.match(hard?.summary ?? '(none)', /^band for model-a: too hard — 0\/2 solved/);
    assert.equal(hard?.level, 'warning');
    // A task with no rollouts gets no band status.
    assert.equal(bandStatus(a, 'dedupe-contacts'), undefined);

    // The explorer draws the worst status as the task's icon: a too-hard task is at least a warning.
    const row = a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === 'csv-region-totals');
    assert.ok(row, 'csv-region-totals is not in the Task Explorer');
    assert.ok(row.icon === 'warning' || row.icon === 'error', `csv-region-totals icon is ${row.icon ?? 'none'}`);

    // Switching the model re-publishes every task's band: model-b only ran word-frequency, and failed it.
    assert.equal(await vscode.commands.executeCommand('taskwright.band.selectModel', 'model-b'), 'model-b');
    assert.match(bandStatus(a, 'word-frequency')?.summary ?? '(none)', /^band for model-b: too hard — 0\/2 solved/);
    assert.equal(bandStatus(a, 'semver-sort'), undefined, 'semver-sort has no rollouts of model-b');
  });
});
