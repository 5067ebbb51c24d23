import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { datasetOf, discoverTaskDirs, loadTasks } from '../../src/core/discovery/index';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/loader');

/** A workspace with nested datasets, folders that must be skipped, and symlinks that loop. */
async function makeTree(): Promise<string> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'taskwright-discovery-')));
  const file = async (rel: string, text = ''): Promise<void> => {
    const p = path.join(root, ...rel.split('/'));
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.writeFile(p, text);
  };
  await file('datasets/tb1/task-a/task.yaml', 'instruction: a\n');
  await file('datasets/harbor/nested/deeper/task-b/task.toml', '[metadata]\n');
  await file('datasets/harbor/task-c/task.toml', '[metadata]\n');
  // A config inside a task folder is that task's own file (a fixture), not another task.
  await file('datasets/harbor/task-c/tests/fixtures/task.yaml', 'instruction: fixture\n');
  await file('node_modules/some-pkg/task.yaml', 'instruction: no\n');
  await file('.git/task.toml', '');
  await file('.taskwright/cache/copy/task.yaml', 'instruction: no\n');
  await file('vendor/x/task.yaml', 'instruction: no\n');
  await file('notes/readme.md', 'no tasks here\n');
  await fs.symlink(root, path.join(root, 'loop'), 'dir');
  await fs.symlink('../..', path.join(root, 'datasets/harbor/up'), 'dir');
  // A link that reaches a dataset already seen by its real path adds nothing.
  await fs.symlink(path.join(root, 'datasets/tb1'), path.join(root, 'datasets/a-link-to-tb1'), 'dir');
  // A link to a folder outside the workspace is followed.
  const outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'taskwright-outside-')));
  await fs.mkdir(path.join(outside, 'task-d'));
  await fs.writeFile(path.join(outside, 'task-d', 'task.yaml'), 'instruction: d\n');
  await fs.symlink(outside, path.join(root, 'linked'), 'dir');
  return root;
}

void describe('discovery', () => {
  let root = '';
  before(async () => { root = await makeTree(); });
  after(async () => {
    const outside = await fs.realpath(path.join(root, 'linked'));
    await fs.rm(root, { recursive: true, force: true });
    await fs.rm(outside, { recursive: true, force: true });
  });

  void it('finds nested tasks, treats task folders as leaves, skips ignored folders and survives symlink loops', async () => {
    const dirs = await discoverTaskDirs([root], { ignore: ['vendor'] });
    assert.deepEqual(dirs, [
      path.join(root, 'datasets/harbor/nested/deeper/task-b'),
      path.join(root, 'datasets/harbor/task-c'),
      path.join(root, 'datasets/tb1/task-a'),
      path.join(root, 'linked/task-d'),
    ]);
  });

  void it('searches extra-ignored folders only when not asked to skip them', async () => {
    const dirs = await discoverTaskDirs([root]);
    assert.ok(dirs.includes(path.join(root, 'vendor/x')));
    assert.ok(!dirs.some((d) => d.includes('node_modules') || d.includes('.git') || d.includes('.taskwright')));
  });

  void it('accepts a task folder, or its config file, as a root, and deduplicates overlapping roots', async () => {
    const a = path.join(root, 'datasets/tb1/task-a');
    assert.deepEqual(await discoverTaskDirs([a]), [a]);
    assert.deepEqual(await discoverTaskDirs([path.join(a, 'task.yaml')]), [a]);
    assert.deepEqual(await discoverTaskDirs([path.join(root, 'datasets/tb1'), a]), [a]);
    assert.deepEqual(await discoverTaskDirs([path.join(root, 'missing')]), []);
  });

  void it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await assert.rejects(discoverTaskDirs([root], { signal: controller.signal }), /stop/);
    await assert.rejects(loadTasks([root], { signal: controller.signal }), /stop/);
  });

  void it('loads every discovered task in path order', async () => {
    const tasks = await loadTasks([FIXTURES]);
    assert.deepEqual(tasks.map((t) => `${t.format}:${t.id}`), [
      'harbor:csv-summary',
      'harbor:legacy-resources',
      'harbor:multi-step-notes',
      'harbor:harbor-bad-values',
      'harbor:toml-syntax-error',
      'tb1:yaml-no-instruction',
      'tb1:yaml-syntax-error',
      'tb1:fix-permissions',
      'tb1:hello-world',
    ]);
  });

  void it('labels datasets by the parent folder relative to the root', () => {
    const r = path.join(root, 'ws');
    assert.equal(datasetOf(path.join(r, 'datasets/tb2/hello'), [r]), 'datasets/tb2');
    assert.equal(datasetOf(path.join(r, 'hello'), [r]), 'ws');
    assert.equal(datasetOf(r, [r]), path.basename(root));
    assert.equal(datasetOf(path.join(r, 'tasks/hello'), [r, path.join(root, 'other')]), 'ws/tasks');
    assert.equal(datasetOf(path.join(r, 'a/b/t'), [r, path.join(r, 'a')]), 'a/b', 'the innermost root wins');
    assert.equal(datasetOf('/elsewhere/set/t', [r]), 'set');
  });
});
