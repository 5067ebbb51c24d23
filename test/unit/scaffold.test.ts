import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { TaskFormat } from '../../src/core/model/task';
import { createTask, scaffoldFiles, taskIdProblem } from '../../src/core/scaffold/index';

const FORMATS: readonly TaskFormat[] = ['harbor', 'tb1'];

void describe('scaffold: New Task templates', () => {
  const temps: string[] = [];
  const tempDir = async (): Promise<string> => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-scaffold-'));
    temps.push(d);
    return d;
  };
  after(async () => { for (const d of temps) await rm(d, { recursive: true, force: true }); });

  for (const format of FORMATS) {
    void it(`writes a ${format} task that loads with no problems and the right metadata`, async () => {
      const parent = await tempDir();
      const dir = await createTask(parent, { format, id: 'count-words', difficulty: 'medium', category: 'text processing', authorName: 'Ada "A" Lovelace' });
      assert.equal(dir, path.join(parent, 'count-words'));
      const task = await loadTask(dir);
      assert.deepEqual(task.problems, []);
      assert.equal(task.format, format);
      assert.equal(task.id, 'count-words');
      assert.equal(task.metadata.difficulty, 'medium');
      assert.equal(task.metadata.category, 'text processing');
      assert.equal(task.metadata.authorName, 'Ada "A" Lovelace');
      assert.deepEqual(task.metadata.tags, ['python']);
      assert.match(task.instruction ?? '', /\/app\/wordcount\.py/);
      assert.ok(task.solution.file, 'the reference solution is found');
      assert.ok(task.environment.dockerfile, 'the Dockerfile is found');
      assert.ok(task.files.includes(task.verifier.entry), `the verifier entry ${task.verifier.entry} exists`);
    });

    void it(`${format}: the starter task passes the static audit (no error or warning)`, async () => {
      const task = await loadTask(await createTask(await tempDir(), { format, id: 'audited' }));
      const findings = await auditTask(task, { ignoreConfigFiles: true });
      assert.deepEqual(findings.filter((f) => f.severity !== 'info').map((f) => `${f.rule} ${f.file ?? ''}`), []);
    });

    void it(`makes the ${format} task's scripts executable and nothing else`, async () => {
      const parent = await tempDir();
      const dir = await createTask(parent, { format, id: 'modes' });
      for (const file of scaffoldFiles({ format, id: 'modes' })) {
        const mode = (await stat(path.join(dir, file.path))).mode & 0o111;
        assert.equal(mode !== 0, file.executable, `${file.path} executable bit`);
        assert.equal(file.executable, file.path.endsWith('.sh'), `${file.path}: only shell scripts are executable`);
      }
    });

    void it(`${format}: the tests check the agent's output on fixed inputs and the solution writes that output`, () => {
      const files = new Map(scaffoldFiles({ format, id: 'x' }).map((f) => [f.path, f.content]));
      const tests = files.get('tests/test_outputs.py') ?? '';
      const solution = files.get(format === 'tb1' ? 'solution.sh' : 'solution/solve.sh') ?? '';
      assert.match(tests, /SCRIPT = "\/app\/wordcount\.py"/);
      assert.match(tests, /assert result\.stdout\.strip\(\) == str\(expected\)/);
      assert.match(solution, /cat > \/app\/wordcount\.py/);
      assert.doesNotMatch([...files.values()].join('\n'), /pip install|curl |wget |apt-get/, 'no network at build or test time');
      const verifier = files.get(format === 'tb1' ? 'run-tests.sh' : 'tests/test.sh') ?? '';
      assert.match(verifier, /^(if )?\/usr\/bin\/python3 -I -m pytest --noconftest -c \/dev\/null -p no:cacheprovider .* -rA /m, 'an absolute, isolated interpreter; pytest ignores planted conftest.py / pytest.ini');
    });
  }

  void it('uses the documented defaults when only format and id are given', async () => {
    const task = await loadTask(await createTask(await tempDir(), { format: 'harbor', id: 'defaults' }));
    assert.equal(task.metadata.difficulty, 'easy');
    assert.equal(task.metadata.category, 'software_engineering');
    assert.equal(task.metadata.authorName, undefined);
  });

  void it('never overwrites an existing folder', async () => {
    const parent = await tempDir();
    const dir = await createTask(parent, { format: 'tb1', id: 'taken' });
    const before = await readFile(path.join(dir, 'task.yaml'), 'utf8');
    await assert.rejects(createTask(parent, { format: 'harbor', id: 'taken' }), /already exists/);
    assert.equal(await readFile(path.join(dir, 'task.yaml'), 'utf8'), before);
  });

  void it('rejects ids that cannot name a task folder', async () => {
    for (const bad of ['', 'Upper', '-lead', 'a b', 'a/b', '../x', 'x'.repeat(101)]) assert.ok(taskIdProblem(bad), `'${bad}' is rejected`);
    for (const good of ['a', 'count-words', 'v1.2_x']) assert.equal(taskIdProblem(good), undefined, `'${good}' is accepted`);
    await assert.rejects(createTask(await tempDir(), { format: 'tb1', id: '../escape' }), /Use lowercase/);
  });
});
