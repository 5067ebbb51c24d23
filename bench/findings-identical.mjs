#!/usr/bin/env node
// Guards speed work on the audit (issue 11): a change that makes the audit faster must not change a
// single finding. Runs the built CLI's `audit CORPUS --format json` (or `--format sarif`, which also carries related locations) over the whole laid-out corpus once,
// with a preload that reports CPU time and peak RSS (all threads), and either saves the output as the
// reference (--save) or asserts it is byte-identical to one saved before the change (--check).
//   node scripts/build.mjs && node bench/findings-identical.mjs --save /tmp/findings-before.json
//   ... change ...
//   node scripts/build.mjs && node bench/findings-identical.mjs --check /tmp/findings-before.json
// The corpus is --corpus, else $TASKWRIGHT_CORPUS_DIR, else bench/.corpus (laid out by
// bench/accuracy/run.mjs). Exit 1 when the findings differ; the first differing task is printed.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({
  options: { corpus: { type: 'string' }, save: { type: 'string' }, check: { type: 'string' }, jobs: { type: 'string' }, out: { type: 'string' }, format: { type: 'string', default: 'json' } },
});
if (!opt.save === !opt.check) { console.error('usage: findings-identical.mjs (--save FILE | --check FILE) [--corpus DIR] [--jobs N] [--out FILE] [--format json|sarif]'); process.exit(2); }
// SARIF also carries each finding's related locations, which the JSON report leaves out.
if (!['json', 'sarif'].includes(opt.format)) { console.error(`--format must be json or sarif, not ${opt.format}`); process.exit(2); }
const corpus = path.resolve(opt.corpus ?? process.env.TASKWRIGHT_CORPUS_DIR ?? path.join(ROOT, 'bench/.corpus'));
if (!fs.existsSync(corpus)) { console.error(`no corpus at ${corpus}: run bench/accuracy/run.mjs once to lay it out`); process.exit(2); }

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' / ');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-identical-'));
const hook = path.join(ROOT, 'bench/usage-hook.cjs');
const usage = path.join(tmp, 'usage.json');
const outFile = opt.save ? path.resolve(opt.save) : (opt.out ? path.resolve(opt.out) : path.join(tmp, 'findings.json'));

const loadBefore = load();
const t0 = process.hrtime.bigint();
const fd = fs.openSync(outFile, 'w');
const code = await new Promise((resolve, reject) => {
  const args = ['--require', hook, path.join(ROOT, 'bin/taskwright.js'), 'audit', corpus, '--format', opt.format, '--fail-on', 'never', ...(opt.jobs ? ['--jobs', opt.jobs] : [])];
  const p = spawn(process.execPath, args, { stdio: ['ignore', fd, 'inherit'], env: { ...process.env, TASKWRIGHT_USAGE_FILE: usage } });
  p.on('error', reject);
  p.on('exit', (c) => resolve(c ?? 1));
});
fs.closeSync(fd);
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
if (code !== 0) { console.error(`taskwright audit exited ${code}`); process.exit(1); }
const u = JSON.parse(fs.readFileSync(usage, 'utf8'));
const bytes = fs.readFileSync(outFile);
const sha = crypto.createHash('sha256').update(bytes).digest('hex');
// The units compared when the outputs differ: tasks of the JSON report, results of the SARIF log.
const unitsOf = (report) => (opt.format === 'sarif' ? (report.runs ?? []).flatMap((r) => r.results ?? []) : report.tasks);
const keyOf = (u, i) => (opt.format === 'sarif' ? String(i) : u.path);
const units = unitsOf(JSON.parse(bytes.toString('utf8')));
const findings = opt.format === 'sarif' ? units.length : units.reduce((a, t) => a + t.findings.length, 0);
console.log(`audit ${corpus}: ${opt.format === 'sarif' ? '' : `${units.length} tasks, `}${findings} findings, ${bytes.length} bytes, sha256 ${sha.slice(0, 16)}`);
console.log(`wall ${wall.toFixed(2)} s, CPU ${u.cpu.toFixed(2)} s, peak RSS ${u.rss.toFixed(0)} MB; load average ${loadBefore} → ${load()}`);

if (opt.check) {
  const before = fs.readFileSync(path.resolve(opt.check));
  if (before.equals(bytes)) { console.log(`findings byte-identical to ${opt.check}`); fs.rmSync(tmp, { recursive: true, force: true }); process.exit(0); }
  const old = JSON.parse(before.toString('utf8'));
  const oldUnits = unitsOf(old);
  const byKey = new Map(oldUnits.map((u, i) => [keyOf(u, i), JSON.stringify(u)]));
  let shown = 0;
  for (const [i, u] of units.entries()) {
    if (byKey.get(keyOf(u, i)) === JSON.stringify(u)) continue;
    console.error(`differs: ${keyOf(u, i)}\n  before: ${(byKey.get(keyOf(u, i)) ?? '(absent)').slice(0, 600)}\n  after:  ${JSON.stringify(u).slice(0, 600)}`);
    if (++shown >= 5) break;
  }
  if (oldUnits.length !== units.length) console.error(`${opt.format === 'sarif' ? 'result' : 'task'} count ${oldUnits.length} → ${units.length}`);
  if (opt.format === 'json' && JSON.stringify(old.conventions) !== JSON.stringify(JSON.parse(bytes.toString('utf8')).conventions)) console.error('conventions differ');
  console.error(`FINDINGS DIFFER from ${opt.check} (output kept in ${outFile})`);
  process.exit(1);
}
fs.rmSync(tmp, { recursive: true, force: true });
