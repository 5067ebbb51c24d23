import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { auditTask } from '../../src/core/audit/index';
import { clearAuditConfigCache, loadAuditConfig, parseConfigText } from '../../src/core/config/auditConfig';
import { loadTask } from '../../src/core/loader/index';
import { FIXTURES, makeTask, removeTemp } from './audit-helpers';

const BAD_TEST_SH = '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py || true\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';

void describe('audit engine: suppression and overrides', () => {
  void it('honours `# taskwright: ignore[rule]` on the line above and on the line itself', async () => {
    const above = await makeTask('clean-harbor', { 'tests/test.sh': BAD_TEST_SH.replace('pytest', '# taskwright: ignore[exit-code-masking]\npytest') });
    const same = await makeTask('clean-harbor', { 'tests/test.sh': BAD_TEST_SH.replace('|| true', '|| true  # taskwright: ignore[exit-code-masking]') });
    const other = await makeTask('clean-harbor', { 'tests/test.sh': BAD_TEST_SH.replace('pytest', '# taskwright: ignore[some-other-rule]\npytest') });
    try {
      const rules = async (d: string) => (await auditTask(await loadTask(d), { ignoreConfigFiles: true })).map((f) => f.rule);
      assert.ok(!(await rules(above)).includes('exit-code-masking'));
      assert.ok(!(await rules(same)).includes('exit-code-masking'));
      assert.ok((await rules(other)).includes('exit-code-masking'));
    } finally {
      await Promise.all([above, same, other].map(removeTemp));
    }
  });

  void it('applies caller overrides, and the nearest taskwright.json / .taskwright.yaml wins over them', async () => {
    const dir = await makeTask('clean-harbor', { 'tests/test.sh': BAD_TEST_SH });
    try {
      let task = await loadTask(dir);
      const sev = async (o: Parameters<typeof auditTask>[1]) => (await auditTask(task, o)).find((f) => f.rule === 'exit-code-masking')?.severity;
      assert.equal(await sev({ ignoreConfigFiles: true }), 'error');
      assert.equal(await sev({ ignoreConfigFiles: true, severityOverrides: { 'exit-code-masking': 'info' } }), 'info');
      assert.equal(await sev({ ignoreConfigFiles: true, severityOverrides: { 'exit-code-masking': 'off' } }), undefined);
      // Parent folder turns it off, the task folder sets warning: the nearer file wins.
      await fs.writeFile(path.join(path.dirname(dir), 'taskwright.json'), JSON.stringify({ rules: { 'exit-code-masking': 'off', 'no-reward-written': 'off' } }));
      clearAuditConfigCache();
      assert.equal(await sev({}), undefined);
      await fs.writeFile(path.join(dir, '.taskwright.yaml'), 'rules:\n  exit-code-masking: warning\n');
      clearAuditConfigCache();
      task = await loadTask(dir);
      assert.equal(await sev({ severityOverrides: { 'exit-code-masking': 'info' } }), 'warning');
      // Unsaved editor text of a config file counts too.
      const overlay = new Map([[path.join(dir, '.taskwright.yaml'), 'rules:\n  exit-code-masking: "off"\n']]);
      assert.equal(await sev({ overlay }), undefined);
    } finally {
      await removeTemp(dir);
    }
  });

  void it('reports bad config entries instead of throwing', async () => {
    const c = parseConfigText('taskwright.json', '{"rules": {"a": "loud", "b": "off", "c": false}}');
    assert.deepEqual(c.rules, { b: 'off', c: 'off' });
    assert.equal(c.errors.length, 1);
    assert.equal(parseConfigText('taskwright.json', '{nope').errors.length, 1);
    const none = await loadAuditConfig(path.join(FIXTURES, 'clean-tb1'));
    assert.deepEqual(none.rules, {});
  });

  void it('audits unsaved editor text from the overlay', async () => {
    const dir = path.join(FIXTURES, 'clean-harbor');
    const overlay = new Map([[path.join(dir, 'tests/test.sh'), BAD_TEST_SH]]);
    const findings = await auditTask(await loadTask(dir, { overlay }), { overlay, ignoreConfigFiles: true });
    const hit = findings.find((f) => f.rule === 'exit-code-masking');
    assert.equal(hit?.file, 'tests/test.sh');
    assert.equal(hit?.range?.start.line, 2);
  });

  void it('includes the loader\'s problems', async () => {
    const dir = await makeTask('clean-harbor', { 'tests/test.sh': null });
    try {
      const findings = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
      assert.ok(findings.some((f) => f.rule === 'missing-test-entry'));
    } finally {
      await removeTemp(dir);
    }
  });
});

void describe('audit engine: fuzzed inputs never throw', () => {
  const files = ['tests/test.sh', 'tests/test_outputs.py', 'environment/Dockerfile', 'solution/solve.sh', 'instruction.md', 'task.toml', 'tests/data.json'];
  const fragments = ['pytest', ' -rA', ' || true', ' | tee x', '\nset -e\n', 'echo 1 > /logs/verifier/reward.txt', '<<EOF\n', 'EOF', 'COPY tests/ /app/\n', 'FROM ', ':latest',
    'def test_x():\n    ', 'assert ', 'os.listdir("/app") == []', 'try:\n', 'except:\n    pass\n', '"""', "'", '"', '\\', '$(', '`', '{', '[', '\u0000', 'é', '\r\n', '/Users/a/', 'time.sleep(5)'];
  const text = fc.array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 12 })), { maxLength: 30 }).map((a) => a.join(''));

  void it('for random file contents (overlay) in a Harbor task', async () => {
    const dir = path.join(FIXTURES, 'clean-harbor');
    await fc.assert(fc.asyncProperty(fc.constantFrom(...files), text, async (file, content) => {
      const overlay = new Map([[path.join(dir, file), content]]);
      const task = await loadTask(dir, { overlay });
      const findings = await auditTask(task, { overlay, ignoreConfigFiles: true });
      for (const f of findings) {
        assert.notEqual(f.rule, 'audit-internal-error', f.message);
        if (f.range) assert.ok(f.range.start.line >= 0 && f.range.end.line >= f.range.start.line);
      }
    }), { numRuns: 150 });
  });

  void it('for random file contents in a TB1 task', async () => {
    const dir = path.join(FIXTURES, 'clean-tb1');
    const tb1Files = ['run-tests.sh', 'tests/test_outputs.py', 'Dockerfile', 'solution.sh', 'task.yaml'];
    await fc.assert(fc.asyncProperty(fc.constantFrom(...tb1Files), text, async (file, content) => {
      const overlay = new Map([[path.join(dir, file), content]]);
      const findings = await auditTask(await loadTask(dir, { overlay }), { overlay, ignoreConfigFiles: true });
      assert.ok(findings.every((f) => f.rule !== 'audit-internal-error'), findings.map((f) => f.message).join('\n'));
    }), { numRuns: 100 });
  });

  void it('counterexamples the fuzzing found stay fixed', async () => {
    const dir = path.join(FIXTURES, 'clean-tb1');
    // An error-recovered shell assignment whose "name" is regex syntax (`*0=?`, fast-check seed 1818809193).
    for (const [file, content] of [['run-tests.sh', '*0=?']] as const) {
      const overlay = new Map([[path.join(dir, file), content]]);
      const findings = await auditTask(await loadTask(dir, { overlay }), { overlay, ignoreConfigFiles: true });
      assert.deepEqual(findings.filter((f) => f.rule === 'audit-internal-error').map((f) => f.message), [], `${file}: ${content}`);
    }
  });
});
