/**
 * Audit throughput and edit→findings latency.
 *   node scripts/build.mjs && node out/bench/audit-throughput.js [--tasks 2000] [--write]
 * Generates a corpus under bench/.corpus/audit (git-ignored), audits it on one thread (tasks/s per
 * core), then measures re-auditing one typical task after an edit (overlay text, as the editor does).
 * `--write` records the numbers in bench/RESULTS.md (section "Audit").
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { auditTask } from '../src/core/audit/index';
import { loadTasks } from '../src/core/discovery/index';
import { loadTask } from '../src/core/loader/index';

import { writeResultsSection } from './resultsFile';

const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.join(ROOT, 'bench/.corpus/audit');

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Deterministic pseudo-random numbers, so corpora are comparable between runs. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

function testPy(i: number, r: () => number): string {
  const n = 3 + Math.floor(r() * 6);
  const tests: string[] = [];
  for (let k = 0; k < n; k++) {
    const v = Math.floor(r() * 1000);
    const kind = Math.floor(r() * 4);
    if (kind === 0) tests.push(`def test_value_${k}():\n    data = json.loads(OUT.read_text())\n    assert data["k${k}"] == ${v}, "wrong k${k}"\n`);
    else if (kind === 1) tests.push(`def test_cli_${k}():\n    out = subprocess.run(["python3", "/app/tool.py", "--n", "${v}"], capture_output=True, text=True, timeout=30)\n    assert out.returncode == 0\n    assert out.stdout.strip() == "${v * 2}"\n`);
    else if (kind === 2) tests.push(`def test_lines_${k}():\n    lines = OUT.with_name("lines_${k}.txt").read_text().splitlines()\n    assert sorted(lines) == sorted(str(x) for x in range(${v % 50}))\n`);
    else tests.push(`def test_helper_${k}():\n    check_file("/app/out_${k}.txt", ${v})\n`);
  }
  return `import json\nimport subprocess\nfrom pathlib import Path\n\nOUT = Path("/app/result_${i}.json")\n\n\ndef check_file(p, want):\n    assert Path(p).read_text().strip() == str(want)\n\n\n${tests.join('\n\n')}`;
}

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, text);
  }
}

async function generate(count: number): Promise<void> {
  const stamp = path.join(CORPUS, `.generated-${count}`);
  try { await fs.access(stamp); return; } catch { /* generate */ }
  await fs.rm(CORPUS, { recursive: true, force: true });
  for (let i = 0; i < count; i++) {
    const r = rng(i + 1);
    const defect = i % 10 === 0;
    const dir = path.join(CORPUS, `ds${i % 20}`, `task-${i}`);
    const py = testPy(i, r);
    const pins = `pytest==8.3.${i % 5}`;
    if (i % 2 === 0) {
      await write(dir, {
        'task.toml': `version = "1.0"\n\n[metadata]\ndifficulty = "medium"\ncategory = "bench"\ntags = ["t${i % 7}"]\n\n[verifier]\ntimeout_sec = ${60 + (i % 5) * 30}.0\n\n[agent]\ntimeout_sec = ${600 + i % 100}.0\n\n[environment]\nbuild_timeout_sec = 600.0\ncpus = 1\nmemory_mb = 2048\n`,
        'instruction.md': `Read \`/app/data/input_${i}.csv\` and write the results to \`/app/result_${i}.json\`, one key per column (k0, k1, …).\nAlso print the doubled value of \`--n\` from \`/app/tool.py\`.\n`,
        'environment/Dockerfile': `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir ${pins} numpy==2.1.${i % 3}\nRUN apt-get update && apt-get install -y --no-install-recommends jq && rm -rf /var/lib/apt/lists/*\n\nWORKDIR /app\nCOPY data/ /app/data/\n${defect ? 'COPY tests/ /app/tests/\n' : ''}`,
        [`environment/data/input_${i}.csv`]: `a,b\n${i},${i * 2}\n`,
        'solution/solve.sh': `#!/bin/bash\nset -euo pipefail\npython3 - <<'PY'\nimport json\njson.dump({"k0": ${i}}, open("/app/result_${i}.json", "w"))\nPY\n`,
        'tests/test.sh': `#!/bin/bash\n\nmkdir -p /logs/verifier\n\npytest --noconftest -rA /tests/test_outputs.py${defect ? ' | tee /logs/verifier/log' : ''}\n\nif [ $? -eq 0 ]; then\n  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n`,
        'tests/test_outputs.py': py,
      });
    } else {
      await write(dir, {
        'task.yaml': `instruction: |-\n  Read /app/data/input_${i}.csv and write the results to /app/result_${i}.json,\n  one key per column (k0, k1, …).\nauthor_name: Bench\ndifficulty: medium\ncategory: bench\ntags:\n  - t${i % 7}\nparser_name: pytest\nmax_agent_timeout_sec: ${360 + i % 60}\nmax_test_timeout_sec: 60\n`,
        Dockerfile: `FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir ${pins}\nWORKDIR /app\nCOPY data/ /app/data/\n`,
        [`data/input_${i}.csv`]: `a,b\n${i},${i * 3}\n`,
        'run-tests.sh': `#!/bin/bash\n\nif [ "$PWD" = "/" ]; then\n    echo "Error: No working directory set."\n    exit 1\nfi\n\npytest --noconftest $TEST_DIR/test_outputs.py${defect ? '' : ' -rA'}\n`,
        'solution.sh': `#!/bin/bash\necho '{"k0": ${i}}' > /app/result_${i}.json\n`,
        'tests/test_outputs.py': py,
      });
    }
  }
  await fs.writeFile(stamp, '');
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const count = arg('tasks', 2000);
  const t0 = performance.now();
  await generate(count);
  const genMs = performance.now() - t0;

  const tLoad = performance.now();
  const tasks = await loadTasks([CORPUS]);
  const loadMs = performance.now() - tLoad;
  if (tasks.length < count) throw new Error(`expected ${count} tasks, loaded ${tasks.length}`);

  // Warm-up: tree-sitter initialisation and JIT, on a few tasks.
  for (const t of tasks.slice(0, 20)) await auditTask(t);

  // Sequential on one thread: tasks per second per core. Parse caches are cleared by the corpus's
  // variety (every test file differs), not by us.
  const tAudit = performance.now();
  const cpu0 = process.cpuUsage();
  let findings = 0;
  let withErrors = 0;
  for (const t of tasks) {
    const f = await auditTask(t);
    findings += f.length;
    if (f.some((x) => x.severity === 'error')) withErrors++;
  }
  const auditMs = performance.now() - tAudit;
  const cpu = process.cpuUsage(cpu0);
  const auditCpuMs = (cpu.user + cpu.system) / 1000;

  // Edit → findings: the editor re-loads the edited task from overlay text and re-audits it.
  const typical = tasks.find((t) => t.format === 'harbor' && !t.id.endsWith('0')) ?? tasks[0];
  if (!typical) throw new Error('no task');
  const testFile = path.join(typical.dir, 'tests/test_outputs.py');
  const base = await fs.readFile(testFile, 'utf8');
  const lat: number[] = [];
  for (let k = 0; k < 300; k++) {
    const overlay = new Map([[testFile, `${base}\n\ndef test_edit_${k}():\n    assert json.loads(OUT.read_text())["k0"] == ${k}\n`]]);
    const s = performance.now();
    const task = await loadTask(typical.dir, { overlay });
    await auditTask(task, { overlay });
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  const warm = lat;

  // The machine is shared: wall time includes waiting for a core, CPU time is what one core spent.
  const perCore = tasks.length / (auditCpuMs / 1000);
  const report = {
    tasks: tasks.length,
    generateSec: +(genMs / 1000).toFixed(1),
    loadSec: +(loadMs / 1000).toFixed(2),
    auditSec: +(auditMs / 1000).toFixed(2),
    auditCpuSec: +(auditCpuMs / 1000).toFixed(2),
    tasksPerSecWall: Math.round(tasks.length / (auditMs / 1000)),
    tasksPerSecPerCore: Math.round(perCore),
    msPerTask: +(auditCpuMs / tasks.length).toFixed(3),
    findings,
    tasksWithErrors: withErrors,
    editLatencyMs: { p50: +pct(warm, 50).toFixed(2), p95: +pct(warm, 95).toFixed(2), max: +(warm[warm.length - 1] ?? 0).toFixed(2) },
  };
  console.log(JSON.stringify(report, null, 2));
  if (process.argv.includes('--write')) await writeResults(report);
}

