/**
 * The audit at dataset scale, on real tasks: the whole corpus through the CLI (worker threads,
 * streamed report) and edit → findings on real tasks as the editor re-audits them.
 *   node scripts/build.mjs && node out/bench/audit-scale.js [--corpus DIR] [--jobs N] [--edits 300] [--write]
 * The corpus is TASKWRIGHT_CORPUS_DIR or /work/corpus (fetched public repositories; never copied into
 * the repository). `--write` records the figures in bench/RESULTS.md (section "Audit at scale"), with the
 * load average seen during each measurement: the machine is shared.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { auditTaskFingerprinted } from '../src/core/audit/index';
import { discoverTaskDirs } from '../src/core/discovery/index';
import { loadTask } from '../src/core/loader/index';
import { ensureParsers } from '../src/core/parse/treeSitter';
import { writeResultsSection } from './resultsFile';

const ROOT = path.resolve(__dirname, '../..');

function opt(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const load = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

interface CliRun { format: string; wallSec: number; cpuSec: number; maxRssMb: number; bytes: number; tasks: number; loadBefore: string; loadAfter: string }

/** Runs the CLI with a preload that reports the process's CPU time and peak RSS (all threads) at exit. */
async function cli(corpus: string, format: string, jobs: string | undefined, tmp: string): Promise<CliRun> {
  const hook = path.join(ROOT, 'bench/usage-hook.cjs');
  const usage = path.join(tmp, `usage-${format}.json`);
  fs.rmSync(usage, { force: true });
  const outFile = path.join(tmp, `out.${format}`);
  const out = fs.openSync(outFile, 'w');
  const loadBefore = load();
  const t0 = performance.now();
  const code = await new Promise<number>((resolve, reject) => {
    const args = ['--require', hook, path.join(ROOT, 'bin/taskwright.js'), 'audit', corpus, '--format', format, '--fail-on', 'never', ...(jobs ? ['--jobs', jobs] : [])];
    const p = spawn(process.execPath, args, { stdio: ['ignore', out, 'inherit'], env: { ...process.env, TASKWRIGHT_USAGE_FILE: usage } });
    p.on('error', reject);
    p.on('exit', (c) => resolve(c ?? 1));
  });
  const wallSec = (performance.now() - t0) / 1000;
  fs.closeSync(out);
  if (code !== 0) throw new Error(`taskwright audit --format ${format} exited ${code}`);
  const u = JSON.parse(fs.readFileSync(usage, 'utf8')) as { cpu: number; rss: number };
  const bytes = fs.statSync(outFile).size;
  const tasks = format === 'json' ? (JSON.parse(fs.readFileSync(outFile, 'utf8')) as { tasks: unknown[] }).tasks.length : 0;
  return { format, wallSec, cpuSec: u.cpu, maxRssMb: u.rss, bytes, tasks, loadBefore, loadAfter: load() };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Edit → findings on real tasks: the verifier script edited in an overlay, task re-loaded and re-audited. */
async function editLatency(corpus: string, edits: number): Promise<{ p50: number; p95: number; max: number; tasks: number; load: string }> {
  await ensureParsers();
  const dirs = await discoverTaskDirs([corpus]);
  const step = Math.max(1, Math.floor(dirs.length / 50));
  const sample = dirs.filter((_, i) => i % step === 0).slice(0, 50);
  const prepared: { dir: string; file: string; text: string }[] = [];
  for (const dir of sample) {
    const task = await loadTask(dir);
    const file = task.files.includes(task.verifier.entry) ? task.verifier.entry : undefined;
    if (!file) continue;
    prepared.push({ dir, file: path.join(dir, file), text: fs.readFileSync(path.join(dir, file), 'utf8') });
    await auditTaskFingerprinted(task); // warm: the editor has audited the task once when it was opened
  }
  const times: number[] = [];
  for (let k = 0; k < edits; k++) {
    const p = prepared[k % prepared.length];
    if (!p) break;
    const overlay = new Map([[p.file, `${p.text}\n# edit ${k}\n`]]);
    const t0 = performance.now();
    const task = await loadTask(p.dir, { overlay });
    await auditTaskFingerprinted(task, { overlay });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p95: pct(times, 95), max: times[times.length - 1] ?? 0, tasks: prepared.length, load: load() };
}

async function main(): Promise<void> {
  const corpus = opt('corpus') ?? process.env['TASKWRIGHT_CORPUS_DIR'] ?? '/work/corpus';
  const jobs = opt('jobs');
  const edits = Number(opt('edits') ?? 300);
  const formats = (opt('formats') ?? 'json,sarif').split(',');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-audit-scale-'));
  try {
    const runs: CliRun[] = [];
    for (const f of formats) {
      const r = await cli(corpus, f, jobs, tmp);
      console.log(`${f}: ${r.wallSec.toFixed(1)} s wall, ${r.cpuSec.toFixed(1)} CPU-s, peak RSS ${r.maxRssMb.toFixed(0)} MB, ${(r.bytes / 1e6).toFixed(1)} MB out, load ${r.loadBefore} → ${r.loadAfter}`);
      runs.push(r);
    }
    const edit = await editLatency(corpus, edits);
    console.log(`edit → findings on ${edit.tasks} real tasks, ${edits} edits: p50 ${edit.p50.toFixed(2)} ms, p95 ${edit.p95.toFixed(2)} ms, max ${edit.max.toFixed(2)} ms (load ${edit.load})`);
    if (process.argv.includes('--write')) write(corpus, jobs, runs, edit, edits);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function write(corpus: string, jobs: string | undefined, runs: CliRun[], edit: Awaited<ReturnType<typeof editLatency>>, edits: number): void {
  const tasks = runs.find((r) => r.tasks)?.tasks ?? 0;
  const cpu = os.cpus();
  const lines = [
    '<!-- audit-scale:begin -->',
    '## Audit at scale',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores shared with the team's other jobs, Node ${process.version}.`,
    `Command: \`node scripts/build.mjs && node out/bench/audit-scale.js --write\` (corpus ${corpus}: ${tasks} real public tasks; ${jobs ? `--jobs ${jobs}` : 'one worker per core'}).`,
    '',
    '| measure | result | load average (1/5/15 min) before → after | goal |',
    '|---|---|---|---|',
    ...runs.map((r) => `| \`taskwright audit CORPUS --format ${r.format}\`, whole corpus | **${r.wallSec.toFixed(1)} s** wall, ${r.cpuSec.toFixed(1)} CPU-s, peak RSS **${r.maxRssMb.toFixed(0)} MB** (${(r.bytes / 1e6).toFixed(1)} MB written) | ${r.loadBefore} → ${r.loadAfter} | ≤ 15 s, ≤ 400 MB |`),
    `| edit → findings (overlay re-load + audit with fingerprints) on ${edit.tasks} real tasks, ${edits} edits of the verifier script | p50 **${edit.p50.toFixed(2)} ms**, p95 **${edit.p95.toFixed(2)} ms** (max ${edit.max.toFixed(2)} ms) | ${edit.load} | p95 ≤ 20 ms |`,
    '',
    'Peak RSS is the whole process (main thread and workers: `process.resourceUsage().maxRSS`). CPU-s over wall',
    'time shows how many cores the run actually got: with a load average far above 2 the workers wait for',
    'the CPU, so the wall time here is the shared machine\'s, not the audit\'s.',
    '<!-- audit-scale:end -->',
  ];
  writeResultsSection('audit-scale', lines.join('\n'));
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
