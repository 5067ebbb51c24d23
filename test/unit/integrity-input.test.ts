import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { computeBand } from '../../src/core/band/compute';
import { parseYamlWithSources } from '../../src/core/loader/yamlSource';
import { newRunId, readRun, repairTrialsFile, RunStore, TRIALS_FILE } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { tempDir } from '../support/tempDir';

function record(i: number, task: string, outcome: TrialRecord['outcome']): TrialRecord {
  return {
    trial: `t${i}`, task, taskId: path.basename(task), agent: 'oracle', attempt: i, try: 1, outcome,
    reward: outcome === 'passed' ? 1 : 0, startedAt: '2026-01-01T00:00:00.000Z',
    durations: { build: 0, agent: 1, verifier: 1 }, logs: `trials/t${i}`,
  };
}

function tmp(): string {
  return tempDir('tw-input-');
}

function captureIo(cwd: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {}, signal: new AbortController().signal }, out, err };
}

function runStore(dir: string, records: readonly TrialRecord[]): RunStore {
  const s = RunStore.create(dir, { id: newRunId('oracle'), kind: 'run', tasks: [], attempts: 2, concurrency: 1, retries: 0, startedAt: 'now', pid: process.pid });
  for (const r of records) s.append(r);
  s.finish({});
  return s;
}

void describe('counting: tasks are told apart by path, files read whatever their size or mark', () => {
  void it('gives two same-named tasks in different folders two band rows', () => {
    const dir = tmp();
    runStore(dir, [
      record(1, 'suite-a/hello', 'passed'), record(2, 'suite-a/hello', 'passed'),
      record(3, 'suite-b/hello', 'failed'), record(4, 'suite-b/hello', 'failed'),
    ]);
    const { report } = computeBand([dir], { k: 2 });
    const rows = report.models[0]!.tasks.map((t) => `${t.path} ${t.successes}/${t.attempts} ${t.band}`);
    assert.deepEqual(rows, ['suite-a/hello 2/2 too-easy', 'suite-b/hello 0/2 too-hard']);
  });

  void it('accepts a byte-order mark at the start of trials.jsonl', () => {
    const dir = tmp();
    const s = runStore(dir, []);
    fs.writeFileSync(path.join(s.dir, TRIALS_FILE), `\uFEFF${JSON.stringify(record(1, 'x', 'passed'))}\n${JSON.stringify(record(2, 'x', 'failed'))}\n`);
    const r = readRun(s.dir);
    assert.deepEqual([r.trials.length, r.skipped], [2, 0]);
  });

  void it('reads a file in chunks: records split across chunk boundaries and a huge foreign line', () => {
    const dir = tmp();
    const s = runStore(dir, []);
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) lines.push(JSON.stringify({ ...record(i, `t/${i % 7}`, i % 3 ? 'passed' : 'failed'), error: 'x'.repeat(i % 400) }));
    lines.splice(100, 0, 'y'.repeat(70 * 1024 * 1024));
    fs.writeFileSync(path.join(s.dir, TRIALS_FILE), `${lines.join('\n')}\n`);
    const r = readRun(s.dir);
    assert.deepEqual([r.trials.length, r.skipped], [30_000, 1]);
  });

  void it('repairs a torn last line on open, so the next record starts its own line', () => {
    const dir = tmp();
    const s = runStore(dir, [record(1, 'x', 'passed')]);
    const file = path.join(s.dir, TRIALS_FILE);
    fs.appendFileSync(file, JSON.stringify(record(2, 'x', 'passed')).slice(0, 30));
    const reopened = RunStore.open(s.dir);
    assert.ok(reopened.repaired > 0);
    reopened.append(record(3, 'x', 'failed'));
    reopened.finish({});
    const r = readRun(s.dir);
    assert.deepEqual([r.trials.map((t) => t.trial), r.skipped], [['t1', 't3'], 0]);
    assert.equal(repairTrialsFile(file), 0);
  });
});

void describe('YAML: many anchors are refused, big maps load in linear time', () => {
  void it('refuses a document with thousands of aliases with a clear problem', () => {
    let t = 'instruction: hi\n';
    for (let i = 0; i < 3000; i++) t += `k${i}: &a${i} v${i}\n`;
    t += 'refs:\n';
    for (let i = 0; i < 3000; i++) t += `  - *a${i}\n`;
    const r = parseYamlWithSources(t);
    assert.equal(r.data, undefined);
    assert.match(r.errors[0]?.message ?? '', /3000 YAML aliases .* more than the 256/);
  });

  void it('still reports duplicate keys, and keeps a few aliases working', () => {
    const r = parseYamlWithSources('a: &x 1\nb: *x\na: 2\n');
    assert.deepEqual(r.errors.map((e) => [e.message, e.range.start.line]), [['Map keys must be unique', 2]]);
    assert.deepEqual(parseYamlWithSources('a: &x 1\nb: *x\n').data, { a: 1, b: 1 });
  });
});

void describe('cli: bad input is a clear message and exit 2, never a stack trace', () => {
  const cases: [string, (dir: string) => string[], RegExp][] = [
    ['--results naming a file', (d) => { fs.writeFileSync(path.join(d, 'f.txt'), ''); return ['run', d, '--agent', 'oracle', '--results', path.join(d, 'f.txt')]; }, /--results .*is a file, not a folder/],
    ['--html into a missing folder', (d) => ['band', d, '--html', path.join(d, 'nope', 'band.html')], /--html .* does not exist/],
    ['--runs 1e20', (d) => ['validate', d, '--runs', '1e20'], /--runs takes a whole number from 1 to 100000 \(got '1e20'\)/],
    ['--attempts 2.5', (d) => ['run', d, '--agent', 'oracle', '--attempts', '2.5'], /--attempts takes a whole number/],
    ['band on a missing path', (d) => ['band', path.join(d, 'missing-run')], /no such file or folder: .*missing-run/],
    ['openai:<model> without a URL', (d) => ['run', d, '--agent', 'openai:gpt-4o'], /name the server, e\.g\. openai:gpt-4o@http/],
  ];
  for (const [name, argv, message] of cases) {
    void it(name, async () => {
      const d = tmp();
      const { io, err } = captureIo(d);
      const code = await main(argv(d), io);
      const text = err.join('\n');
      assert.equal(code, 2, text);
      assert.match(text, message);
      assert.doesNotMatch(text, /\n\s+at .*\(/, 'a stack trace was printed');
    });
  }
});
