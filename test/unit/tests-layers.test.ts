import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadTask } from '../../src/core/loader/index';
import { mountedTestFiles, testsLayers } from '../../src/core/model/task';
import { testsEntries } from '../../src/core/sandbox/testsArchive';
import { tempTree } from '../support/taskFolders';

/**
 * Harbor's multi-step layering of the verifier's files: the task-level tests/ is uploaded to /tests
 * for every step, then the step's own tests/ over it (same names override). The loader, the audit's
 * view of /tests and the archive the sandbox sends must all agree on it.
 */
const task = (files: Record<string, string>): string => tempTree(files, 'tw-layers-');

const TOML = 'version = "1.1"\n[verifier]\ntimeout_sec = 30.0\n[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n';
const BASE = {
  'task.toml': TOML, 'environment/Dockerfile': 'FROM debian:bookworm-slim\n',
  'steps/one/instruction.md': 'Write hello to /app/a.\n', 'steps/two/instruction.md': 'Write bye to /app/b.\n',
  'tests/helpers.sh': 'pass() { echo 1 > /logs/verifier/reward.txt; }\n', 'tests/test.sh': '#!/bin/bash\necho fallback\n', 'tests/data/x.txt': 'shared\n',
  'steps/one/tests/test.sh': '#!/bin/bash\nsource /tests/helpers.sh\npass\n', 'steps/one/tests/data/x.txt': 'step one\n',
};

void describe('multi-step tests layers (task-level tests/ under each step\'s own)', () => {
  void it('the loader names the shared folder for a step that has tests of its own, and not for one that falls back', async () => {
    const dir = task(BASE);
    try {
      const t = await loadTask(dir);
      assert.deepEqual(t.steps?.map((s) => [s.name, s.verifierEntry, s.testsDir, s.sharedTestsDir ?? null]), [
        ['one', 'steps/one/tests/test.sh', 'steps/one/tests', 'tests'],
        ['two', 'tests/test.sh', 'tests', null],
      ]);
      assert.deepEqual(testsLayers(t.verifier), ['tests', 'steps/one/tests']);
      // What /tests holds for step one: the shared helper and fallback script, the step's own test.sh and data over them.
      assert.deepEqual(mountedTestFiles(t).sort((a, b) => a.rel.localeCompare(b.rel)), [
        { rel: 'data/x.txt', file: 'steps/one/tests/data/x.txt' },
        { rel: 'helpers.sh', file: 'tests/helpers.sh' },
        { rel: 'test.sh', file: 'steps/one/tests/test.sh' },
      ]);
      // The sandbox's archive: each name once, the step's file winning, folders kept.
      const entries = testsEntries(t, 'tests');
      const byName = new Map(entries.map((e) => [e.name, e]));
      assert.equal(entries.length, byName.size);
      assert.equal(byName.get('tests/test.sh')?.source, path.join(dir, 'steps/one/tests/test.sh'));
      assert.equal(byName.get('tests/data/x.txt')?.source, path.join(dir, 'steps/one/tests/data/x.txt'));
      assert.equal(byName.get('tests/helpers.sh')?.source, path.join(dir, 'tests/helpers.sh'));
      assert.equal(byName.get('tests/data')?.type, 'dir');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('a single-step task has one layer, its tests/', async () => {
    const dir = task({ 'task.toml': 'version = "1.0"\n', 'instruction.md': 'Say hi.\n', 'environment/Dockerfile': 'FROM debian:bookworm-slim\n', 'tests/test.sh': '#!/bin/bash\n' });
    try {
      const t = await loadTask(dir);
      assert.deepEqual(testsLayers(t.verifier), ['tests']);
      assert.deepEqual(mountedTestFiles(t), [{ rel: 'test.sh', file: 'tests/test.sh' }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
