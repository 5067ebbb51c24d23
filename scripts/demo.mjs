#!/usr/bin/env node
// `npm run demo`: the main job on the bundled examples. Ensures a Docker Engine and the offline base
// images, audits the example tasks (static rules), validates them in Docker (nop × N, oracle × N,
// agreement, reward isolation, timeout margin), and prints what is valid, what is not, and why.
// Then it rolls out agents twice per task and writes the solvability band as a self-contained HTML
// report (the same view as the editor's band panel).
//   TASKWRIGHT_DEMO_RUNS    nop/oracle runs per task (default 2)
//   TASKWRIGHT_DEMO_TASKS   folder of tasks (default examples/tasks)
//   TASKWRIGHT_DEMO_AGENTS  agents to roll out, comma-separated (default "oracle,nop"; e.g. add
//                           anthropic:<model> with ANTHROPIC_API_KEY set, or openai:<model>@<url>)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tasksDir = process.env.TASKWRIGHT_DEMO_TASKS ?? 'examples/tasks';
const runs = process.env.TASKWRIGHT_DEMO_RUNS ?? '2';
const cli = path.join(root, 'bin/taskwright.js');

function step(title) {
  process.stderr.write(`\n[demo] ${title}\n`);
}

function mustRun(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`[demo] '${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal}); see its output above.`);
    process.exit(1);
  }
}

function cliJson(args) {
  // stdout carries the JSON; progress goes to the terminal on stderr.
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 && r.status !== 1) {
    console.error(`[demo] taskwright ${args[0]} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
  return JSON.parse(r.stdout.toString('utf8'));
}

// One results store per demo, so the band report speaks of this demo's trials only.
const resultsDir = path.join('.taskwright', 'demo', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, ''));
const agents = (process.env.TASKWRIGHT_DEMO_AGENTS ?? 'oracle,nop').split(',').map((a) => a.trim()).filter(Boolean);

step('Docker Engine');
mustRun('bash', ['scripts/docker-engine.sh']);
step('offline base images (local stand-ins, not the registry images)');
mustRun('bash', ['scripts/base-images.sh']);
if (!fs.existsSync(path.join(root, 'dist/cli.js'))) {
  step('building');
  mustRun(process.execPath, ['scripts/build.mjs']);
}

let audit;
if (fs.existsSync(path.join(root, 'src/core/audit'))) {
  step(`static audit of ${tasksDir}`);
  audit = cliJson(['audit', tasksDir, '--format', 'json', '--fail-on', 'never']);
}

step(`validating ${tasksDir} in Docker (${runs} nop and ${runs} oracle runs per task, plus reward-isolation probes)`);
const validation = cliJson(['validate', tasksDir, '--runs', runs, '--format', 'json', '--results', resultsDir]);

for (const agent of agents) {
  step(`rolling out ${agent}, 2 attempts per task`);
  mustRun(process.execPath, [cli, 'run', tasksDir, '--agent', agent, '--attempts', '2', '--results', resultsDir]);
}
const reportFile = path.join(resultsDir, 'band-report.html');
step('solvability band (pass@2 per task and agent; tasks the validation found broken are marked broken)');
mustRun(process.execPath, [cli, 'band', resultsDir, '--html', reportFile]);

const staticOf = new Map((audit?.tasks ?? []).map((t) => [t.id, t.findings ?? []]));
const rank = { error: 0, warning: 1, info: 2 };
const lines = [];
const width = Math.max(...validation.tasks.map((t) => t.id.length));
lines.push('', '═'.repeat(78), ' Taskwright demo — what is valid, what is not, and why', '═'.repeat(78));
for (const t of validation.tasks) {
  lines.push('', `${t.verdict === 'valid' ? '✔' : '✘'} ${t.id.padEnd(width)}  ${t.verdict.toUpperCase()}   (${t.path})`);
  const bad = t.checks.filter((c) => c.status === 'fail' || c.status === 'error');
  if (!bad.length) lines.push(`    dynamic: oracle passes every run, doing nothing scores 0, verdicts agree, planted files earn nothing`);
  for (const c of bad) lines.push(`    dynamic ${c.name}: ${c.detail}`);
  for (const f of t.findings.filter((x) => x.severity !== 'info')) lines.push(`      → [${f.rule}] ${f.file ?? ''}${f.line ? `:${f.line}` : ''} ${f.message}`);
  const st = (staticOf.get(t.id) ?? []).filter((f) => f.severity !== 'info').sort((a, b) => rank[a.severity] - rank[b.severity]);
  if (audit) {
    if (!st.length) lines.push('    static: no errors or warnings');
    for (const f of st.slice(0, 4)) lines.push(`    static ${f.severity} [${f.rule}] ${f.file ?? ''}${f.line ? `:${f.line}` : ''}: ${f.message}`);
    if (st.length > 4) lines.push(`    static: … and ${st.length - 4} more (taskwright audit ${t.path})`);
  }
}
const counts = {};
for (const t of validation.tasks) counts[t.verdict] = (counts[t.verdict] ?? 0) + 1;
lines.push('', '─'.repeat(78));
lines.push(` ${validation.tasks.length} tasks: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`);
lines.push(` trials, logs and run parameters: ${validation.results}`);
lines.push(` solvability band of ${agents.join(', ')} (open in a browser): ${reportFile}`);
lines.push(' the defects are deliberate and documented in examples/README.md');
console.log(lines.join('\n'));
