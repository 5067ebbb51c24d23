#!/usr/bin/env node
// Lays out a fetched repository snapshot (a bare git directory from the search tool's `fetch`) as
// plain files under a corpus folder, so the audit reads real tasks without their text entering this
// repository. A snapshot may list its largest blobs without holding them: those are written as
// empty files and listed in `<out>/.absent-files` so the bench can ignore findings about them.
// Usage: node bench/accuracy/extract.mjs GITDIR OUTDIR [PATH ...]
// With PATHs, only the files under those folders are laid out (a dataset repository of thousands of
// tasks registered by a sample of its task folders).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [gitDir, outDir, ...only] = process.argv.slice(2);
const wanted = (file) => only.length === 0 || only.some((p) => file === p || file.startsWith(`${p.replace(/\/+$/, '')}/`));
if (!gitDir || !outDir) { console.error('usage: extract.mjs GITDIR OUTDIR'); process.exit(2); }

const tree = spawnSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', 'HEAD'], { maxBuffer: 1 << 30 });
if (tree.status !== 0) { console.error(tree.stderr.toString()); process.exit(1); }
const entries = [];
for (const rec of tree.stdout.toString('utf8').split('\0')) {
  if (!rec) continue;
  const tab = rec.indexOf('\t');
  const [mode, type, sha] = rec.slice(0, tab).split(' ');
  if (type !== 'blob') continue; // submodules (commit) have no content here
  const file = rec.slice(tab + 1);
  if (wanted(file)) entries.push({ mode, sha, file });
}

const root = path.resolve(outDir);
const inside = (p) => p === root || p.startsWith(root + path.sep);
const absent = [];
const cat = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'inherit'] });
let buf = Buffer.alloc(0);
let i = 0;
let want = null; // { size } while reading a body
const queue = [...entries];
function writeEntry(e, body) {
  const dest = path.resolve(root, e.file);
  if (!inside(dest)) return; // never write outside the corpus folder
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (e.mode === '120000') {
    try { fs.unlinkSync(dest); } catch { /* not there */ }
    fs.symlinkSync(body.toString('utf8'), dest);
  } else {
    fs.writeFileSync(dest, body, { mode: e.mode === '100755' ? 0o755 : 0o644 });
  }
}
cat.stdout.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const e = entries[i];
    if (!e) return;
    if (want === null) {
      const nl = buf.indexOf(10);
      if (nl < 0) return;
      const header = buf.subarray(0, nl).toString();
      buf = buf.subarray(nl + 1);
      if (header.endsWith(' missing')) { absent.push(e.file); writeEntry(e, Buffer.alloc(0)); i++; continue; }
      want = Number(header.split(' ')[2]);
    }
    if (buf.length < want + 1) return;
    writeEntry(e, buf.subarray(0, want));
    buf = buf.subarray(want + 1);
    want = null;
    i++;
  }
});
cat.on('close', () => {
  fs.writeFileSync(path.join(root, '.absent-files'), absent.join('\n') + (absent.length ? '\n' : ''));
  console.log(`${entries.length} files, ${absent.length} absent from the snapshot → ${root}`);
});
fs.mkdirSync(root, { recursive: true });
for (const e of queue) cat.stdin.write(e.sha + '\n');
cat.stdin.end();
