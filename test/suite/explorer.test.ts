// Runs inside the real VS Code extension host with `examples/` open: the Task Explorer lists the
// example tasks grouped by dataset, the filter narrows them, New Task scaffolds a working task in
// both formats, and the explorer follows edits made on disk.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, codeOf, until, workspaceDir } from './helpers';

/** Example tasks on disk, by id, with their format (read independently of the extension). */
function tasksOnDisk(root: string): Map<string, 'tb1' | 'harbor'> {
  const out = new Map<string, 'tb1' | 'harbor'>();
  const walk = (dir: string, depth: number): void => {
    if (depth > 4) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (fs.existsSync(path.join(p, 'task.toml'))) out.set(e.name, 'harbor');
      else if (fs.existsSync(path.join(p, 'task.yaml'))) out.set(e.name, 'tb1');
      else walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

/**
 * Writes a Harbor task whose verifier pipes pytest into `tee` without pipefail (pipeline-status-masked,
 * an error), every folder made in one `mkdir -p` and every file right after, with no pause between.
 */
function writeDeepTask(dir: string): void {
  for (const sub of ['environment', 'tests', 'solution']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  fs.writeFileSync(path.join(dir, 'task.toml'), 'version = "1.0"\n\n[metadata]\ndifficulty = "medium"\ncategory = "text"\n\n[verifier]\ntimeout_sec = 60.0\n');
  fs.writeFileSync(path.join(dir, 'instruction.md'), 'Write the line count of `/app/notes.txt` to `/app/count.txt`.\n');
  fs.writeFileSync(path.join(dir, 'environment', 'Dockerfile'), 'FROM debian:bookworm-slim\nWORKDIR /app\nRUN printf "a\\nb\\n" > /app/notes.txt\n');
  fs.writeFileSync(path.join(dir, 'solution', 'solve.sh'), '#!/bin/bash\nwc -l < /app/notes.txt > /app/count.txt\n');
  fs.writeFileSync(path.join(dir, 'tests', 'test_outputs.py'), 'def test_count():\n    assert open("/app/count.txt").read().strip() == "2"\n');
  fs.writeFileSync(path.join(dir, 'tests', 'test.sh'), '#!/bin/bash\nmkdir -p /logs/verifier\npython3 -m pytest /tests/test_outputs.py | tee /logs/verifier/pytest.log\n'
    + 'if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n');
}

describe('Task Explorer', () => {
  let tmp: string | undefined;
  let deep: string | undefined;

  afterEach(async () => {
    await vscode.commands.executeCommand('taskwright.tasks.clearFilter');
  });

  after(async () => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    if (deep) fs.rmSync(deep, { recursive: true, force: true });
    const a = await api();
    await vscode.commands.executeCommand('taskwright.tasks.refresh');
    await a.taskExplorer.ready();
  });

  it('groups the example tasks by dataset, with difficulty · category descriptions', async () => {
    const a = await api();
    const onDisk = tasksOnDisk(workspaceDir());
    const groups = a.taskExplorer.snapshot();
    const shown = groups.flatMap((g) => g.tasks.map((t) => t.id)).sort();
    assert.deepEqual(shown, [...onDisk.keys()].sort());
    assert.ok(groups.some((g) => g.label === 'tasks'), `a "tasks" dataset group (got ${groups.map((g) => g.label).join(', ')})`);
    for (const g of groups) {
      for (const t of g.tasks) {
        assert.match(t.description, /^(easy|medium|hard|unknown) · \S/, `${t.id} description`);
        assert.equal(t.contextValue, `taskwright.task.${onDisk.get(t.id)}`, `${t.id} contextValue carries its format`);
      }
    }
  });

  it('opens a Harbor task.toml as TOML (the extension contributes the language)', async () => {
    await api();
    const onDisk = tasksOnDisk(workspaceDir());
    const harbor = [...onDisk].find(([, f]) => f === 'harbor')?.[0];
    assert.ok(harbor, 'an example Harbor task');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceDir(), 'tasks', harbor, 'task.toml')));
    assert.equal(doc.languageId, 'toml');
  });

  it('narrows by format, by text and by difficulty, and clears', async () => {
    const a = await api();
    const onDisk = tasksOnDisk(workspaceDir());
    const all = [...onDisk.keys()].sort();
    const harbor = all.filter((id) => onDisk.get(id) === 'harbor');
    const tb1 = all.filter((id) => onDisk.get(id) === 'tb1');
    assert.ok(harbor.length > 0 && tb1.length > 0, 'examples hold both formats');

    await vscode.commands.executeCommand('taskwright.tasks.filter', { formats: ['harbor'] });
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), harbor);
    await vscode.commands.executeCommand('taskwright.tasks.filter', { formats: ['tb1'] });
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), tb1);

    const one = all[0] as string;
    await vscode.commands.executeCommand('taskwright.tasks.filter', { text: one.toUpperCase() });
    assert.ok(a.taskExplorer.visibleTaskIds().includes(one), 'text matches case-insensitively');
    assert.ok(a.taskExplorer.visibleTaskIds().length < all.length, 'text narrows');

    const difficulty = a.taskExplorer.task(path.join(workspaceDir(), 'tasks', one))?.metadata.difficulty;
    if (difficulty) {
      await vscode.commands.executeCommand('taskwright.tasks.filter', { difficulties: [difficulty] });
      const shown = a.taskExplorer.visibleTaskIds();
      assert.ok(shown.includes(one));
      for (const id of shown) assert.equal(a.taskExplorer.task(path.join(workspaceDir(), 'tasks', id))?.metadata.difficulty, difficulty);
    }

    await vscode.commands.executeCommand('taskwright.tasks.filter', { text: 'no-task-is-called-this' });
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), []);
    await vscode.commands.executeCommand('taskwright.tasks.clearFilter');
    assert.deepEqual(a.taskExplorer.visibleTaskIds(), all);
    assert.deepEqual(a.taskExplorer.filter(), {});
  });

  it('renders a task\'s instruction as Markdown in its tooltip', async () => {
    const a = await api();
    const row = a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === 'word-frequency');
    const first = fs.readFileSync(path.join(workspaceDir(), 'tasks', 'word-frequency', 'instruction.md'), 'utf8').split('\n')[0] ?? '';
    assert.ok(first.includes('`'), 'the instruction has a code span');
    assert.ok(row?.tooltip?.includes(first), `the tooltip holds the Markdown as written (not escaped): ${row?.tooltip?.slice(0, 200) ?? '(none)'}`);
  });

  it('New Task scaffolds a task in each format that loads without problems and is revealed', async () => {
    const a = await api();
    tmp = fs.mkdtempSync(path.join(workspaceDir(), 'tmp-new-task-'));
    for (const format of ['harbor', 'tb1'] as const) {
      const id = `scaffolded-${format}`;
      const dir: string | undefined = await vscode.commands.executeCommand<string>('taskwright.task.new', { format, id, parentDir: tmp });
      assert.ok(dir);
      assert.equal(dir, path.join(tmp, id));
      await a.taskExplorer.ready();
      const task = a.taskExplorer.task(dir);
      assert.ok(task, `${id} is in the task index`);
      assert.equal(task.format, format);
      assert.deepEqual(task.problems, []);
      assert.ok(a.taskExplorer.taskIds().includes(id));
      // The tree redraws after a short debounce: wait for the row rather than racing the redraw.
      await until(`${id} drawn in the tree`, () => a.taskExplorer.snapshot().some((g) => g.tasks.some((t) => t.id === id)));
      const group = a.taskExplorer.snapshot().find((g) => g.tasks.some((t) => t.id === id));
      assert.equal(group?.label, path.basename(tmp), 'grouped under its folder');
      await until(`${id} selected in the tree`, () => a.taskExplorer.selectedTaskDirs().includes(dir));
    }
    await assert.doesNotReject(Promise.resolve(vscode.commands.executeCommand('taskwright.task.new', { format: 'tb1', id: 'scaffolded-tb1', parentDir: tmp })),
      'the command wrapper reports the error instead of throwing');
    assert.equal(fs.readdirSync(tmp).length, 2, 'an existing task is not overwritten');
  });

  it('reloads a task edited on disk and drops a deleted one', async () => {
    const a = await api();
    assert.ok(tmp, 'runs after the New Task case');
    const dir = path.join(tmp, 'scaffolded-harbor');
    const toml = path.join(dir, 'task.toml');
    // Written through VS Code's file service (as another editor or extension would), which reports
    // the change to watchers directly rather than through the OS watcher's polling.
    const edited = fs.readFileSync(toml, 'utf8').replace('difficulty = "easy"', 'difficulty = "hard"');
    await vscode.workspace.fs.writeFile(vscode.Uri.file(toml), Buffer.from(edited));
    await until('the edited difficulty shows', () => a.taskExplorer.task(dir)?.metadata.difficulty === 'hard');
    const row = (): string => a.taskExplorer.snapshot().flatMap((g) => g.tasks).find((t) => t.id === 'scaffolded-harbor')?.description ?? '';
    // The tree redraws after a short debounce.
    await until('the tree row shows the new difficulty', () => row().startsWith('hard · '));

    await vscode.workspace.fs.delete(vscode.Uri.file(path.join(tmp, 'scaffolded-tb1')), { recursive: true, useTrash: false });
    await until('the deleted task leaves the explorer', () => !a.taskExplorer.taskIds().includes('scaffolded-tb1'));
  });

  it('shows a task made three folders down in one mkdir -p, with its findings in Problems, and drops it when deleted', async () => {
    const a = await api();
    await a.taskExplorer.ready();
    // VS Code's recursive watcher hears the top folder appear but not the levels or files made before
    // it watched them (see watcher.ts): the explorer must find the task without a refresh.
    deep = path.join(workspaceDir(), `tmp-new-task-deep-${process.pid}`);
    const dir = path.join(deep, 'nested', 'deeper', 'deep-task');
    writeDeepTask(dir);
    const shown = (): boolean => a.taskExplorer.snapshot().some((g) => g.tasks.some((t) => t.id === 'deep-task'));
    await until('deep-task in the explorer', shown, 30_000, () => a.taskExplorer.taskIds().join(', '));
    assert.equal(a.taskExplorer.task(dir)?.format, 'harbor');
    const testSh = vscode.Uri.file(path.join(dir, 'tests', 'test.sh'));
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath === testSh.fsPath), 'the task\'s files are not open');
    await until('pipeline-status-masked on its tests/test.sh in Problems', () => vscode.languages.getDiagnostics(testSh).some((d) => d.source === 'taskwright' && codeOf(d) === 'pipeline-status-masked'), 30_000);

    // The task's own folder goes (the level VS Code's watcher never watched), then the rest.
    fs.rmSync(dir, { recursive: true, force: true });
    await until('deep-task leaves the explorer', () => !a.taskExplorer.taskIds().includes('deep-task') && !shown(), 30_000);
    await until('its findings leave Problems', () => vscode.languages.getDiagnostics(testSh).length === 0, 30_000);
    fs.rmSync(deep, { recursive: true, force: true });
    deep = undefined;
  });
});
