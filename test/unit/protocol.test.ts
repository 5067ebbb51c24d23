import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BandReport } from '../../src/core/band/types';
import { isBandReport, modelKey, parseHostMessage, parseWebviewMessage, sanitizeViewState, toWire } from '../../src/core/protocol/bandPanel';
import { toRows } from '../../src/core/bandview/columns';
import { decodeReport, encodeReport } from '../../src/core/protocol/bandWire';
import { reportFromResults } from '../../src/extension/panel/loadReport';

const report: BandReport = {
  version: 1, k: 2, thresholds: { low: 0, high: 1 },
  models: [{
    model: 'm', meanPassAtK: 0.5, interval: [0.2, 0.8], counts: { 'too-easy': 0, 'in-band': 1, 'too-hard': 0, broken: 0, insufficient: 0 }, infraErrors: 1,
    tasks: [{ id: 't', path: 'tasks/t', attempts: 2, successes: 1, infraErrors: 1, passAt1: 0.5, passAtK: 1, interval: [0.09, 0.91], band: 'in-band' }],
  }],
};

void describe('band panel protocol: webview → host', () => {
  void it('accepts every well-formed message', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseWebviewMessage({ type: 'reveal-task', model: 'm', taskId: 't' }), { type: 'reveal-task', model: 'm', taskId: 't' });
    assert.deepEqual(parseWebviewMessage({ type: 'export', model: 'm', band: 'in-band', format: 'text', thresholds: { low: 0, high: 1 } }),
      { type: 'export', model: 'm', band: 'in-band', format: 'text', thresholds: { low: 0, high: 1 } });
    assert.deepEqual(parseWebviewMessage({ type: 'export', model: 'm', band: 'all', format: 'json', thresholds: { low: 0.1, high: 0.9 } })?.type, 'export');
    assert.deepEqual(parseWebviewMessage({ type: 'log', level: 'error', message: 'x' }), { type: 'log', level: 'error', message: 'x' });
  });
  void it('rejects unknown types, missing or wrong fields, and non-objects', () => {
    for (const bad of [null, 'ready', 42, [], {}, { type: 'nope' }, { type: 'reveal-task', model: 'm' }, { type: 'reveal-task', model: 1, taskId: 't' },
      { type: 'export', model: 'm', band: 'middling', format: 'json', thresholds: { low: 0, high: 1 } },
      { type: 'export', model: 'm', band: 'in-band', format: 'csv', thresholds: { low: 0, high: 1 } },
      { type: 'export', model: 'm', band: 'in-band', format: 'json', thresholds: { low: 0.8, high: 0.2 } },
      { type: 'export', model: 'm', band: 'in-band', format: 'json', thresholds: { low: -1, high: 2 } },
      { type: 'log', level: 'debug', message: 'x' }, { type: 'state' }, { type: 'reveal-task', model: 'm', taskId: 'x'.repeat(5000) }]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
    }
  });
  void it('drops extra fields so nothing unexpected reaches the host', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'reveal-task', model: 'm', taskId: 't', path: '/etc/passwd' }), { type: 'reveal-task', model: 'm', taskId: 't' });
  });
});

void describe('band panel protocol: host → webview', () => {
  void it('accepts init and update with a valid band report, and decodes it', () => {
    const data = toWire({ report, source: '/w/.taskwright/runs', live: true });
    const init = parseHostMessage({ type: 'init', data });
    assert.equal(init?.type, 'init');
    assert.deepEqual(init?.type === 'init' ? { ...init.data, report: toRows(init.data.report) } : undefined, { report, source: '/w/.taskwright/runs', live: true });
    assert.equal(parseHostMessage({ type: 'update', data })?.type, 'update');
    assert.equal(parseHostMessage({ type: 'update', data: { report, source: 's', live: true } }), undefined, 'a plain (non-wire) report is not a message');
    // A new source (the view state starts afresh) carries its data like an update, checked the same way.
    const source = parseHostMessage({ type: 'source', data });
    assert.deepEqual(source?.type === 'source' ? { ...source, data: { ...source.data, report: toRows(source.data.report) } } : source, { type: 'source', data: { report, source: '/w/.taskwright/runs', live: true } });
    assert.equal(parseHostMessage({ type: 'source', data: { report, source: 's', live: true } }), undefined);
    assert.deepEqual(parseHostMessage({ type: 'exported', count: 3, file: 'a.json' }), { type: 'exported', count: 3, file: 'a.json' });
    // A failed export says so next to its buttons; other errors go to the panel's status line.
    assert.deepEqual(parseHostMessage({ type: 'error', message: 'EACCES', about: 'export' }), { type: 'error', message: 'EACCES', about: 'export' });
    assert.deepEqual(parseHostMessage({ type: 'error', message: 'x', about: 'elsewhere' }), { type: 'error', message: 'x' });
  });
  void it('rejects reports that break the contract', () => {
    const task = report.models[0]!.tasks[0]!;
    const withTask = (t: object): unknown => ({ ...report, models: [{ ...report.models[0], tasks: [t] }] });
    assert.equal(isBandReport(report), true);
    assert.equal(isBandReport({ ...report, version: 2 }), false);
    assert.equal(isBandReport(withTask({ ...task, band: 'meh' })), false);
    assert.equal(isBandReport(withTask({ ...task, successes: 3 })), false);
    assert.equal(isBandReport(withTask({ ...task, passAtK: 1.5 })), false);
    assert.equal(isBandReport(withTask({ ...task, interval: [0.9, 0.1] })), false);
    assert.equal(isBandReport({ ...report, models: [{ ...report.models[0], counts: { 'in-band': 1 } }] }), false);
    assert.equal(isBandReport({ ...report, series: [{ model: 'm', points: [], saturated: 'yes', rule: { meanAbove: 0.8, inBandBelow: 0.2, window: 3 } }] }), false);
    assert.equal(parseHostMessage({ type: 'init', data: toWire({ report: { ...report, k: 0 }, source: 's', live: false }) }), undefined);
    assert.equal(parseHostMessage({ type: 'init', data: { report: encodeReport(report), source: 's' } }), undefined);
  });
});

