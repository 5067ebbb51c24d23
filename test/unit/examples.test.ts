import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { loadTasks } from '../../src/core/discovery/index';
import type { Task } from '../../src/core/model/task';

// Compiled to out/test/unit/: the repository root is three levels up.
const ROOT = path.resolve(__dirname, '../../..');
const EXAMPLES = path.join(ROOT, 'examples', 'tasks');
const README = path.join(ROOT, 'examples', 'README.md');
const CHECK_SCRIPT = path.join(ROOT, 'scripts', 'check-examples.sh');

/** Files each format's harness needs, relative to the task folder. */
const REQUIRED_FILES: Readonly<Record<Task['format'], readonly string[]>> = {
  harbor: ['task.toml', 'instruction.md', 'environment/Dockerfile', 'solution/solve.sh', 'tests/test.sh', 'tests/test_outputs.py'],
  tb1: ['task.yaml', 'Dockerfile', 'docker-compose.yaml', 'run-tests.sh', 'solution.sh', 'tests/test_outputs.py'],
};

/** Commands that would reach a registry or mirror: the examples must run offline. */
const NETWORK_COMMANDS = /\b(pip3?|uv|uvx|apt-get|apt|curl|wget|npm|git)\s+(install|add|update|clone|pip|https?:)|\bcurl\b|\bwget\b/;

/** Task ids named in the first column of the README's "Deliberate defects" table. */
function documentedDefects(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Deliberate defects'));
  assert.ok(section, 'examples/README.md has no "## Deliberate defects" section');
  const ids: string[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([a-z0-9][a-z0-9-]*)`\s*\|/.exec(line);
    if (m?.[1]) ids.push(m[1]);
  }
  return ids;
}

/** Task ids listed in check-examples.sh's EXPECT table (the tasks whose trials show a defect). */
function scriptExpectations(script: string): string[] {
  const block = /declare -A EXPECT=\(([\s\S]*?)\n\)/.exec(script)?.[1] ?? '';
  return [...block.matchAll(/\[([a-z0-9-]+)\]=/g)].map((m) => m[1] as string);
}

async function read(task: Task, rel: string): Promise<string> {
  return fs.readFile(path.join(task.dir, rel), 'utf8');
}

void describe('example tasks', () => {
  let tasks: Task[] = [];
  before(async () => {
    tasks = await loadTasks([EXAMPLES]);
  });

  void it('has at least six tasks, at least three in each format', () => {
    assert.ok(tasks.length >= 6, `only ${tasks.length} tasks`);
    assert.ok(tasks.filter((t) => t.format === 'harbor').length >= 3);
    assert.ok(tasks.filter((t) => t.format === 'tb1').length >= 3);
  });

  void it('loads every task without problems of severity error', () => {
    for (const t of tasks) {
      const errors = t.problems.filter((p) => p.severity === 'error');
      assert.deepEqual(errors.map((p) => `${p.rule}: ${p.message}`), [], t.id);
      assert.ok(t.instruction && t.instruction.trim().length > 40, `${t.id}: instruction`);
      assert.notEqual(t.metadata.difficulty, 'unknown', `${t.id}: difficulty`);
    }
  });

  void it('keeps every file each format needs, with executable scripts', async () => {
    for (const t of tasks) {
      for (const rel of REQUIRED_FILES[t.format]) {
        assert.ok(t.files.includes(rel), `${t.id}: missing ${rel}`);
      }
      for (const rel of REQUIRED_FILES[t.format].filter((f) => f.endsWith('.sh'))) {
        const mode = (await fs.stat(path.join(t.dir, rel))).mode;
        assert.ok(mode & 0o100, `${t.id}: ${rel} is not executable`);
      }
    }
  });

  void it('builds from the local debian:bookworm-slim stand-in and installs nothing from the network', async () => {
    for (const t of tasks) {
      const dockerfile = await read(t, REQUIRED_FILES[t.format][t.format === 'harbor' ? 2 : 1] as string);
      assert.match(dockerfile, /^FROM debian:bookworm-slim\s*$/m, t.id);
      assert.doesNotMatch(dockerfile, /^RUN .*(apt-get|pip|curl|wget)/m, t.id);
      const verifier = await read(t, t.format === 'harbor' ? 'tests/test.sh' : 'run-tests.sh');
      assert.doesNotMatch(verifier, NETWORK_COMMANDS, `${t.id}: the verifier installs at test time`);
      assert.match(verifier, /^\/usr\/bin\/python3 -I -m pytest .*test_outputs\.py"? -rA/m, `${t.id}: pytest with -rA`);
      // Files the agent plants in / or the working directory must not configure the verifier's pytest, and
      // nothing it puts on PATH or in site-packages may stand in for it (validate's cheat probes).
      assert.match(verifier, /^\/usr\/bin\/python3 -I -m pytest --noconftest -c \/dev\/null /m, `${t.id}: pytest isolated from planted conftest/ini`);
    }
  });

  void it('keeps notes about defects out of the task folders (an agent could read them)', () => {
    for (const t of tasks) {
      const leaks = t.files.filter((f) => /(^|\/)(DEFECT|NOTES?|README)[^/]*$/i.test(f));
      assert.deepEqual(leaks, [], t.id);
    }
  });

  void it('writes the Harbor reward file from the verifier', async () => {
    for (const t of tasks.filter((x) => x.format === 'harbor')) {
      assert.match(await read(t, 'tests/test.sh'), /\/logs\/verifier\/reward\.txt/, t.id);
    }
  });

  void it('documents at least two deliberate defects, each naming an existing task', async () => {
    const defects = documentedDefects(await fs.readFile(README, 'utf8'));
    assert.ok(defects.length >= 2, `only ${defects.length} documented defects`);
    const ids = new Set(tasks.map((t) => t.id));
    for (const d of defects) assert.ok(ids.has(d), `examples/README.md names ${d}, which is not a task`);
    assert.ok(defects.some((d) => tasks.find((t) => t.id === d)?.format === 'harbor'), 'a Harbor defect');
    assert.ok(defects.some((d) => tasks.find((t) => t.id === d)?.format === 'tb1'), 'a TB1 defect');
  });

  void it('lists the same defective tasks in check-examples.sh as in the README', async () => {
    const documented = documentedDefects(await fs.readFile(README, 'utf8')).sort();
    const expected = scriptExpectations(await fs.readFile(CHECK_SCRIPT, 'utf8')).sort();
    assert.deepEqual(expected, documented);
  });

  void it('lists every task in the README overview table', async () => {
    const readme = await fs.readFile(README, 'utf8');
    const overview = readme.split(/^## /m)[0] ?? '';
    for (const t of tasks) assert.ok(overview.includes(`| \`${t.id}\` |`), `${t.id} is not in the README overview`);
  });
});
