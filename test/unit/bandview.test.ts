import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BANDS, type Band, type ModelBandReport, type TaskBandRow } from '../../src/core/band/types';
import { idOf, indexOfId, rowAt, toColumns, toRows, type ColumnModel, type TaskColumns } from '../../src/core/bandview/columns';
import { classifyAt, classifyModel, totalCount } from '../../src/core/bandview/classify';
import { formatExport, tasksInBand } from '../../src/core/bandview/exportList';
import { binIndex, binRates, suggestedBins } from '../../src/core/bandview/histogram';
import { pairModels } from '../../src/core/bandview/pairing';
import { naturalCompare, naturalKey, queryRows, visibleRange } from '../../src/core/bandview/table';
import { checkpointStep, checkpointTrends } from '../../src/core/bandview/trend';
import { buildReportView } from '../../src/core/bandview/view';
import { reportFromResults } from '../../src/extension/panel/loadReport';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/band/workspace');

function row(id: string, attempts: number, successes: number, extra: Partial<TaskBandRow> = {}): TaskBandRow {
  return { id, path: `tasks/${id}`, attempts, successes, infraErrors: 0, passAt1: attempts ? successes / attempts : null, passAtK: null, band: 'in-band', ...extra };
}

/** Models as the panel holds them: columns over one report (one id table). */
function columns(...models: ModelBandReport[]): ColumnModel[] {
  return [...toColumns({ version: 1, k: 2, models }).models];
}
const cols = (tasks: TaskBandRow[]): TaskColumns => columns(model('m', tasks))[0]!.tasks;

function model(name: string, tasks: TaskBandRow[], checkpoint?: string): ModelBandReport {
  const counts = { 'too-easy': 0, 'in-band': 0, 'too-hard': 0, broken: 0, insufficient: 0 };
  for (const t of tasks) counts[t.band]++;
  return { model: name, ...(checkpoint ? { checkpoint } : {}), meanPassAtK: null, interval: null, counts, infraErrors: tasks.reduce((s, t) => s + t.infraErrors, 0), tasks };
}

void describe('band view: classification at thresholds', () => {
  const t = { low: 0, high: 1 };
  void it('bands a 2-attempt task by its successes at the default thresholds', () => {
    assert.equal(classifyAt(row('a', 2, 0), 2, t), 'too-hard');
    assert.equal(classifyAt(row('a', 2, 1), 2, t), 'in-band');
    assert.equal(classifyAt(row('a', 2, 2), 2, t), 'too-easy');
    assert.equal(classifyAt(row('a', 1, 1), 2, t), 'insufficient');
    assert.equal(classifyAt(row('a', 2, 1, { pending: true }), 2, t), 'insufficient');
  });
  void it('keeps broken tasks broken whatever the thresholds', () => {
    assert.equal(classifyAt(row('a', 2, 1, { band: 'broken' }), 2, { low: 0.9, high: 0.95 }), 'broken');
  });
  void it('re-bands at moved thresholds: 1/2 becomes too easy at high 50%, too hard at low 50%', () => {
    assert.equal(classifyAt(row('a', 2, 1), 2, { low: 0, high: 0.5 }), 'too-easy');
    assert.equal(classifyAt(row('a', 2, 1), 2, { low: 0.5, high: 1 }), 'too-hard');
    assert.equal(classifyAt(row('a', 10, 3), 2, { low: 0.2, high: 0.8 }), 'in-band');
  });
  void it('is monotone: raising the success count never moves a task toward too hard', () => {
    const order: Record<Band, number> = { 'too-hard': 0, 'in-band': 1, 'too-easy': 2, broken: -1, insufficient: -1 };
    fc.assert(fc.property(fc.integer({ min: 2, max: 20 }), fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 0.95, noNaN: true }), fc.double({ min: 0.01, max: 0.99, noNaN: true }),
      (n, c0, low, gap) => {
        const c = Math.min(c0, n - 1);
        const th = { low, high: Math.min(1, low + gap) };
        if (th.high <= th.low) return;
        assert.ok(order[classifyAt(row('x', n, c + 1), 2, th)] >= order[classifyAt(row('x', n, c), 2, th)]);
      }));
  });
  void it('counts every task exactly once, and keeps the report bands at the report thresholds', () => {
    const tasks = [row('a', 2, 2, { band: 'too-easy' }), row('b', 2, 1), row('c', 2, 0, { band: 'too-hard' }), row('d', 1, 0, { band: 'insufficient' })];
    const [m] = columns(model('m', tasks));
    const c = classifyModel('m', m!, 2, { low: 0, high: 1 }, { low: 0, high: 1 });
    assert.deepEqual(c.counts, { 'too-easy': 1, 'in-band': 1, 'too-hard': 1, broken: 0, insufficient: 1 });
    const moved = classifyModel('m', m!, 2, { low: 0, high: 0.5 }, { low: 0, high: 1 });
    assert.equal(c.scored, 0, 'no row has a pass@k');
    assert.deepEqual(moved.counts, { 'too-easy': 2, 'in-band': 0, 'too-hard': 1, broken: 0, insufficient: 1 });
    assert.equal(totalCount(moved.counts), tasks.length);
  });
});

