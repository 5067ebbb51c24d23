#!/usr/bin/env node
// One bundler (esbuild) for everything: the shipped bundles (extension, CLI, webview) and the
// transpiled test tree that the test runners load. `node scripts/build.mjs [--watch] [--ship-only]`.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

function walk(dir, pred, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    // Dot folders are never ours: bench/.corpus holds real tasks laid out for the accuracy bench (TypeScript
    // among them), which must not be compiled as if they were this project's sources.
    if (e.isDirectory()) { if (e.name !== 'node_modules' && e.name !== 'fixtures' && !e.name.startsWith('.')) walk(p, pred, out); }
    else if (pred(p)) out.push(p);
  }
  return out;
}

// ssh2 (through docker-modem) carries optional native add-ons; they stay out of the bundle and are
// loaded lazily (and optionally) by ssh2 itself.
const nodeExternals = ['vscode', 'cpu-features', '*.node'];
// jsonc-parser's `main` is a UMD build that requires its parts at run time, which a bundle cannot
// follow: bundle its ES module build instead.
const nodeAlias = { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' };

const shipped = [
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: nodeExternals, alias: nodeAlias },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', external: nodeExternals, alias: nodeAlias },
  // The audit's worker threads (src/core/audit/pool.ts looks for it next to the bundle).
  { entryPoints: ['src/core/audit/worker.ts'], outfile: 'dist/auditWorker.js', platform: 'node', format: 'cjs', external: nodeExternals, alias: nodeAlias },
];
if (fs.existsSync(path.join(root, 'webview/main.ts'))) {
  shipped.push({ entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife', external: [] });
}
if (fs.existsSync(path.join(root, 'webview/trial/main.ts'))) {
  shipped.push({ entryPoints: ['webview/trial/main.ts'], outfile: 'dist/trialWebview.js', platform: 'browser', format: 'iife', external: [] });
}

function copyGrammars() {
  // The parsers' WebAssembly ships next to the bundles; the core looks for it there first.
  const dest = path.join(root, 'dist/grammars');
  fs.mkdirSync(dest, { recursive: true });
  const files = [
    ['node_modules/web-tree-sitter/tree-sitter.wasm', 'tree-sitter.wasm'],
    ['node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm', 'tree-sitter-python.wasm'],
    ['node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm', 'tree-sitter-bash.wasm'],
  ];
  for (const [from, to] of files) {
    const src = path.join(root, from);
    if (fs.existsSync(src)) fs.copyFileSync(src, path.join(dest, to));
  }
}

// The transpiled (unbundled) tree requires JSON data next to the code, as the bundles inline it.
function copyJson() {
  if (args.has('--ship-only')) return;
  for (const src of walk(path.join(root, 'src'), (p) => p.endsWith('.json'))) {
    const dest = path.join(root, 'out', path.relative(root, src));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(src, dest);
  }
}

async function main() {
  const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', absWorkingDir: root, target: 'es2022' };
  const builds = shipped.map((o) => esbuild.build({ ...common, ...o }));
  if (!args.has('--ship-only')) {
    const testEntries = [
      ...walk(path.join(root, 'src'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts')),
      ...walk(path.join(root, 'test'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.includes(`${path.sep}vscode${path.sep}`)),
      ...walk(path.join(root, 'bench'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts')),
    ];
    builds.push(esbuild.build({
      entryPoints: testEntries, outdir: 'out', outbase: '.', bundle: false, platform: 'node', format: 'cjs',
      sourcemap: true, logLevel: 'warning', absWorkingDir: root, target: 'es2022',
    }));
  }
  // Every build runs to the end so one broken entry point does not hide the others' errors.
  const results = await Promise.allSettled(builds);
  copyGrammars();
  copyJson();
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length) {
    for (const f of failed) console.error(f.reason instanceof Error ? f.reason.message : f.reason);
    process.exit(1);
  }
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
