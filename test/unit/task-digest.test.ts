import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { newRunId, RunStore } from '../../src/core/results/store';
import { DIGEST_LIMITS, taskDigest, taskDigests } from '../../src/core/results/taskDigest';
import { loadRunTasks, resumableParameters, ResumeError } from '../../src/core/sandbox/resume';
import { harborTask } from '../support/taskFolders';
import { tempDir } from '../support/tempDir';

let tmp: string;
before(() => {
  tmp = tempDir('tw-digest-');
  process.env.TASKWRIGHT_LEASE_DIR = path.join(tmp, 'leases');
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function task(name: string): string {
  return harborTask(path.join(tmp, name));
}

void describe('task digest', () => {
  void it('is stable for an unchanged folder and moves with any content, a new file, a mode bit or a link target', () => {
    const dir = task('d1');
    const d0 = taskDigest(dir);
    assert.match(d0, /^sha256:[0-9a-f]{64}$/);
    assert.equal(taskDigest(dir), d0, 'same folder, same digest');
    const seen = new Set([d0]);
    const step = (what: string, edit: () => void): void => {
      edit();
      const d = taskDigest(dir);
      assert.ok(!seen.has(d), `${what} changes the digest`);
      seen.add(d);
    };
    step('a test edit', () => fs.appendFileSync(path.join(dir, 'tests/test.sh'), '# more\n'));
    step('a new file', () => fs.writeFileSync(path.join(dir, 'tests/data.txt'), 'x'));
    step('an executable bit', () => fs.chmodSync(path.join(dir, 'tests/data.txt'), 0o755));
    step('a symlink', () => fs.symlinkSync('data.txt', path.join(dir, 'tests/link')));
    step('its target', () => { fs.rmSync(path.join(dir, 'tests/link')); fs.symlinkSync('other.txt', path.join(dir, 'tests/link')); });
    // Taskwright's own state in the folder is not the task.
    fs.mkdirSync(path.join(dir, '.taskwright/runs'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.taskwright/runs/x'), 'y');
    assert.ok(seen.has(taskDigest(dir)), '.taskwright/ is not part of the task');
  });

  void it('hashes a large file by its size and ends, and still sees an edit at either end', () => {
    const dir = task('d2');
    const big = path.join(dir, 'environment/data.bin');
    fs.writeFileSync(big, Buffer.alloc(DIGEST_LIMITS.fullBytes + 10, 1));
    const d0 = taskDigest(dir);
    const fd = fs.openSync(big, 'r+');
    fs.writeSync(fd, Buffer.from([2]), 0, 1, DIGEST_LIMITS.fullBytes + 9);
    fs.closeSync(fd);
    assert.notEqual(taskDigest(dir), d0, 'the last byte is read');
  });
});

void describe('resume of a run whose tasks changed', () => {
  function run(dirs: string[]): RunStore {
    const rels = dirs.map((d) => path.relative(tmp, d));
    return RunStore.create(path.join(tmp, 'runs'), {
      id: newRunId('nop'), kind: 'run', agent: 'nop', tasks: rels, attempts: 1, concurrency: 1, retries: 0, startedAt: 'then', pid: 999_999,
      cwd: tmp, taskDigests: taskDigests(dirs.map((d, i) => ({ path: rels[i] as string, dir: d }))),
    });
  }

  void it('refuses an edited task, names it, and with allowChanged returns it with its new digest', async () => {
    const a = task('r1/a');
    const b = task('r1/b');
    const store = run([a, b]);
    const params = resumableParameters(store.dir);
    assert.equal((await loadRunTasks(params, tmp)).changed.length, 0, 'unchanged tasks load');
    fs.writeFileSync(path.join(b, 'instruction.md'), 'Write the word bye into /app/greeting.txt.\n');
    await assert.rejects(loadRunTasks(params, tmp), (e: unknown) => e instanceof ResumeError && /1 task\(s\) of run .* changed since it started \(r1\/b\).*--allow-changed-tasks/.test(e.message));
    const loaded = await loadRunTasks(params, tmp, true);
    assert.deepEqual(loaded.changed, ['r1/b']);
    assert.equal(loaded.changedDigests['r1/b'], taskDigest(b));
    assert.equal(loaded.tasks.size, 2);
    // Recorded with the resume; the next resume compares with the version resumed.
    store.beginResume({ startedAt: 'now', pid: process.pid, remaining: 1, changedTasks: loaded.changed }, loaded.changedDigests);
    const after = resumableParameters(store.dir);
    assert.deepEqual(after.resumes?.[0]?.changedTasks, ['r1/b']);
    assert.equal(after.taskDigests?.['r1/b'], taskDigest(b));
    assert.equal(after.taskDigests?.['r1/a'], params.taskDigests?.['r1/a']);
    assert.equal((await loadRunTasks(after, tmp)).changed.length, 0);
  });

  void it('a run recorded before digests resumes as before', async () => {
    const a = task('r2/a');
    const store = RunStore.create(path.join(tmp, 'runs'), {
      id: newRunId('nop'), kind: 'run', agent: 'nop', tasks: ['r2/a'], attempts: 1, concurrency: 1, retries: 0, startedAt: 'then', pid: 999_999, cwd: tmp,
    });
    fs.appendFileSync(path.join(a, 'tests/test.sh'), '# edited\n');
    assert.deepEqual((await loadRunTasks(resumableParameters(store.dir), tmp)).changed, []);
  });

  void it('the CLI refuses with exit 2 before touching the run, and says how to go on', async () => {
    const a = task('r3/a');
    const store = run([a]);
    fs.appendFileSync(path.join(a, 'solution/solve.sh'), 'true\n');
    const before = fs.readFileSync(path.join(store.dir, 'run.json'), 'utf8');
    const err: string[] = [];
    const io: CliIo = { out: () => undefined, err: (t) => err.push(t), cwd: tmp, env: {}, signal: new AbortController().signal };
    assert.equal(await main(['run', '--resume', store.dir], io), 2);
    assert.match(err.join('\n'), /changed since it started \(r3\/a\).*Start a new run, or resume anyway with --allow-changed-tasks/);
    assert.equal(fs.readFileSync(path.join(store.dir, 'run.json'), 'utf8'), before, 'run.json untouched');
  });
});