void describe('band view: histogram binning', () => {
  void it('puts 0 in the first bin and 1 in the last, and counts missing rates apart', () => {
    const { bins, missing, max } = binRates([0, 0.5, 1, 1, null], ['too-hard', 'in-band', 'too-easy', 'too-easy', 'insufficient'], 3);
    assert.deepEqual(bins.map((b) => b.total), [1, 1, 2]);
    assert.equal(bins[2]!.byBand['too-easy'], 2);
    assert.equal(missing, 1);
    assert.equal(max, 2);
  });
  void it('gives each rate k/n its own bin with n+1 bins', () => {
    for (let n = 1; n <= 10; n++) {
      const bins = suggestedBins(n);
      const idx = Array.from({ length: n + 1 }, (_, k) => binIndex(k / n, bins));
      assert.deepEqual(idx, Array.from({ length: n + 1 }, (_, k) => k), `n=${n}`);
    }
    assert.equal(suggestedBins(50), 20);
  });
  void it('conserves the number of tasks (property)', () => {
    fc.assert(fc.property(fc.array(fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null })), fc.integer({ min: 1, max: 40 }), (rates, n) => {
      const { bins, missing } = binRates(rates, rates.map(() => 'in-band' as Band), n);
      assert.equal(bins.reduce((s, b) => s + b.total, 0) + missing, rates.length);
      for (const b of bins) assert.equal(BANDS.reduce((s, x) => s + b.byBand[x], 0), b.total);
    }));
  });
  void it('rejects a bin count that is not a positive integer', () => {
    assert.throws(() => binRates([0.5], ['in-band'], 0), /binCount/);
  });
});

