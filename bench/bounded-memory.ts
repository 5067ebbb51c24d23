/**
 * Peak memory of `taskwright run` whatever a task writes (issue 16): each case is one CLI run of the
 * oracle on a generated Harbor task, in a fresh process, its peak RSS read by GNU time (`%M`).
 * Cases: a verifier printing 512 MB, a verifier writing a 512 MB file into /logs/verifier, a 64 MB
 * reward.txt, an agent printing 512 MB, a 512 MB file in the task's tests folder, and `--verbose`
 * with a reader that takes 4 MB/s. Uses the daemon in DOCKER_HOST (run it on your own:
 * `TASKWRIGHT_DOCKERD2_DIR=/tmp/tw-bench bash scripts/docker-engine.sh --second`).
 * `node scripts/build.mjs && DOCKER_HOST=... node out/bench/bounded-memory.js [--write]`
 * (`--write` updates bench/RELIABILITY.md between the `bounded-memory` markers; `--only a,b` runs the
 * cases whose names contain a or b and keeps the other rows of the written table as they were).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRun } from '../src/core/results/store';
import { harborTask } from '../test/support/taskFolders';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'bin/taskwright.js');
const MB = 1024 * 1024;
const TEST = (body: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\n${body}\n`;

interface Case {
  readonly name: string;
  readonly files: Readonly<Record<string, string>>;
  readonly big?: { readonly rel: string; readonly bytes: number };
  readonly verbose?: boolean;
}

const CASES: readonly Case[] = [
  { name: 'verifier prints 512 MB', files: { 'tests/test.sh': TEST('head -c 536870912 /dev/zero | tr "\\0" x\necho 1 > /logs/verifier/reward.txt') } },
  { name: 'verifier writes a 512 MB file in /logs/verifier', files: { 'tests/test.sh': TEST('head -c 536870912 /dev/zero > /logs/verifier/huge.log\necho 1 > /logs/verifier/reward.txt') } },
  { name: '64 MB reward.txt', files: { 'tests/test.sh': TEST('head -c 67108864 /dev/zero | tr "\\0" 1 > /logs/verifier/reward.txt') } },
  { name: 'agent prints 512 MB', files: { 'solution/solve.sh': '#!/bin/bash\nhead -c 536870912 /dev/zero | tr "\\0" y\necho hello > /app/greeting.txt\n' } },
  { name: '512 MB file in the tests folder', files: {}, big: { rel: 'tests/blob.bin', bytes: 512 * MB } },
  { name: '--verbose, verifier prints 128 MB, reader 4 MB/s', verbose: true, files: { 'tests/test.sh': TEST('head -c 134217728 /dev/zero | tr "\\0" x\necho 1 > /logs/verifier/reward.txt') } },
];

interface Row { name: string; peakMb: number; outcome: string; seconds: number; logBytes: number }

async function runCase(c: Case, work: string): Promise<Row> {
  const dir = harborTask(path.join(work, c.name.replace(/[^a-z0-9]+/gi, '-')), c.files);
  if (c.big) {
    const fd = fs.openSync(path.join(dir, c.big.rel), 'w');
    const chunk = Buffer.alloc(8 * MB, 0x61);
    for (let n = 0; n < c.big.bytes; n += chunk.length) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
  }
  const results = path.join(work, 'results');
  // GNU time writes %M to its own file: on stderr it would share the pipe with the trial's output.
  const timeFile = path.join(work, `${c.name.replace(/[^a-z0-9]+/gi, '-')}.time`);
  const args = ['-o', timeFile, '-f', '%M', process.execPath, CLI, 'run', dir, '--agent', 'oracle', '--results', results, ...(c.verbose ? ['--verbose'] : [])];
  const started = Date.now();
  const child = spawn('/usr/bin/time', args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let err = '';
  // With --verbose the trial's output goes to stderr: read it slowly (a slow terminal), keep only the tail.
  child.stderr.pause();
  const drain = setInterval(() => {
    for (let i = 0; i < 16; i++) {
      const c2 = child.stderr.read(64 * 1024) as Buffer | null;
      if (!c2) break;
      const t = c2.toString();
      err = (err + t).slice(-4096);
    }
  }, c.verbose ? 250 : 1);
  child.stdout.on('data', () => undefined);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearInterval(drain);
  for (let c2 = child.stderr.read() as Buffer | null; c2; c2 = child.stderr.read() as Buffer | null) err = (err + c2.toString()).slice(-4096);
  const timeOut = fs.existsSync(timeFile) ? fs.readFileSync(timeFile, 'utf8') : '';
  const peakKb = Number(/(?:^|\n)(\d+)\s*$/.exec(timeOut.trim())?.[1] ?? NaN);
  if (Number.isNaN(peakKb)) console.error(`${c.name}: no peak RSS from GNU time (${JSON.stringify(timeOut.slice(-200))}); the CLI's last bytes: ${JSON.stringify(err.slice(-200))}`);
  const runDir = fs.readdirSync(results).map((d) => path.join(results, d)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
  const rec = readRun(runDir).trials[0];
  let logBytes = 0;
  for (const e of fs.readdirSync(runDir, { withFileTypes: true, recursive: true })) if (e.isFile()) logBytes += fs.statSync(path.join(e.parentPath, e.name)).size;
  fs.rmSync(dir, { recursive: true, force: true });
  return { name: c.name, peakMb: Math.round(peakKb / 1024), outcome: rec ? `${rec.outcome}${rec.reward !== null ? ` (${rec.reward})` : ''}` : 'no record', seconds: Math.round((Date.now() - started) / 1000), logBytes };
}

function optionValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The table rows already written, by case name (kept for the cases `--only` leaves out). */
function writtenRows(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const block = /<!-- bounded-memory:begin -->([\s\S]*?)<!-- bounded-memory:end -->/.exec(text)?.[1] ?? '';
  for (const line of block.split('\n')) {
    const name = /^\| ([^|]+?) \| \d/.exec(line)?.[1];
    if (name) out.set(name, line);
  }
  return out;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-mem-'));
  const rows: Row[] = [];
  const only = optionValue('--only')?.split(',').map((s) => s.trim()).filter(Boolean);
  const selected = CASES.filter((c) => !only || only.some((o) => c.name.includes(o)));
  try {
    for (const c of selected) {
      const r = await runCase(c, work);
      rows.push(r);
      console.log(`${r.name}: peak RSS ${r.peakMb} MB, ${r.outcome}, ${r.seconds} s, run folder ${(r.logBytes / MB).toFixed(1)} MB`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const file = path.join(ROOT, 'bench/RELIABILITY.md');
  const text = fs.readFileSync(file, 'utf8');
  const kept = writtenRows(text);
  const fresh = new Map(rows.map((r) => [r.name, `| ${r.name} | ${r.peakMb} MB | ${r.outcome} | ${(r.logBytes / MB).toFixed(1)} MB | ${r.seconds} s |`]));
  const section = [
    '<!-- bounded-memory:begin -->',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node out/bench/bounded-memory.js${only ? ' --only …' : ''}\` (${only ? `rows of ${rows.map((r) => r.name).join('; ')} from this run, the others from the last full run; ` : ''}one CLI run each, oracle, peak RSS by GNU time; 2 shared cores under load). Goal: peak RSS under 300 MB in every case.`,
    '',
    '| case | peak RSS | outcome | run folder | time |',
    '|---|---|---|---|---|',
    ...CASES.map((c) => fresh.get(c.name) ?? kept.get(c.name)).filter((l): l is string => l !== undefined),
    '<!-- bounded-memory:end -->',
  ].join('\n');
  if (process.argv.includes('--write')) {
    fs.writeFileSync(file, text.replace(/<!-- bounded-memory:begin -->[\s\S]*?<!-- bounded-memory:end -->/, () => section));
  } else console.log(section);
}

void main();
