#!/usr/bin/env node
// `npm test` runs every tier and fails if any fails; `npm run test:<tier>` runs one.
// Tiers: static (tsc and eslint), unit (plain Node, the core and CLI), integration (real Docker Engine; names carry
// "(integration)"), vscode (the mocha suite inside a real VS Code extension host), e2e (the
// packaged VSIX in a real VS Code driven by a real browser). A tier whose prerequisite is missing
// fails with a message that says how to get it: it never passes silently.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tier = process.argv[2] ?? 'all';
const extra = process.argv.slice(3);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) { console.error(`[test] could not start ${cmd}: ${r.error.message}`); return 1; }
  return r.status ?? 1;
}

function testFiles(dir) {
  const out = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.js')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

function build() {
  return run(process.execPath, ['scripts/build.mjs']);
}

function nodeTests(dir, label, concurrency, timeoutMs) {
  const files = testFiles(path.join(root, 'out/test', dir));
  if (files.length === 0) { console.error(`[test] ${label}: no test files under out/test/${dir} — did the build run?`); return 1; }
  // A test that hangs fails (with its name) instead of holding the tier until CI kills everything.
  const args = ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...(timeoutMs ? [`--test-timeout=${timeoutMs}`] : []), ...extra, ...files];
  return run(process.execPath, args);
}

/** The engine and the offline base images, started/built by the project's own scripts (idempotent). */
function engine(label) {
  if (run('bash', ['scripts/docker-engine.sh']) !== 0) { console.error(`[test] ${label}: no Docker Engine (see scripts/docker-engine.sh output above)`); return false; }
  if (run('bash', ['scripts/base-images.sh']) !== 0) { console.error(`[test] ${label}: base images could not be built (scripts/base-images.sh)`); return false; }
  return true;
}

/** OpenSSH's sshd, which the integration tier's SSH engine tests start on a port of their own (installed when missing). */
function sshd(label) {
  if (run('bash', ['scripts/sshd.sh']) !== 0) { console.error(`[test] ${label}: no OpenSSH server (see scripts/sshd.sh output above; apt-get install openssh-server)`); return false; }
  return true;
}

const tiers = {
  // Types and lint are part of the test run: a lint error caught only by an editor is caught by nobody.
  static: () => run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.']) || run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'webview']) || run(process.execPath, ['node_modules/eslint/bin/eslint.js', '.']),
  unit: () => nodeTests('unit', 'unit', 2, 120_000),
  integration: () => (engine('integration') && sshd('integration') ? nodeTests('integration', 'integration', 1, 600_000) : 1),
  // The suite validates an example task in Docker (test/suite/sandbox.test.ts).
  vscode: () => (engine('vscode') ? run('bash', ['test/vscode/run.sh', 'integration']) : 1),
  e2e: () => run('bash', ['test/vscode/run.sh', 'e2e']),
};

const order = tier === 'all' ? ['static', 'unit', 'integration', 'vscode', 'e2e'] : [tier];
if (!order.every((t) => t in tiers)) { console.error(`usage: test.mjs [all|${Object.keys(tiers).join('|')}]`); process.exit(2); }

if (build() !== 0) { console.error('[test] build failed'); process.exit(1); }
const results = [];
for (const t of order) {
  const started = Date.now();
  console.log(`\n[test] ===== tier: ${t} =====`);
  const code = tiers[t]();
  results.push({ t, code, secs: Math.round((Date.now() - started) / 1000) });
}
console.log('\n[test] summary');
for (const r of results) console.log(`[test]   ${r.t.padEnd(12)} ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}  ${r.secs}s`);
const failed = results.filter((r) => r.code !== 0).length;
console.log(`tiers: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