void describe('band view: table sorting and filtering', () => {
  const rows = [row('task-10', 2, 1, { passAtK: 1 }), row('task-2', 2, 2, { passAtK: 1 }), row('task-1', 2, 0, { passAtK: 0 }), row('other', 0, 0, { passAtK: null })];
  const bands: Band[] = ['in-band', 'too-easy', 'too-hard', 'insufficient'];
  const table = cols(rows);
  const ids = (order: number[]): string[] => order.map((i) => idOf(table, i));
  void it('sorts ids naturally (task-2 before task-10)', () => {
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'id', dir: 'asc' }, filter: '' })), ['other', 'task-1', 'task-2', 'task-10']);
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'id', dir: 'desc' }, filter: '' })), ['task-10', 'task-2', 'task-1', 'other']);
  });
  void it('sorts numbers with ties broken by id, and missing values last in both directions', () => {
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'passAtK', dir: 'desc' }, filter: '' })), ['task-2', 'task-10', 'task-1', 'other']);
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'passAtK', dir: 'asc' }, filter: '' })), ['task-1', 'task-2', 'task-10', 'other']);
  });
  void it('sorts by band in band order', () => {
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'band', dir: 'asc' }, filter: '' })), ['task-2', 'task-10', 'task-1', 'other']);
  });
  void it('keeps rows that arrive in id order without re-sorting, and sorts rows that do not', () => {
    const sorted = [row('a-1', 2, 1), row('a-2', 2, 1), row('a-10', 2, 1), row('B-3', 2, 1)];
    const b4: Band[] = ['in-band', 'in-band', 'in-band', 'in-band'];
    assert.deepEqual(queryRows(cols(sorted), b4, { sort: { column: 'id', dir: 'asc' }, filter: '' }), [0, 1, 2, 3]);
    assert.deepEqual(queryRows(cols(sorted), b4, { sort: { column: 'id', dir: 'desc' }, filter: '' }), [3, 2, 1, 0]);
    const shuffled = [sorted[2]!, sorted[0]!, sorted[3]!, sorted[1]!];
    const sh = cols(shuffled);
    assert.deepEqual(queryRows(sh, b4, { sort: { column: 'id', dir: 'asc' }, filter: '' }).map((i) => idOf(sh, i)), ['a-1', 'a-2', 'a-10', 'B-3']);
  });
  void it('compares ids in the same natural order as the sort keys (property)', () => {
    const id = fc.array(fc.oneof(fc.constantFrom('a', 'B', 'z', '-', '_', '.'), fc.integer({ min: 0, max: 99_999 }).map(String), fc.constantFrom('0', '007')), { maxLength: 6 }).map((p) => p.join(''))
      // Sort keys pad digit runs to 12 places; ids with longer runs are beyond what keys promise.
      .filter((s) => !/\d{13}/.test(s));
    fc.assert(fc.property(id, id, (a, b) => {
      const ka = naturalKey(a), kb = naturalKey(b);
      const want = ka < kb ? -1 : ka > kb ? 1 : 0;
      assert.equal(Math.sign(naturalCompare(a, b)), want, `${a} vs ${b}`);
    }));
  });
  void it('filters by words in id or path, by band and by a picked set', () => {
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'id', dir: 'asc' }, filter: 'TASK 1' })), ['task-1', 'task-10']);
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'id', dir: 'asc' }, filter: '', bands: ['too-hard', 'too-easy'] })), ['task-1', 'task-2']);
    assert.deepEqual(ids(queryRows(table, bands, { sort: { column: 'id', dir: 'asc' }, filter: '', only: new Set(['other']) })), ['other']);
  });
  void it('returns a permutation of the matching rows (property)', () => {
    fc.assert(fc.property(fc.array(fc.record({ a: fc.integer({ min: 0, max: 5 }), s: fc.integer({ min: 0, max: 5 }) }), { maxLength: 60 }), (spec) => {
      const rs = spec.map((x, i) => row(`t${i}`, x.a, Math.min(x.s, x.a)));
      const order = queryRows(cols(rs), rs.map(() => 'in-band' as Band), { sort: { column: 'successes', dir: 'desc' }, filter: '' });
      assert.deepEqual([...order].sort((a, b) => a - b), rs.map((_, i) => i));
      for (let i = 1; i < order.length; i++) assert.ok(rs[order[i - 1]!]!.successes >= rs[order[i]!]!.successes);
    }));
  });
  void it('renders only the rows in view, plus overscan', () => {
    assert.deepEqual(visibleRange(0, 260, 26, 10_000, 5), { start: 0, end: 16 });
    assert.deepEqual(visibleRange(26 * 5000, 260, 26, 10_000, 5), { start: 4995, end: 5016 });
    assert.deepEqual(visibleRange(26 * 20_000, 260, 26, 10_000, 5), { start: 10_000, end: 10_000 });
    assert.deepEqual(visibleRange(0, 260, 26, 0), { start: 0, end: 0 });
  });
});

void describe('band view: model vs model', () => {
  void it('pairs tasks by id, flags band changes, and aggregates identical points', () => {
    const A = model('a', [row('x', 2, 2, { band: 'too-easy' }), row('y', 2, 1), row('z', 2, 1), row('only-a', 2, 0, { band: 'too-hard' })]);
    const B = model('b', [row('x', 2, 1), row('y', 2, 1), row('z', 2, 1), row('only-b', 2, 2, { band: 'too-easy' })]);
    const t = { low: 0, high: 1 };
    const [a, b] = columns(A, B);
    const p = pairModels(classifyModel('a', a!, 2, t, t), classifyModel('b', b!, 2, t, t));
    // Models of two reports (two id tables) pair by name the same way.
    const q = pairModels(classifyModel('a', columns(A)[0]!, 2, t, t), classifyModel('b', columns(B)[0]!, 2, t, t));
    assert.deepEqual([q.paired, q.differing, q.onlyA, q.onlyB], [3, 1, 1, 1]);
    assert.equal(p.paired, 3);
    assert.equal(p.differing, 1);
    assert.deepEqual([p.onlyA, p.onlyB], [1, 1]);
    const mid = p.points.find((q) => q.a === 0.5 && q.b === 0.5)!;
    assert.deepEqual([...mid.ids].sort(), ['y', 'z']);
    assert.equal(mid.differs, 0);
    assert.equal(p.points.find((q) => q.a === 1)!.differs, 1);
  });
});

