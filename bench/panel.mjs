#!/usr/bin/env node
// Band panel bench: time from the data message to a rendered panel for 10,000 tasks × 3 models in
// headless Chromium (Debian's, driven by the rig's playwright-core), plus re-classification after a
// threshold move, a jump-scroll of the virtualised table, and the webview bundle's size.
//
//   node scripts/build.mjs && node bench/panel.mjs [--tasks 10000] [--models 3] [--runs 7] [--shots DIR] [--write]
//
// Prints the Markdown section "Panel" of bench/RESULTS.md; --write replaces it there.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { values: o } = parseArgs({ options: { tasks: { type: 'string', default: '10000' }, models: { type: 'string', default: '3' }, runs: { type: 'string', default: '7' }, shots: { type: 'string' }, write: { type: 'boolean', default: false } } });
const TASKS = Number(o.tasks), MODELS = Number(o.models), RUNS = Number(o.runs);

const { bandReport } = require(path.join(root, 'out/src/core/band/report.js'));
const { renderBandHtml, loadPanelAssets } = require(path.join(root, 'out/src/core/report/bandHtml.js'));
const { toWire } = require(path.join(root, 'out/src/core/protocol/bandPanel.js'));
const { chromium } = require(path.join(root, 'test/vscode/node_modules/playwright-core'));
const esbuild = require(path.join(root, 'node_modules/esbuild'));

/** Deterministic pseudo-random numbers (mulberry32), so every run benches the same data. */
function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A realistic report: 2 attempts per task, skill varying by model, some infra errors, a few broken. */
function syntheticReport() {
  const r = rng(7);
  const difficulty = Array.from({ length: TASKS }, () => r());
  const models = Array.from({ length: MODELS }, (_, m) => ({
    model: `policy-${m + 1}`,
    sources: ['bench'],
    tasks: difficulty.map((d, i) => {
      const p = Math.min(1, Math.max(0, 1 - d + (m - 1) * 0.15 + (r() - 0.5) * 0.2));
      const infra = r() < 0.03 ? 1 : 0;
      const attempts = r() < 0.01 ? 1 : 2;
      let successes = 0;
      for (let a = 0; a < attempts; a++) if (r() < p) successes++;
      return { id: `task-${String(i).padStart(5, '0')}`, path: `tasks/task-${String(i).padStart(5, '0')}`, attempts, successes, infraErrors: infra, possiblyInfra: 0, pending: false };
    }),
  }));
  const broken = new Map(Array.from({ length: Math.round(TASKS / 200) }, (_, i) => [`task-${String(i * 200).padStart(5, '0')}`, 'oracle fails']));
  return bandReport(models, { broken });
}