void describe('band panel wire format', () => {
  void it('round-trips a report (numbers at the precision the panel shows)', () => {
    assert.deepEqual(toRows(decodeReport(encodeReport(report))!), report);
    const fixture = reportFromResults([`${__dirname}/../../../test/fixtures/band/workspace`]).report;
    const back = toRows(decodeReport(JSON.parse(JSON.stringify(encodeReport(fixture))))!);
    assert.equal(back.models.length, fixture.models.length);
    fixture.models.forEach((m, i) => {
      const b = back.models[i]!;
      assert.deepEqual(b.counts, m.counts);
      m.tasks.forEach((t, j) => {
        const u = b.tasks[j]!;
        assert.deepEqual([u.id, u.path, u.band, u.attempts, u.successes, u.infraErrors], [t.id, t.path, t.band, t.attempts, t.successes, t.infraErrors]);
        assert.ok(Math.abs((u.passAtK ?? -1) - (t.passAtK ?? -1)) <= 5e-5);
      });
    });
    assert.deepEqual(back.series, fixture.series);
  });
  void it('stores each task id once however many models ran it, in natural order, and fractions as integers', () => {
    const two = { ...report, models: [report.models[0]!, { ...report.models[0]!, model: 'n' }] };
    assert.deepEqual(encodeReport(two).ids, ['t']);
    const row = (id: string) => ({ ...report.models[0]!.tasks[0]!, id, path: `tasks/${id}` });
    const three = encodeReport({ ...report, models: [{ ...report.models[0]!, tasks: [row('task-10'), row('task-2'), row('Task-1')] }] });
    assert.deepEqual(three.ids, ['Task-1', 'task-2', 'task-10']);
    assert.deepEqual(three.models[0]!.rows.id, [2, 1, 0]);
    assert.deepEqual(three.models[0]!.rows.lo, [900, 900, 900]);
    assert.deepEqual(encodeReport(report).models[0]!.rows.passAt1, [5000]);
  });
  void it('rejects broken columns: lengths, indices, ranges, successes above attempts', () => {
    const w = JSON.parse(JSON.stringify(encodeReport(report))) as { models: { rows: Record<string, unknown[]> }[] };
    const broken = (edit: (rows: Record<string, unknown[]>) => void): unknown => {
      const c = JSON.parse(JSON.stringify(w)) as typeof w;
      edit(c.models[0]!.rows);
      return c;
    };
    assert.equal(decodeReport(broken((r) => { r.id = [5]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.attempts = [2, 2]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.passAtK = [12_000]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.passAtK = [0.5]; })), undefined, 'fractions travel as integers');
    assert.equal(decodeReport(broken((r) => { r.band = [9]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.successes = [3]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.lo = [9500]; })), undefined);
    assert.equal(decodeReport(broken((r) => { r.lo = [-1]; })), undefined, 'an interval with one bound');
    assert.equal(decodeReport(broken((r) => { r.pending = [3]; })), undefined);
    assert.equal(decodeReport({ ...w, wire: 1 }), undefined);
    assert.equal(decodeReport(null), undefined);
  });
});

void describe('band panel view state', () => {
  void it('keeps the valid fields of a restored state and drops the rest', () => {
    assert.deepEqual(sanitizeViewState({
      source: '/w', thresholds: { low: 0.9, high: 0.1 }, model: 'm', sort: { column: 'passAtK', dir: 'up' }, filter: 'abc',
      bands: ['in-band', 'in-band', 'nope'], scrollTop: 120, extra: 1,
    }), { source: '/w', model: 'm', filter: 'abc', scrollTop: 120 });
    assert.deepEqual(sanitizeViewState({ sort: { column: 'band', dir: 'desc' }, bands: ['too-easy', 'too-easy'], thresholds: { low: 0.2, high: 0.8 } }),
      { sort: { column: 'band', dir: 'desc' }, bands: ['too-easy'], thresholds: { low: 0.2, high: 0.8 } });
    assert.deepEqual(sanitizeViewState(undefined), {});
    assert.deepEqual(sanitizeViewState('junk'), {});
  });
  void it('names a model with its checkpoint', () => {
    assert.equal(modelKey({ model: 'p' }), 'p');
    assert.equal(modelKey({ model: 'p', checkpoint: 'step-1' }), 'p @ step-1');
  });
});
