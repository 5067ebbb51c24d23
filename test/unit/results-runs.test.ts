import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { deleteRun, formatSeconds, groupByTask, ResultsReader, summarizeRun, trialLogFiles, trialLogsDir } from '../../src/core/results/runs';
import { RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { tempDir } from '../support/tempDir';

function rec(trial: string, task: string, attempt: number, outcome: TrialRecord['outcome'], extra: Partial<TrialRecord> = {}): TrialRecord {
  return {
    trial, task: `tasks/${task}`, taskId: task, agent: 'oracle', attempt, outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: `2026-01-01T00:0${attempt}:00.000Z`,
    durations: { build: 1, agent: 2, verifier: 3 }, logs: `trials/${trial}`, ...extra,
  };
}

function store(root: string, id: string, pid = process.pid): RunStore {
  return RunStore.create(root, { id, kind: 'run', agent: 'anthropic:m', model: 'm', tasks: [], concurrency: 1, retries: 2, startedAt: `2026-01-01T00:00:0${id.length % 10}.000Z`, pid });
}

void describe('results store as runs', () => {
  void it('groups trials by task, orders attempts and tries, and counts an attempt by its last try', () => {
    const groups = groupByTask([
      rec('c', 'b-task', 2, 'failed'),
      rec('b', 'b-task', 1, 'passed', { try: 2 }),
      rec('a', 'b-task', 1, 'infra-error', { try: 1 }),
      rec('d', 'a-task', 1, 'failed'),
    ]);
    assert.deepEqual(groups.map((g) => [g.taskId, g.trials.map((t) => t.trial), g.passed, g.attempts]), [
      ['a-task', ['d'], 0, 1],
      ['b-task', ['a', 'b', 'c'], 1, 2],
    ]);
  });

  void it('leaves attempts that only hit infra errors out of the count, as the band does', () => {
    const [g] = groupByTask([rec('a', 'x', 1, 'passed'), rec('b', 'x', 2, 'infra-error', { try: 1 }), rec('c', 'x', 2, 'infra-error', { try: 2 })]);
    assert.deepEqual([g?.passed, g?.attempts, g?.trials.length], [1, 1, 3]);
  });

  void it('counts each agent\'s attempts apart (a validation runs oracle and nop with the same attempt numbers)', () => {
    const [g] = groupByTask([
      rec('o1', 'x', 1, 'passed', { agent: 'oracle' }),
      rec('n1', 'x', 1, 'failed', { agent: 'nop' }),
      rec('o2', 'x', 2, 'passed', { agent: 'oracle' }),
      rec('n2', 'x', 2, 'failed', { agent: 'nop' }),
    ]);
    assert.deepEqual(g?.agents, [{ agent: 'nop', attempts: 2, passed: 0 }, { agent: 'oracle', attempts: 2, passed: 2 }]);
    assert.equal(g?.attempts, 4);
    assert.equal(g?.passed, 2);
    assert.deepEqual(g?.trials.map((t) => t.trial), ['n1', 'o1', 'n2', 'o2'], 'by attempt, then agent');
  });

  void it('tells finished, running and interrupted runs apart', () => {
    const root = tempDir('tw-runs-');
    const done = store(root, 'done');
    done.append(rec('t1', 'x', 1, 'passed'));
    done.finish({ passed: 1 });
    const live = store(root, 'live', 4242);
    live.append(rec('t1', 'x', 1, 'failed'));
    assert.equal(summarizeRun(done.dir, () => true).state, 'finished');
    assert.equal(summarizeRun(live.dir, (pid) => pid === 4242).state, 'running');
    const gone = summarizeRun(live.dir, () => false);
    assert.equal(gone.state, 'interrupted');
    assert.deepEqual(gone.counts, { failed: 1 });
    assert.equal(gone.model, 'm');
  });

  void it('rereads only the runs whose files changed, sees appended trials and deleted runs', () => {
    const root = tempDir('tw-runs-');
    const a = store(root, 'aa');
    a.append(rec('t1', 'x', 1, 'passed'));
    a.finish({ passed: 1 });
    const b = store(root, 'bbb');
    b.append(rec('t1', 'x', 1, 'failed'));
    const reader = new ResultsReader(root, () => false);
    const first = reader.read();
    assert.deepEqual(first.map((r) => r.id), ['bbb', 'aa'], 'newest start first');
    const again = reader.read();
    assert.equal(again[1], first[1], 'an unchanged run is the cached summary');
    fs.appendFileSync(path.join(b.dir, 'trials.jsonl'), `${JSON.stringify(rec('t2', 'x', 2, 'passed'))}\n`);
    const grown = reader.read();
    assert.equal(grown[0]?.trials.length, 2);
    assert.equal(grown[0]?.tasks[0]?.passed, 1);
    deleteRun(root, a.dir);
    assert.deepEqual(reader.read().map((r) => r.id), ['bbb']);
  });

  void it('refuses to delete anything but a run folder of the results folder', () => {
    const root = tempDir('tw-runs-');
    const other = tempDir('tw-other-');
    fs.mkdirSync(path.join(root, 'not-a-run'));
    assert.throws(() => deleteRun(root, other), /not a run folder/);
    assert.throws(() => deleteRun(root, path.join(root, 'not-a-run')), /not a run folder/);
    assert.throws(() => deleteRun(root, root), /not a run folder/);
    assert.ok(fs.existsSync(other) && fs.existsSync(path.join(root, 'not-a-run')));
  });

  void it('lists a trial\'s log files, key logs first, and keeps logs inside the run folder', async () => {
    const root = tempDir('tw-runs-');
    const s = store(root, 'logs');
    const t = rec('t1', 'x', 1, 'failed');
    const dir = s.trialDir('t1');
    for (const f of ['zeta.txt', 'agent.log', 'verdict.txt']) fs.writeFileSync(path.join(dir, f), f);
    fs.mkdirSync(path.join(dir, 'verifier'));
    fs.writeFileSync(path.join(dir, 'verifier', 'reward.txt'), '0');
    assert.deepEqual(await trialLogFiles(s.dir, t), ['verdict.txt', 'agent.log', 'verifier/reward.txt', 'zeta.txt']);
    assert.equal(trialLogsDir(s.dir, { ...t, logs: '../../etc' }), path.join(s.dir, 'trials', 't1'));
    assert.deepEqual(await trialLogFiles(s.dir, rec('none', 'x', 1, 'failed')), []);
  });

  void it('formats durations', () => {
    assert.deepEqual([formatSeconds(42.4), formatSeconds(185), formatSeconds(3720)], ['42s', '3m 05s', '1h 02m']);
  });
});
