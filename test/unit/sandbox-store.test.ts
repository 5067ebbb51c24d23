import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { listRuns, newRunId, parseTrialsJsonl, readRun, RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { tempDir } from '../support/tempDir';

function record(i: number, outcome: TrialRecord['outcome'] = 'passed'): TrialRecord {
  return {
    trial: `t${i}`, task: 'examples/tasks/x', taskId: 'x', agent: 'oracle', attempt: i, outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: '2026-01-01T00:00:00.000Z',
    durations: { build: 0, agent: 1, verifier: 1 }, logs: `trials/t${i}`,
  };
}

void describe('results store', () => {
  void it('appends whole lines and reads them back with the run parameters', () => {
    const dir = tempDir('tw-store-');
    const store = RunStore.create(dir, { id: newRunId('oracle'), kind: 'run', tasks: ['x'], concurrency: 1, retries: 0, startedAt: 'now', pid: process.pid });
    store.append(record(1));
    store.append({ ...record(2, 'infra-error'), infra: { kind: 'engine-unreachable', message: 'down' } });
    store.finish({ passed: 1, 'infra-error': 1 });
    const run = readRun(store.dir);
    assert.equal(run.trials.length, 2);
    assert.equal(run.skipped, 0);
    assert.equal(run.trials[1]?.infra?.kind, 'engine-unreachable');
    assert.deepEqual(run.params?.counts, { passed: 1, 'infra-error': 1 });
    assert.deepEqual(listRuns(dir), [store.dir]);
    assert.ok(fs.existsSync(store.trialDir('t1')));
  });

  void it('tolerates a torn last line (a writer killed mid-line)', () => {
    const whole = `${JSON.stringify(record(1))}\n${JSON.stringify(record(2, 'failed'))}\n`;
    const torn = `${whole}${JSON.stringify(record(3)).slice(0, 40)}`;
    const r = parseTrialsJsonl(torn);
    assert.deepEqual(r.trials.map((t) => t.trial), ['t1', 't2']);
    assert.equal(r.skipped, 1);
  });

  void it('skips lines that are JSON but not trial records', () => {
    const r = parseTrialsJsonl(`${JSON.stringify({ hello: 1 })}\n${JSON.stringify({ ...record(1), outcome: 'weird' })}\n${JSON.stringify(record(2))}\n`);
    assert.deepEqual(r.trials.map((t) => t.trial), ['t2']);
    assert.equal(r.skipped, 2);
  });

  void it('reads a run folder whose run.json is missing', () => {
    const dir = tempDir('tw-store-');
    fs.writeFileSync(path.join(dir, 'trials.jsonl'), `${JSON.stringify(record(1))}\n{"trial":`);
    const run = readRun(dir);
    assert.equal(run.params, undefined);
    assert.equal(run.trials.length, 1);
    assert.equal(run.skipped, 1);
  });
});