async function writeResults(r: { tasks: number; loadSec: number; auditSec: number; auditCpuSec: number; tasksPerSecWall: number; tasksPerSecPerCore: number; msPerTask: number; findings: number; tasksWithErrors: number; editLatencyMs: { p50: number; p95: number; max: number } }): Promise<void> {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const section = [
    '<!-- audit:begin -->',
    '## Audit',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu}, ${os.cpus().length} cores shared with the rest of the team (load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} during the run), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    'Command: `node scripts/build.mjs && node out/bench/audit-throughput.js --tasks 2000 --write`',
    '(corpus generated into bench/.corpus/audit: half Harbor, half TB1, 3–8 tests per task, 10% with planted defects).',
    '',
    '| measure | result | goal |',
    '|---|---|---|',
    `| static audit, one thread | **${r.tasksPerSecPerCore} tasks/s per core** (${r.msPerTask} CPU-ms/task; ${r.tasks} tasks in ${r.auditCpuSec} CPU-s, ${r.auditSec} s wall = ${r.tasksPerSecWall} tasks/s on the shared machine) | ≥ 1,000 |`,
    `| loading the corpus (discovery + loaders, 8 concurrent) | ${r.loadSec} s | — |`,
    `| edit → findings for a typical task (overlay re-load + audit), 300 edits | p50 **${r.editLatencyMs.p50} ms**, p95 **${r.editLatencyMs.p95} ms** (max ${r.editLatencyMs.max} ms) | p95 ≤ 20 ms |`,
    `| findings | ${r.findings} in total; ${r.tasksWithErrors} tasks with an error (the planted ones) | — |`,
    '',
    `Goals: throughput ${r.tasksPerSecPerCore >= 1000 ? 'met' : '**not met**'}; edit latency p95 ${r.editLatencyMs.p95 <= 20 ? 'met' : '**not met**'} on this run.`,
    'The audit time includes reading each task\'s files, the per-folder config lookup, parsing (tree-sitter',
    'Python/Bash, dockerfile-ast) and every static rule; loading (task.toml / task.yaml) is measured apart.',
    'CPU time is used for "per core" because the two cores were shared with other jobs (a load average far',
    'above 2 also inflates CPU time through cache and scheduler contention, so these are pessimistic).',
    'Profile (`node --cpu-prof bin/taskwright.js audit bench/.corpus/audit --format json`, after the changes below):',
    'of the audit\'s time, tree-sitter parsing (WebAssembly) is ~26%, copying the Python/Bash trees into JS',
    'objects ~25%, garbage collection ~12%, the per-folder config lookup ~4%, dockerfile-ast under 1%; file',
    'reads, shell analysis and the rules make up the rest. The Python test file alone costs ~0.45 ms to parse',
    'and ~0.55 ms to copy, so 1 ms per task is out of reach while every Python file is parsed and copied whole.',
    'Changes measured 2026-12-02: the tree copy asks WebAssembly for the type id only (type name and',
    'namedness from a per-language table), reads field ids instead of names, shares one empty array among',
    'leaves, and builds the by-type node index while copying instead of walking each tree again. Old and new',
    'builds run alternately on the same corpus, 8 pairs, load average 4.7–11: median 5.67 → 5.34 CPU-ms per',
    'task (about 6% less; new was faster in 5 of 8 pairs, so the gain is of the order of the run-to-run',
    'noise on this shared machine). In one process, parse+copy of a corpus test file went 1.16 → 1.02 ms',
    '(median of 6 interleaved runs). Findings identical (2000-task corpus JSON compared byte for byte with the',
    'output before the change; example and fixture tasks identical under old and new parser). Parses are cached',
    'by content, so unchanged files cost nothing on re-audit; the next step is a tree that is read from',
    'WebAssembly lazily instead of copied.',
    '<!-- audit:end -->',
  ].join('\n');
  writeResultsSection('audit', section);
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
