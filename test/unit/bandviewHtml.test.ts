import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BandReport } from '../../src/core/band/types';
import { jsonForScript, renderBandHtml } from '../../src/core/report/bandHtml';

const evil = '</script><script>alert(1)</script>';
const report: BandReport = {
  version: 1, k: 2, thresholds: { low: 0, high: 1 },
  models: [{ model: evil, meanPassAtK: null, interval: null, counts: { 'too-easy': 0, 'in-band': 0, 'too-hard': 0, broken: 0, insufficient: 0 }, infraErrors: 0, tasks: [] }],
};

void describe('static band report (taskwright band --html)', () => {
  const html = renderBandHtml(report, { assets: { script: 'window.x = "</script>";', css: 'body{}' }, source: '<runs>' });
  void it('is self-contained: CSP default-src none, nothing loaded from elsewhere', () => {
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-/);
    assert.doesNotMatch(html, /<script[^>]+src=/);
    assert.doesNotMatch(html, /<link /);
    assert.doesNotMatch(html, /https?:\/\//);
  });
  void it('embeds data and script so that neither can close its element', () => {
    assert.equal(html.match(/<\/script>/g)?.length, 2);
    assert.ok(!html.includes(evil));
    const data = /<script type="application\/json" id="band-data">(.*?)<\/script>/s.exec(html)![1]!;
    assert.equal((JSON.parse(data) as { data: { report: BandReport } }).data.report.models[0]!.model, evil);
    assert.ok(html.includes('<title>Solvability band — &lt;runs&gt;</title>'));
  });
  void it('uses a fresh nonce each time', () => {
    const nonce = (h: string): string => /nonce-([^']+)'/.exec(h)![1]!;
    assert.notEqual(nonce(html), nonce(renderBandHtml(report, { assets: { script: '', css: '' } })));
  });
  void it('escapes line separators that would break JSON in a script', () => {
    assert.equal(jsonForScript('a\u2028b<'), '"a\\u2028b\\u003c"');
  });
});
