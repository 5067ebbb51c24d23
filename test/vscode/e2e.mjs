#!/usr/bin/env node
// End-to-end: the packaged extension, as a user gets it, in a real VS Code driven by a real browser.
//
// Packages the VSIX (`vsce package --no-dependencies`), installs it into a fresh extensions folder,
// starts a hermetic code-server, opens examples/ in headless chromium and runs the cases listed in
// e2e/cases/*.mjs (in file-name order). Each case drives the workbench (palette, views, panels,
// webviews) through lib/workbench.mjs and reads what it shows from the DOM. Screenshots go to
// test-results/e2e/; a failing case saves `failure-<case>.png`. The last line is `N passed, N failed`.
//
//   node test/vscode/e2e.mjs [--vsix FILE] [--only TEXT] [--keep] [--timeout SECONDS]
//
// Adding a case: export default an array of { name, run(ctx) } from a new e2e/cases/NN-topic.mjs;
// ctx = { wb: Workbench, page, manifest (package.json), examples: [{id, dir, format}], log }.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from './lib/chromium.mjs';
import { installVsix, makeRunDir, startCodeServer } from './lib/codeServer.mjs';
import { EXAMPLES_DIR, exampleTasks } from './lib/examples.mjs';
import { REPO_ROOT, RESULTS_DIR, RIG_DIR } from './lib/paths.mjs';
import { Workbench } from './lib/workbench.mjs';

const { values: opt } = parseArgs({
  options: {
    vsix: { type: 'string' },
    folder: { type: 'string', default: EXAMPLES_DIR },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '900' },
    'case-timeout': { type: 'string', default: '120' },
  },
});

const started = Date.now();
const log = (m) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`);
const shotsDir = path.join(RESULTS_DIR, 'e2e');
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const runDir = makeRunDir('e2e');
// Pictures from an earlier run would pass for this one's.
fs.rmSync(shotsDir, { recursive: true, force: true });
const results = [];
let server;
let browser;
let page;

async function loadCases() {
  const dir = path.join(RIG_DIR, 'e2e/cases');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort();
  const cases = [];
  for (const f of files) {
    const mod = await import(pathToFileURL(path.join(dir, f)).href);
    for (const c of mod.default) cases.push({ ...c, file: f });
  }
  return opt.only ? cases.filter((c) => c.name.includes(opt.only)) : cases;
}

function packageVsix() {
  const out = path.join(runDir, 'taskwright.vsix');
  // --no-dependencies: the bundles in dist/ carry everything. `npx --no-install` never fetches vsce:
  // it is a devDependency. Same flags as `npm run package`: the README's relative links stay relative (no repository URL to
  // prepend), and --allow-missing-repository keeps vsce from prompting (CI has no stdin).
  const args = ['--no-install', 'vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '-o', out];
  const r = spawnSync('npx', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) {
    const why = `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
    throw new Error(`vsce package failed (exit ${r.status}): ${why}`);
  }
  return out;
}

async function failureShot(name) {
  if (!page) return;
  try {
    fs.mkdirSync(shotsDir, { recursive: true });
    const file = path.join(shotsDir, `failure-${slug(name)}.png`);
    await page.screenshot({ path: file });
    log(`  screenshot: ${path.relative(REPO_ROOT, file)}`);
  } catch { /* the page is gone */ }
}

function withTimeout(promise, secs, what) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${secs}s`)), secs * 1000); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let finishing = false;
async function finish(exitCode, why = 'interrupted') {
  if (finishing) return;
  finishing = true;
  if (exitCode !== 0 && results.every((r) => r.ok)) results.push({ name: 'the run', ok: false, ms: Date.now() - started, error: why });
  try { await browser?.close(); } catch { /* already closed */ }
  await server?.stop();
  if (exitCode !== 0 && server) {
    try { fs.mkdirSync(shotsDir, { recursive: true }); fs.copyFileSync(server.log, path.join(shotsDir, 'code-server.log')); } catch { /* no log */ }
  }
  if (opt.keep) log(`kept ${runDir}`);
  else try { fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { log(`could not remove ${runDir}: ${e.message}`); }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  console.log('');
  for (const r of results) console.log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${(r.ms / 1000).toFixed(1)}s)${r.ok ? '' : `\n       ${r.error}`}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || exitCode !== 0 ? 1 : 0);
}
process.on('SIGINT', () => void finish(130));
process.on('SIGTERM', () => void finish(143));
process.on('SIGHUP', () => void finish(129));
process.on('uncaughtException', (e) => { console.error(e); void finish(1, `runner crashed: ${e instanceof Error ? e.message : e}`); });
process.on('unhandledRejection', (e) => { console.error(e); void finish(1, `runner crashed: ${e instanceof Error ? e.message : e}`); });
setTimeout(() => void failureShot('timeout').then(() => finish(1, `timed out after ${opt.timeout}s`)), Number(opt.timeout) * 1000).unref();

const cases = await loadCases();
if (cases.length === 0) {
  await finish(1, `no case matches --only ${opt.only}`);
}

// Startup is one step: if the VSIX cannot be packaged or installed, or the workbench never shows,
// no case can run, and the run says so instead of reporting each case as failed.
const startup = Date.now();
try {
  const vsix = opt.vsix ? path.resolve(opt.vsix) : packageVsix();
  log(`packaged ${path.basename(vsix)} (${Math.round(fs.statSync(vsix).size / 1024)} KiB)`);
  log(installVsix(runDir, vsix).split('\n').filter(Boolean).pop() ?? 'installed');
  server = await startCodeServer({ runDir });
  log(`code-server up on ${server.authority} after ${server.readyMs} ms`);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => log(`[page error] ${e.message}`));
  await page.goto(server.workbenchUrl({ folder: opt.folder }));
  const wb = new Workbench(page, shotsDir);
  await wb.ready();
  log('workbench ready');
  results.push({ name: 'package, install and open the workbench', ok: true, ms: Date.now() - startup });

  const ctx = {
    wb, page, log,
    manifest: JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')),
    examples: exampleTasks(path.resolve(opt.folder)),
  };
  for (const c of cases) {
    const t = Date.now();
    log(`case: ${c.name}`);
    try {
      await withTimeout(Promise.resolve().then(() => c.run(ctx)), Number(opt['case-timeout']), `case "${c.name}"`);
      results.push({ name: c.name, ok: true, ms: Date.now() - t });
    } catch (e) {
      const error = e instanceof Error ? e.message.split('\n')[0] : String(e);
      log(`  FAILED: ${error}`);
      results.push({ name: c.name, ok: false, ms: Date.now() - t, error });
      await failureShot(c.name);
      await page.keyboard.press('Escape').catch(() => {});
    }
  }
} catch (e) {
  const error = e instanceof Error ? e.message : String(e);
  log(`startup FAILED: ${error}`);
  results.push({ name: 'package, install and open the workbench', ok: false, ms: Date.now() - startup, error: `${error.split('\n')[0]} (${cases.length} case(s) did not run)` });
  await failureShot('startup');
}
await finish(0);
