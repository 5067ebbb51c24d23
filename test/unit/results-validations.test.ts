import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RunStore } from '../../src/core/results/store';
import { latestValidations, readValidations, VALIDATION_FILE, writeValidations } from '../../src/core/results/validations';
import type { TaskValidation } from '../../src/core/validate/types';
import { tempDir } from '../support/tempDir';

function validation(taskPath: string, verdict: TaskValidation['verdict']): TaskValidation {
  return {
    path: taskPath, id: path.basename(taskPath), verdict,
    checks: [{ name: 'nop', status: verdict === 'valid' ? 'pass' : 'fail', runs: 1, detail: '' }],
    findings: verdict === 'valid' ? [] : [{ rule: 'nop-passes', class: 'misalignment', severity: 'error', message: 'm', file: 'tests/test.sh' }],
    trials: [],
  } as TaskValidation;
}

function validateRun(root: string, id: string, startedAt: string, results: TaskValidation[]): string {
  const store = RunStore.create(root, { id, kind: 'validate', tasks: results.map((r) => r.path), concurrency: 1, retries: 0, startedAt, pid: process.pid });
  store.finish({});
  writeValidations(store.dir, results);
  return store.dir;
}

void describe('stored validations', () => {
  void it('writes the verdicts beside the trials (without them) and reads them back', () => {
    const root = tempDir('tw-val-');
    const dir = validateRun(root, 'v1', '2026-01-01T00:00:00.000Z', [validation('tasks/a', 'misaligned')]);
    const raw = JSON.parse(fs.readFileSync(path.join(dir, VALIDATION_FILE), 'utf8')) as { version: number; tasks: Record<string, unknown>[] };
    assert.equal(raw.version, 1);
    assert.equal('trials' in (raw.tasks[0] ?? {}), false, 'trials stay in trials.jsonl');
    const back = readValidations(dir);
    assert.equal(back?.[0]?.verdict, 'misaligned');
    assert.equal(back?.[0]?.findings[0]?.rule, 'nop-passes');
  });

  void it('keeps each task\'s latest validation and ignores malformed entries', () => {
    const root = tempDir('tw-val-');
    validateRun(root, 'old', '2026-01-01T00:00:00.000Z', [validation('tasks/a', 'misaligned'), validation('tasks/b', 'brittle')]);
    const newer = validateRun(root, 'new', '2026-01-02T00:00:00.000Z', [validation('tasks/a', 'valid')]);
    const latest = latestValidations(root);
    assert.equal(latest.get('tasks/a')?.validation.verdict, 'valid');
    assert.equal(latest.get('tasks/a')?.runDir, newer);
    assert.equal(latest.get('tasks/b')?.validation.verdict, 'brittle');
    fs.writeFileSync(path.join(newer, VALIDATION_FILE), JSON.stringify({ version: 1, tasks: [{ path: 'tasks/c', id: 'c', verdict: 'nonsense', checks: [], findings: [] }, { path: 'tasks/d', id: 'd', verdict: 'valid', checks: [], findings: [{ rule: 1 }] }] }));
    const again = latestValidations(root);
    assert.equal(again.has('tasks/c'), false, 'an unknown verdict is not read');
    assert.deepEqual(again.get('tasks/d')?.validation.findings, [], 'a malformed finding is dropped');
    assert.equal(readValidations(path.join(root, 'missing')), undefined);
  });
});
