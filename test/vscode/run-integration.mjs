#!/usr/bin/env node
// Runs the extension's mocha suite (out/test/suite) inside code-server's real Node extension host.
//
// code-server starts on 127.0.0.1; headless chromium opens the workbench with a `payload` that names
// the extension under development (the repository root) and the tests (out/test/suite/index.js), both
// as vscode-remote:// URIs. The extension host loads the extension, calls the suite's run(), and when
// it settles the workbench calls window.codeAutomationExit(code), which this script exposes. The
// suite writes its counts to the file named by TASKWRIGHT_TEST_RESULTS (the server's environment
// reaches the extension host). The exit code is the suite's; the last line is `N passed, N failed`.
// A run that leaves examples/ otherwise than it found it (git status --porcelain) fails too.
//
//   node test/vscode/run-integration.mjs [--folder examples] [--timeout 600] [--keep] [--verbose]
import fs from 'node:fs';
import path from 'node:path';
import { format, parseArgs } from 'node:util';
import { launchChromium } from './lib/chromium.mjs';
import { examplesChanged, examplesState } from './lib/examplesClean.mjs';
import { makeRunDir, startCodeServer } from './lib/codeServer.mjs';
import { REPO_ROOT, RESULTS_DIR } from './lib/paths.mjs';

const { values: opt } = parseArgs({
  options: {
    ext: { type: 'string', default: REPO_ROOT },
    tests: { type: 'string', default: path.join(REPO_ROOT, 'out/test/suite') },
    folder: { type: 'string', default: path.join(REPO_ROOT, 'examples') },
    timeout: { type: 'string', default: '600' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

const started = Date.now();
const log = (m) => console.log(`[vscode ${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`);
const runDir = makeRunDir('it');
const examplesBefore = examplesState();
const resultsFile = path.join(runDir, 'results.json');
const outDir = path.join(RESULTS_DIR, 'vscode');
fs.rmSync(outDir, { recursive: true, force: true }); // an earlier run's failure picture would mislead

// Workbench and extension-host chatter that says nothing about the suite.
const NOISE = /^(Resolv|Creating a socket|Updating additional|ChatSessionStore|\[Service Worker\]|Ignoring fetching additional|%c(INFO|TRACE|DEBUG))/;

let server;
let browser;
let page;
let finishing = false;

function readSummary() {
  try { return JSON.parse(fs.readFileSync(resultsFile, 'utf8')); } catch { return undefined; }
}

async function finish(code, why) {
  if (finishing) return;
  finishing = true;
  const summary = readSummary();
  let passed = summary?.passed ?? 0;
  let failed = summary?.failed ?? 0;
  // A non-zero exit without failed tests (the host crashed, the extension failed to load, timeout)
  // is still a failure: count it as one so the closing line never reads "0 failed" on a red run.
  if (code !== 0 && failed === 0) failed = 1;
  if (code === 0 && !summary) { code = 1; failed = 1; why += ', but the suite wrote no results'; }
  if (code === 0 && passed === 0) { code = 1; failed = 1; why += ', but no test ran'; }
  // Every suite restores what it edits: a run that leaves examples/ changed fails, naming the files.
  const changed = examplesChanged(examplesBefore, examplesState());
  if (changed.length) {
    code = 1; failed += 1; why += ', but it left examples/ changed';
    for (const l of changed) console.log(`  CHANGED by the run (git status --porcelain examples/): ${l}`);
  }
  log(`${why} -> exit ${code}`);
  // mocha's reporter above printed the stacks; repeat only what failed, next to the verdict.
  for (const f of summary?.failures ?? []) console.log(`  FAILED: ${f.title}: ${f.error.split('\n')[0]}`);
  if (code !== 0 && page) {
    fs.mkdirSync(outDir, { recursive: true });
    const shot = path.join(outDir, 'integration-failure.png');
    try { await page.screenshot({ path: shot }); log(`screenshot of the workbench: ${path.relative(REPO_ROOT, shot)}`); } catch { /* page gone */ }
  }
  if (code !== 0 && server) {
    const kept = path.join(outDir, 'integration-code-server.log');
    try { fs.copyFileSync(server.log, kept); log(`code-server log: ${path.relative(REPO_ROOT, kept)}`); } catch { /* no log */ }
  }
  try { await browser?.close(); } catch { /* already closed */ }
  await server?.stop();
  if (opt.keep) log(`kept ${runDir}`);
  else try { fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { log(`could not remove ${runDir}: ${e.message}`); }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code);
}

process.on('SIGINT', () => void finish(130, 'interrupted'));
process.on('SIGTERM', () => void finish(143, 'terminated'));
process.on('SIGHUP', () => void finish(129, 'hung up'));
process.on('uncaughtException', (e) => { console.error(e); void finish(1, 'runner crashed'); });
process.on('unhandledRejection', (e) => { console.error(e); void finish(1, 'runner crashed'); });
setTimeout(() => void finish(1, `no result from the extension host after ${opt.timeout}s`), Number(opt.timeout) * 1000).unref();

const testsIndex = path.join(path.resolve(opt.tests), 'index.js');
if (!fs.existsSync(testsIndex)) {
  console.error(`[vscode] ${testsIndex} does not exist: build first (node scripts/build.mjs)`);
  await finish(1, 'no suite to run');
}

server = await startCodeServer({ runDir, env: { TASKWRIGHT_TEST_RESULTS: resultsFile } });
log(`code-server up on ${server.authority} after ${server.readyMs} ms`);

browser = await launchChromium();
page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// In test mode the workbench forwards its log and the extension host's console (mocha's reporter) here.
await page.exposeFunction('codeAutomationLog', (type, args) => {
  let line = format(...args).replace(/%c/g, '');
  if (!process.stdout.isTTY) line = line.replace(/\x1b\[[0-9;]*m/g, ''); // mocha's colours, in a log file
  if (opt.verbose || !NOISE.test(line)) console.log(line);
});
await page.exposeFunction('codeAutomationExit', (code) => finish(code === 0 ? 0 : 1, `extension host finished with code ${code}`));
page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
if (opt.verbose) page.on('console', (m) => console.log(`[page] ${m.text()}`));

const payload = [
  ['extensionDevelopmentPath', server.remoteUri(opt.ext)],
  ['extensionTestsPath', server.remoteUri(opt.tests)],
  ['skipWelcome', 'true'],
  ['skipReleaseNotes', 'true'],
];
log(`opening ${path.relative(REPO_ROOT, path.resolve(opt.folder)) || '.'} with the extension under development and its tests`);
await page.goto(server.workbenchUrl({ folder: opt.folder, payload }));
