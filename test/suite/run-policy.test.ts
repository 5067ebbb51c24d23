// Runs inside the real VS Code extension host with `examples/` open and the real Docker Engine: "Run
// Policy…" with the oracle on one task records its trial in the results store (the Runs view lists the
// new run), and the band model the Task Explorer and the status bar show stays the one the user chose.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, until, workspaceDir } from './helpers';

const runsDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs');
const listRuns = (): string[] => (fs.existsSync(runsDir()) ? fs.readdirSync(runsDir()) : []);

describe('Run Policy', () => {
  const before = new Set<string>();

  after(() => {
    for (const id of listRuns().filter((r) => !before.has(r))) fs.rmSync(path.join(runsDir(), id), { recursive: true, force: true });
  });

  it('records the trials, lists the run, and never switches the chosen band model', async function () {
    this.timeout(10 * 60_000);
    for (const r of listRuns()) before.add(r);
    const a = await api();
    // A run of another model, chosen as the band model.
    const kept = path.join(runsDir(), '20261126-100000-keep-me');
    fs.mkdirSync(path.join(kept, 'trials'), { recursive: true });
    fs.writeFileSync(path.join(kept, 'run.json'), JSON.stringify({ id: path.basename(kept), kind: 'run', agent: 'anthropic:keep-me', model: 'keep-me', tasks: ['tasks/semver-sort'], attempts: 1, concurrency: 1, retries: 0, startedAt: '2026-11-26T10:00:00.000Z', finishedAt: '2026-11-26T10:01:00.000Z', pid: 1 }));
    fs.writeFileSync(path.join(kept, 'trials.jsonl'), `${JSON.stringify({ trial: 'k1', task: 'tasks/semver-sort', taskId: 'semver-sort', agent: 'anthropic:keep-me', model: 'keep-me', attempt: 1, outcome: 'passed', reward: 1, startedAt: '2026-11-26T10:00:00.000Z', durations: { build: 1, agent: 5, verifier: 1 }, logs: 'trials/k1' })}\n`);
    await until('keep-me chosen and shown', () => {
      void vscode.commands.executeCommand('taskwright.band.selectModel', 'keep-me');
      return a.statusBar.current().model === 'keep-me';
    });

    const records = await vscode.commands.executeCommand<{ outcome: string; reward: number | null }[] | undefined>('taskwright.band.runPolicy', path.join(workspaceDir(), 'tasks', 'semver-sort'), 'oracle', 1);
    assert.deepEqual(records?.map((r) => [r.outcome, r.reward]), [['passed', 1]]);
    const created = listRuns().filter((r) => !before.has(r) && r !== path.basename(kept));
    assert.equal(created.length, 1, 'one new run folder');
    await vscode.commands.executeCommand('taskwright.runs.focus');
    await until('the run in the Runs view', () => a.runs.shownRunDirs().includes(path.join(runsDir(), created[0]!)));
    assert.equal(a.statusBar.current().model, 'keep-me', 'the chosen band model is kept');
    assert.equal(a.statusBar.current().running, 0);
  });
});