void describe('band view: checkpoint trend', () => {
  void it('reads steps from checkpoint labels', () => {
    assert.equal(checkpointStep('step-1200'), 1200);
    assert.equal(checkpointStep('ckpt_300'), 300);
    assert.equal(checkpointStep('1.5k'), 1500);
    assert.equal(checkpointStep('final'), null);
  });
});

void describe('band view on the fixture results (the numbers the e2e test asserts)', () => {
  const { report, warnings } = reportFromResults([FIXTURE]);
  void it('reads every run of the fixture without warnings', () => {
    assert.deepEqual(warnings, []);
    assert.deepEqual(report.models.map((m) => `${m.model}${m.checkpoint ? ` @ ${m.checkpoint}` : ''}`),
      ['claude-sonnet', 'policy-9b @ step-100', 'policy-9b @ step-200', 'policy-9b @ step-300', 'policy-9b @ step-400', 'policy-9b @ step-500']);
  });
  void it('keeps every field of every row in the columns, and builds a row only when asked', () => {
    const c = toColumns(report);
    assert.deepEqual(toRows(c), report);
    const m = c.models[0]!.tasks;
    assert.ok(m.passAtK instanceof Float64Array && m.id instanceof Int32Array, 'typed columns, no row objects');
    assert.deepEqual(rowAt(m, indexOfId(m, 'hotel')), report.models[0]!.tasks.find((t) => t.id === 'hotel'));
    assert.equal(indexOfId(m, 'nobody'), -1);
  });
  void it('has the counts per band the fixture implies, with infra errors apart', () => {
    const v = buildReportView(toColumns(report));
    assert.deepEqual(v.models[0]!.counts, { 'too-easy': 1, 'in-band': 3, 'too-hard': 2, broken: 1, insufficient: 1 });
    assert.equal(v.models[0]!.infraErrors, 3);
  });
  void it('re-classifies the same as the band engineer at the report thresholds (no drift between CLI and panel)', () => {
    for (const m of report.models) for (const r of m.tasks) assert.equal(classifyAt(r, report.k, report.thresholds!), r.band, `${m.model} ${r.id}`);
  });
  void it('moves the 1-of-2 tasks to too easy when the upper threshold drops to 50%', () => {
    const v = buildReportView(toColumns(report), { low: 0, high: 0.5 });
    assert.deepEqual(v.models[0]!.counts, { 'too-easy': 4, 'in-band': 0, 'too-hard': 2, broken: 1, insufficient: 1 });
  });
  void it('marks policy-9b saturated from step-300', () => {
    const [s] = checkpointTrends(report);
    assert.equal(s!.model, 'policy-9b');
    assert.deepEqual(s!.points.map((p) => p.step), [100, 200, 300, 400, 500]);
    assert.equal(s!.points[s!.saturatedFrom!]!.checkpoint, 'step-300');
  });
  void it('exports the in-band tasks as paths or as JSON', () => {
    const tasks = tasksInBand(toColumns(report), 'claude-sonnet', 'in-band', report.thresholds!);
    assert.equal(formatExport(tasks, 'text', { model: 'claude-sonnet', band: 'in-band', k: 2, thresholds: report.thresholds! }), 'tasks/bravo\ntasks/charlie\ntasks/echo\n');
    const json = JSON.parse(formatExport(tasks, 'json', { model: 'claude-sonnet', band: 'in-band', k: 2, thresholds: report.thresholds! })) as { tasks: { id: string }[]; band: string };
    assert.deepEqual(json.tasks.map((t) => t.id), ['bravo', 'charlie', 'echo']);
    assert.equal(json.band, 'in-band');
    assert.throws(() => tasksInBand(toColumns(report), 'nobody', 'all', report.thresholds!), /no model 'nobody'/);
  });
});

