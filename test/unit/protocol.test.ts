import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BandReport } from '../../src/core/band/types';
import { isBandReport, modelKey, parseHostMessage, parseWebviewMessage, sanitizeViewState } from '../../src/core/protocol/bandPanel';

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
  void it('accepts init and update with a valid band report', () => {
    const data = { report, source: '/w/.taskwright/runs', live: true };
    assert.equal(parseHostMessage({ type: 'init', data })?.type, 'init');
    assert.equal(parseHostMessage({ type: 'update', data })?.type, 'update');
    assert.deepEqual(parseHostMessage({ type: 'exported', count: 3, file: 'a.json' }), { type: 'exported', count: 3, file: 'a.json' });
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
    assert.equal(parseHostMessage({ type: 'init', data: { report: { ...report, k: 0 }, source: 's', live: false } }), undefined);
    assert.equal(parseHostMessage({ type: 'init', data: { report, source: 's' } }), undefined);
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
