// Runs inside the real VS Code extension host with `examples/` open and the real Docker Engine:
// "Resume Run…" on a run that was killed after its first attempt (a torn last ledger line, no
// finishedAt, a dead owner), started from the run's row in the Runs view, makes only the missing
// attempt, keeps the recorded one, and leaves no container behind. On a killed validation it runs
// only the checks without a verdict (`validate --resume`) and publishes the verdicts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { readRun } from '../../src/core/results/store';
import type { ResumeRunResult } from '../../src/extension/band/resumeRun';
import type { TaskValidation } from '../../src/core/validate/types';
import { readValidations } from '../../src/core/results/validations';
import { api, until, workspaceDir, EXTENSION_ID } from './helpers';

describe('Band: Resume Run', () => {
  const id = `20261203-000000-oracle-suite-${process.pid}`;
  const runDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs', id);

  after(() => {
    fs.rmSync(runDir(), { recursive: true, force: true });
  });

  it('makes only the attempts a killed run still owes', async function () {
    this.timeout(10 * 60_000);
    const dir = runDir();
    fs.mkdirSync(path.join(dir, 'trials', '001-word-frequency-oracle-a1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({
      id, kind: 'run', agent: 'oracle', tasks: ['tasks/word-frequency'], attempts: 2, concurrency: 1, retries: 0,
      startedAt: '2026-12-03T00:00:00Z', pid: 2_147_483_000, cwd: workspaceDir(),
    }));
    const kept = {
      trial: '001-word-frequency-oracle-a1', task: 'tasks/word-frequency', taskId: 'word-frequency', agent: 'oracle', attempt: 1, try: 1,
      outcome: 'passed', reward: 1, startedAt: '2026-12-03T00:00:01Z', durations: { build: 1, agent: 1, verifier: 1 }, logs: 'trials/001-word-frequency-oracle-a1',
    };
    fs.writeFileSync(path.join(dir, 'trials.jsonl'), `${JSON.stringify(kept)}\n{"trial":"002-word-frequency-oracle-a2","ta`);

    // The Runs view shows it as interrupted, with Resume Run… among that row's actions.
    const a = await api();
    await vscode.commands.executeCommand('taskwright.runs.refresh');
    await until('the killed run in the Runs view', () => a.runs.shownRunDirs().includes(dir));
    const row = (await a.runs.snapshot(1))[a.runs.shownRunDirs().indexOf(dir)];
    assert.equal(row?.contextValue, 'taskwright.run.interrupted', `the run's row: ${JSON.stringify(row)}`);
    const menus = (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { menus: Record<string, { command: string; when?: string }[]> } }).contributes.menus['view/item/context'] ?? [];
    assert.ok(menus.some((m) => m.command === 'taskwright.band.resumeRun' && m.when === 'view == taskwright.runs && viewItem == taskwright.run.interrupted'), 'Resume Run… on an interrupted run\'s row');
    const node = a.runs.node(dir) as { kind?: string } | undefined;
    assert.equal(node?.kind, 'run');

    const r = await vscode.commands.executeCommand<ResumeRunResult | undefined>('taskwright.band.resumeRun', node);
    assert.ok(r, 'Resume Run returned nothing');
    assert.equal(r.kept, 1);
    assert.deepEqual(r.ran.map((t) => [t.attempt, t.outcome]), [[2, 'passed']]);
    const run = readRun(dir);
    assert.equal(run.skipped, 0, 'the torn line was cut');
    assert.deepEqual(run.trials.map((t) => [t.attempt, t.trial === kept.trial]), [[1, true], [2, false]]);
    assert.ok(run.params?.finishedAt, 'the run is marked finished again');
    const left = execFileSync('docker', ['ps', '-aq', '--filter', `label=taskwright.run=${id}`], { encoding: 'utf8' }).trim();
    assert.equal(left, '', `containers left behind by run ${id}`);
  });
});

describe('Band: Resume Run on a validation', () => {
  const id = `20261203-000000-validate-suite-${process.pid}`;
  const runDir = (): string => path.join(workspaceDir(), '.taskwright', 'runs', id);

  after(() => {
    fs.rmSync(runDir(), { recursive: true, force: true });
  });

  it('runs only the checks a killed validation has no verdict for, and writes its verdicts', async function () {
    this.timeout(10 * 60_000);
    const dir = runDir();
    const trial = '001-word-frequency-nop-a1';
    fs.mkdirSync(path.join(dir, 'trials', trial), { recursive: true });
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({
      id, kind: 'validate', tasks: ['tasks/word-frequency'], attempts: 1, concurrency: 1, retries: 0,
      validate: { probes: false, mutants: 0, behaviour: false, seed: 1 },
      startedAt: '2026-12-03T00:00:00Z', pid: 2_147_483_000, cwd: workspaceDir(),
    }));
    const kept = {
      trial, task: 'tasks/word-frequency', taskId: 'word-frequency', agent: 'nop', check: 'nop', attempt: 1, try: 1,
      outcome: 'failed', reward: 0, startedAt: '2026-12-03T00:00:01Z', durations: { build: 1, agent: 0, verifier: 1 }, logs: `trials/${trial}`,
    };
    fs.writeFileSync(path.join(dir, 'trials.jsonl'), `${JSON.stringify(kept)}\n{"trial":"002-word-frequency-oracle-a1","ta`);

    const a = await api();
    await vscode.commands.executeCommand('taskwright.runs.refresh');
    await until('the killed validation in the Runs view', () => a.runs.shownRunDirs().includes(dir));
    const row = (await a.runs.snapshot(1))[a.runs.shownRunDirs().indexOf(dir)];
    assert.equal(row?.contextValue, 'taskwright.run.interrupted', `the validation's row: ${JSON.stringify(row)}`);

    const r = await vscode.commands.executeCommand<readonly TaskValidation[] | undefined>('taskwright.band.resumeRun', a.runs.node(dir));
    assert.ok(Array.isArray(r) && r.length === 1, `Resume Run on a validation returned ${JSON.stringify(r)}`);
    const run = readRun(dir);
    assert.equal(run.skipped, 0, 'the torn line was cut');
    assert.deepEqual(run.trials.map((t) => [t.check, t.trial === kept.trial]), [['nop', true], ['oracle', false]], 'nop kept, only the oracle ran');
    assert.deepEqual(readValidations(dir)?.map((v) => v.path), ['tasks/word-frequency']);
    const left = execFileSync('docker', ['ps', '-aq', '--filter', `label=taskwright.run=${id}`], { encoding: 'utf8' }).trim();
    assert.equal(left, '', `containers left behind by ${id}`);
  });
});
