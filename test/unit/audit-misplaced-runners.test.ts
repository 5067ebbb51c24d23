/**
 * Two recall causes the blind readings showed (labels/blind4.json, blind5.json): a verifier script or
 * solution kept where Harbor does not look was reported missing and then never read, so its own
 * defects went unseen; and test runners other than pytest (`cargo test`, `npm test`) were not taken
 * for the command whose status is the verdict. Fixtures in the style of what was read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { findingsOf as found, makeTask, removeTemp, type PatternCase as Case } from './audit-helpers';
import type { Files } from './audit-cases';

/** A verifier that runs pytest unguarded under `set -e`, then writes the reward from its status. */
const ERREXIT_PYTEST = '#!/bin/bash\nset -e\nmkdir -p /logs/verifier\npytest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
const TEST_PY = 'import json\n\n\ndef test_total():\n    assert json.load(open("/app/totals.json"))["north"] == 12.5\n';

/** `rule file line` of every finding of `rules`. */
async function placed(files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask('clean-harbor', files);
  try {
    const all = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return all.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.file ?? '-'} ${f.range ? f.range.start.line + 1 : '-'}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

const MOVED = { 'tests/test.sh': null, 'tests/test_outputs.py': null, 'tests/orders.csv': null };

void describe('a misplaced verifier or solution is audited where it stands', () => {
  void it('environment/tests/test.sh: missing-test-entry on it, and its unguarded pytest under set -e reported there too', async () => {
    assert.deepEqual(await placed({ ...MOVED, 'environment/tests/test.sh': ERREXIT_PYTEST, 'environment/tests/test_outputs.py': TEST_PY }, ['missing-test-entry', 'reward-not-written-on-failure', 'pytest-collection-hijack']), [
      'missing-test-entry environment/tests/test.sh -',
      'pytest-collection-hijack environment/tests/test.sh 4',
      'reward-not-written-on-failure environment/tests/test.sh 4',
    ]);
  });

  void it('a doubled tests/tests/ folder and a test.sh at the task root are read in place the same way', async () => {
    assert.deepEqual(await placed({ ...MOVED, 'tests/tests/test.sh': ERREXIT_PYTEST, 'tests/tests/test_outputs.py': TEST_PY }, ['missing-test-entry', 'reward-not-written-on-failure']), [
      'missing-test-entry tests/tests/test.sh -',
      'reward-not-written-on-failure tests/tests/test.sh 4',
    ]);
    assert.deepEqual(await placed({ ...MOVED, 'test.sh': ERREXIT_PYTEST, 'test_outputs.py': TEST_PY }, ['missing-test-entry', 'reward-not-written-on-failure']), [
      'missing-test-entry test.sh -',
      'reward-not-written-on-failure test.sh 4',
    ]);
  });

  void it('a solve.sh at the task root is read as the solution would be (its unpinned install is seen)', async () => {
    assert.deepEqual(await placed({ 'solution/solve.sh': null, 'solve.sh': '#!/bin/bash\npip install requests\npython3 /app/make_totals.py\n' }, ['missing-solution', 'solution-unpinned-dependency']), [
      'missing-solution solve.sh -',
      'solution-unpinned-dependency solve.sh 2',
    ]);
  });

  void it('a Dockerfile at the task root or one folder too deep is read with its own folder as the context', async () => {
    const df = 'FROM python:3.11-slim@sha256:<digest>\nWORKDIR /app\nCOPY access.log /app/access.log\n';
    assert.deepEqual(await placed({ 'environment/Dockerfile': null, 'Dockerfile': df }, ['missing-environment', 'base-image-invalid-reference', 'copy-source-missing']), [
      'base-image-invalid-reference Dockerfile 1',
      'copy-source-missing Dockerfile 3',
      'missing-environment Dockerfile -',
    ]);
    assert.deepEqual(await placed({ 'environment/Dockerfile': null, 'environment/environment/Dockerfile': df, 'environment/environment/access.log': '127.0.0.1 - - GET /\n' }, ['missing-environment', 'base-image-invalid-reference', 'copy-source-missing']), [
      'base-image-invalid-reference environment/environment/Dockerfile 1',
      'missing-environment environment/environment/Dockerfile -',
    ]);
  });

  void it('names that differ only in case are still located: a root `Solve.sh`, an `Environment` file', async () => {
    assert.deepEqual(await placed({ 'solution/solve.sh': null, 'Solve.sh': '#!/bin/bash\npython3 /app/make_totals.py\n' }, ['missing-solution']), ['missing-solution Solve.sh -']);
    assert.deepEqual(await placed({ 'environment/Dockerfile': null, 'environment/data/orders.csv': null, 'Environment': 'FROM python:3.12-slim-bookworm\n' }, ['missing-environment']), ['missing-environment Environment -']);
  });

  void it('a solution in another language where solve.sh belongs (`solution/solve.py` alone) carries the finding', async () => {
    assert.deepEqual(await placed({ 'solution/solve.sh': null, 'solution/solve.py': 'import json\nprint(json.dumps({"total": 3}))\n' }, ['missing-solution']), ['missing-solution solution/solve.py -']);
    // Data beside it is not a solution script: with nothing named like one, the finding stays on task.toml.
    assert.deepEqual(await placed({ 'solution/solve.sh': null, 'solution/expected.json': '{}\n' }, ['missing-solution']), ['missing-solution task.toml -']);
  });

  void it('the task model keeps the harness\'s paths: nothing runs the misplaced script', async () => {
    const dir = await makeTask('clean-harbor', { ...MOVED, 'environment/tests/test.sh': ERREXIT_PYTEST });
    try {
      const task = await loadTask(dir);
      assert.equal(task.verifier.entry, 'tests/test.sh');
      assert.equal(task.verifier.testsDir, 'tests');
      assert.equal(task.verifier.misplacedEntry, 'environment/tests/test.sh');
    } finally {
      await removeTemp(dir);
    }
  });

  void it('a task with its verifier in place has no misplaced entry', async () => {
    const dir = await makeTask('clean-harbor', {});
    try {
      assert.equal((await loadTask(dir)).verifier.misplacedEntry, undefined);
    } finally {
      await removeTemp(dir);
    }
  });
});

const RUN = (line: string, preamble = ''): string => `#!/bin/bash\n${preamble}mkdir -p /logs/verifier\ncd /app\n${line}\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

const RUNNER_CASES: readonly Case[] = [
  { name: '`cargo test` unguarded under set -e before the reward: no verdict for a failing attempt', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': RUN('cargo test --test integration_test --release', 'set -euo pipefail\n') }, want: ['reward-not-written-on-failure warning 5'] },
  { name: '`npm test || true` before a reward from $?: the status is always 0', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': RUN('npm test || true') }, want: ['exit-code-masking error 4'] },
  { name: '`npx jest | tee` and `./gradlew test | tee` without pipefail lose the runner\'s status', base: 'clean-harbor', rules: ['pipeline-status-masked'],
    files: { 'tests/test.sh': RUN('npx jest --ci | tee /logs/verifier/jest.log') }, want: ['pipeline-status-masked error 4'] },
  { name: '… the same for a Gradle wrapper', base: 'clean-harbor', rules: ['pipeline-status-masked'],
    files: { 'tests/test.sh': RUN('./gradlew test | tee /logs/verifier/gradle.log') }, want: ['pipeline-status-masked error 4'] },
  { name: '`apk add` under set -e before the reward is an install that ends the script on a mirror hiccup', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': RUN('apk add --no-cache curl\npytest --noconftest -rA /tests/test_outputs.py || true', 'set -e\n') }, want: ['reward-not-written-on-failure warning 5'] },
  { name: 'probes and builds are not test runs: `cargo --version || true`, `cargo build || true`, `npm ci || true`', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': RUN('cargo --version || true\ncargo build --release || true\nnpm ci || true\npytest --noconftest -rA /tests/test_outputs.py') }, want: [] },
  { name: '`go test` guarded by an if, with the reward written in both branches: quiet', base: 'clean-harbor', rules: ['reward-not-written-on-failure', 'exit-code-masking'],
    files: { 'tests/test.sh': '#!/bin/bash\nset -e\nmkdir -p /logs/verifier\nif go test ./...; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: [] },
];

void describe('test runners of other ecosystems carry the verdict as pytest does', () => {
  for (const c of RUNNER_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});