async function bundleSizes() {
  const r = await esbuild.build({
    entryPoints: [path.join(root, 'webview/main.ts')], bundle: true, minify: true, format: 'iife', platform: 'browser', target: 'es2022',
    write: false, metafile: true, absWorkingDir: root, logLevel: 'silent',
  });
  const js = r.outputFiles[0].contents;
  const inputs = Object.values(r.metafile.outputs)[0].inputs;
  const group = (k) => (k.includes('@vscode-elements') ? '@vscode-elements/elements' : /node_modules\/(lit|lit-html|lit-element|@lit)\//.test(k) ? 'lit' : k.startsWith('src/') ? 'shared core (src/core)' : k.startsWith('webview/') ? 'webview (charts, table, app)' : 'other');
  const groups = {};
  for (const [k, v] of Object.entries(inputs)) groups[group(k)] = (groups[group(k)] ?? 0) + v.bytesInOutput;
  const css = fs.readFileSync(path.join(root, 'media/band-panel.css'));
  return { min: js.length, gzip: zlib.gzipSync(js, { level: 9 }).length, groups, css: css.length, cssGzip: zlib.gzipSync(css, { level: 9 }).length, dev: fs.statSync(path.join(root, 'dist/webview.js')).size };
}

/** Why the panel is built the way it is; kept with the numbers that justify it. */
const NOTES = `
Choices these numbers support:
- **Charts are hand-drawn SVG** (bars, histogram, scatter, trend: ~10 KiB of our code in the bundle), one
  \`innerHTML\` per chart. None of them draws per task: the histogram draws bins, the scatter draws one bubble
  per distinct (rate A, rate B) point — with 2 attempts per task, 10,000 tasks are at most 9 bubbles — so
  a chart library's canvas engine, scales and animation would only add bytes and start-up time. SVG also
  keeps every mark themable with \`--vscode-*\` variables through CSS classes (no inline styles: the CSP
  has no 'unsafe-inline') and gives each bubble a \`<title>\`, a focus ring and a keyboard handler.
- **The table is virtualised by hand** (fixed 26 px rows over a spacer; only the rows in view exist),
  so the DOM holds a few dozen rows whatever the task count; \`@vscode-elements\`' \`vscode-table\` renders
  every row and is not used. From \`@vscode-elements/elements\` only button, textfield, single-select and
  option are imported (lit's constructable stylesheets work under the nonce-only CSP).
- **The data crosses as columns and stays columns** (src/core/protocol/bandWire.ts, src/core/bandview/columns.ts):
  ids and paths once, in natural order (an id's index is its sort rank), fractions as integer 1/10,000ths,
  so the message is arrays of small integers that clone, parse and check without a number object per cell.
  The webview keeps the columns: classification, histogram, scatter and the table's sort read them, and a
  row object is built only for the rows the table draws. Before, the panel decoded 30,000 row objects on
  every data message; that and the garbage collection it caused were a third of the first frame. The host
  keeps the full-precision report for exports.

`;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const f = (x) => x.toFixed(1);

const t0 = Date.now();
const report = syntheticReport();
const genMs = Date.now() - t0;
const json = JSON.stringify(toWire({ report, source: 'bench', live: false }));
const plainBytes = JSON.stringify(report).length;
const assets = loadPanelAssets(path.join(root, 'out/src/core/report'));
// The page starts with an empty report, as the webview does before the host's data arrives.
const emptyHtml = renderBandHtml({ version: 1, k: 2, thresholds: report.thresholds, models: [] }, { assets, source: 'bench' });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-bench-'));
const page0 = path.join(tmp, 'panel.html');
fs.writeFileSync(page0, emptyHtml);

/**
 * CPU time of the page's renderer from the DevTools protocol (thread ticks, so a descheduled page
 * does not count): `ThreadTime` is the renderer's main thread — where the message is handled, the
 * panel's script runs and style, layout and paint are done — and `ProcessTime` the whole renderer
 * process (GC helpers, compositor, raster). On a machine shared by a team's jobs wall time varies 2–10×
 * with the load; CPU time is what the panel costs whatever else runs.
 */
async function cpuNow(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return { main: get('ThreadTime'), process: get('ProcessTime') };
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const results = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${page0}`);
    await page.waitForFunction(() => window.bandPanel !== undefined);
    // The message is built in the page from JSON (as VS Code's postMessage delivers a structured clone).
    await page.evaluate((text) => { window.__msg = { type: 'init', data: JSON.parse(text) }; }, json);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    let cpu0 = await cpuNow(cdp);
    const first = await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const app = window.bandPanel;
      const t0 = performance.now();
      window.postMessage(window.__msg, '*');
      while (!(app.lastRenderMs > t0)) await new Promise((r) => setTimeout(r, 0));
      const script = app.lastRenderMs - t0;
      await frame();
      return { script, rendered: performance.now() - t0, scatterDrawn: document.querySelector('#scatter svg') !== null, rows: document.querySelectorAll('.vt-body .vt-row').length, steps: { ...app.timings } };
    });
    let cpu1 = await cpuNow(cdp);
    const renderedCpu = cpu1.main - cpu0.main, renderedProcess = cpu1.process - cpu0.process;
    cpu0 = cpu1;
    // A threshold move: re-classify 30,000 rows and redraw bars, histogram, table and scatter.
    const threshold = await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t1 = performance.now();
      window.bandPanel.setThresholds({ low: 0.25, high: 0.75 });
      await frame(); await frame();
      return performance.now() - t1;
    });
    cpu1 = await cpuNow(cdp);
    const thresholdCpu = cpu1.main - cpu0.main;
    // A jump to the middle of the table: only the rows in view are rendered.
    const scroll = await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const vp = document.querySelector('.vt-viewport');
      const t2 = performance.now();
      vp.scrollTop = vp.scrollHeight / 2;
      await frame(); await frame();
      return performance.now() - t2;
    });
    const m = { ...first, renderedCpu, renderedProcess, threshold, thresholdCpu, scroll };
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    // The scatter is drawn in a task after the first frame: the next-frame measure must include it.
    if (!m.scatterDrawn) throw new Error('the scatter was not drawn by the next-frame measure');
    results.push(m);
    if (o.shots && i === 0) { fs.mkdirSync(o.shots, { recursive: true }); await page.screenshot({ path: path.join(o.shots, 'panel-bench-10k.png'), fullPage: true }); }
    await page.close();
  }
} finally {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

const sizes = await bundleSizes();
const chromiumVersion = (() => { try { return execFileSync(process.env.CHROMIUM ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim(); } catch { return 'chromium'; } })();
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const pick = (k) => results.map((r) => r[k]);
const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
/** The verdict on the ≤ 300 ms goal, from this run's medians: wall time (at this load) and CPU time. */
function status() {
  const script = median(pick('script')), rendered = median(pick('rendered')), cpuMedian = median(pick('renderedCpu')), proc = median(pick('renderedProcess'));
  const verdict = (x) => (x <= 300 ? 'met' : 'not met');
  return `Status: data message → next frame is **${verdict(cpuMedian)}** in the renderer's CPU time (median ${f(cpuMedian)} ms on its main
thread, ${f(proc)} ms over the whole renderer process) and **${verdict(rendered)}** in wall time at this run's load (median ${f(rendered)} ms;
"script done" ${f(script)} ms). The machine is 2 cores shared with the team: wall time varies 2–10× with the load
average, CPU time far less, so the CPU figure is the one to compare between runs.
`;
}

const section = `## Panel

Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu} (shared with the team's other jobs: load average ${load} at the end), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${chromiumVersion} headless (--disable-gpu), Node ${process.version}.
Command: \`node scripts/build.mjs && ${os.getPriority() < 0 ? `nice -n ${os.getPriority()} ` : ''}node bench/panel.mjs --write\` (${TASKS.toLocaleString('en')} tasks × ${MODELS} models, ${RUNS} runs, fresh page each; data generated in ${genMs} ms, message ${(json.length / 2 ** 20).toFixed(1)} MiB as JSON in the wire form, ${(plainBytes / 2 ** 20).toFixed(1)} MiB as a plain BandReport).

| measure (ms) | median | max |
|---|---:|---:|
| data message → panel rendered (script done: validate, classify, bin, sort, draw) | ${f(median(pick('script')))} | ${f(Math.max(...pick('script')))} |
| data message → next frame (incl. style, layout, paint) | ${f(median(pick('rendered')))} | ${f(Math.max(...pick('rendered')))} |
| … the same, CPU time of the renderer's main thread | ${f(median(pick('renderedCpu')))} | ${f(Math.max(...pick('renderedCpu')))} |
| … the same, CPU time of the whole renderer process | ${f(median(pick('renderedProcess')))} | ${f(Math.max(...pick('renderedProcess')))} |
| threshold moved → re-classified and redrawn (2 frames) | ${f(median(pick('threshold')))} | ${f(Math.max(...pick('threshold')))} |
| … the same, CPU time of the main thread | ${f(median(pick('thresholdCpu')))} | ${f(Math.max(...pick('thresholdCpu')))} |
| jump-scroll to the middle of the table (2 frames) | ${f(median(pick('scroll')))} | ${f(Math.max(...pick('scroll')))} |

Where the script time goes (median ms): ${Object.keys(results[0].steps).map((k) => `${k} ${f(median(results.map((r) => r.steps[k])))}`).join(' · ')}.

Table rows in the DOM for ${TASKS.toLocaleString('en')} tasks: ${results[0].rows} (virtualised). Goal ≤ 300 ms: wall time **${median(pick('rendered')) <= 300 ? 'met' : 'not met'}** on this shared machine, CPU time **${median(pick('renderedCpu')) <= 300 ? 'met' : 'not met'}** (median).

Webview bundle (esbuild, minified, iife): **${(sizes.min / 1024).toFixed(1)} KiB** (${(sizes.gzip / 1024).toFixed(1)} KiB gzip); the development build in dist/ is ${(sizes.dev / 1024).toFixed(1)} KiB unminified. CSS ${(sizes.css / 1024).toFixed(1)} KiB (${(sizes.cssGzip / 1024).toFixed(1)} KiB gzip).

| part of the minified bundle | KiB |
|---|---:|
${Object.entries(sizes.groups).sort((a, b) => b[1] - a[1]).map(([k, v]) => `| ${k} | ${(v / 1024).toFixed(1)} |`).join('\n')}
${NOTES}
${status()}`;
console.log(section);
if (o.write) {
  const file = path.join(root, 'bench/RESULTS.md');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n';
  const block = `<!-- panel:begin -->\n${section.trimEnd()}\n<!-- panel:end -->`;
  const re = /<!-- panel:begin -->[\s\S]*?<!-- panel:end -->/;
  fs.writeFileSync(file, re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`);
  console.log(`wrote the Panel section of ${path.relative(root, file)}`);
}
