/**
 * What the twenty-first blind set showed (bench/accuracy/labels/blind21.json), in the style of what was
 * read: Terminal-Bench 1 tasks whose run-tests.sh hands the test run to the harness's shared
 * `run-uv-pytest.sh`, or runs `tests/test_outputs.py` relative to the image's working folder, where
 * Terminal-Bench 1 never copies the tests; and (pooled misses of earlier sets) Harbor verifiers that `cd` to
 * their own folder through `$(dirname "$0")` before running the tests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { findingsOf, makeTask, removeTemp } from './audit-helpers';

const SHARED = '#!/bin/bash\nset -e\nsource $TEST_DIR/setup-uv-pytest.sh\nbash $TEST_DIR/run-uv-pytest.sh\n';

void describe('Terminal-Bench 1: the harness\'s shared run-uv-pytest.sh is a pytest run', () => {
  void it('`bash $TEST_DIR/run-uv-pytest.sh` runs `uv run pytest $TEST_DIR/test_outputs.py -rA` in the agent\'s container: reported there', async () => {
    assert.deepEqual(await findingsOf('clean-tb1', { 'run-tests.sh': SHARED }, ['pytest-collection-hijack', 'tb1-missing-ra']), ['pytest-collection-hijack warning 4']);
  });
  void it('a copy the task ships under tests/ is read as written; a Harbor task has no such shared script', async () => {
    const own = '#!/bin/bash\nuv run pytest --noconftest -c /dev/null $TEST_DIR/test_outputs.py -rA\n';
    assert.deepEqual(await findingsOf('clean-tb1', { 'run-tests.sh': SHARED, 'tests/run-uv-pytest.sh': own }, ['pytest-collection-hijack']), []);
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': '#!/bin/bash\nbash /tests/run-uv-pytest.sh\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, ['pytest-collection-hijack']), []);
  });
});

void describe('test-path-unmounted on Terminal-Bench 1: tests run from the working folder', () => {
  const relative = '#!/bin/bash\nset -euo pipefail\n\npytest -q tests/test_outputs.py -rA\n';
  void it('`pytest tests/test_outputs.py` from WORKDIR /app runs /app/tests/…, where nothing puts the tests', async () => {
    assert.deepEqual(await findingsOf('clean-tb1', { 'run-tests.sh': relative }, ['test-path-unmounted']), ['test-path-unmounted warning 4']);
  });
  void it('an image that copies the tests there runs them (tests-copied-into-image reports that instead)', async () => {
    const df = 'FROM python:3.12-slim-bookworm\n\nRUN apt-get update && apt-get install -y --no-install-recommends tmux asciinema && rm -rf /var/lib/apt/lists/*\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY tests/ /app/tests/\n';
    assert.deepEqual(await findingsOf('clean-tb1', { 'run-tests.sh': relative, Dockerfile: df }, ['test-path-unmounted']), []);
  });
  void it('a compose file that mounts the tests there (`./tests:/app/tests:ro`) puts them there too', async () => {
    const compose = 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n    volumes:\n      - ./tests:/app/tests:ro\n';
    assert.deepEqual(await findingsOf('clean-tb1', { 'run-tests.sh': relative, 'docker-compose.yaml': compose }, ['test-path-unmounted']), []);
  });
});

void describe('the working folder after `cd "$(dirname "$0")"` in a Harbor verifier is /tests', () => {
  const reward = 'if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
  void it('`cd "$(cd "$(dirname "$0")" && pwd)/.."` then `pytest tests/test_outputs.py`: the verifier\'s own tests, unisolated', async () => {
    const sh = `#!/bin/bash\ncd "$(cd "$(dirname "$0")" && pwd)/.."\npytest tests/test_outputs.py -rA\n${reward}`;
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': sh }, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 3']);
  });
  void it('`cd "$(dirname "$0")"` then `pytest test_outputs.py`; with `--noconftest -c /dev/null` nothing is reported', async () => {
    const sh = (flags: string): string => `#!/bin/bash\ncd "$(dirname "$0")"\npytest ${flags}test_outputs.py -rA\n${reward}`;
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': sh('') }, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 3']);
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': sh('--noconftest -c /dev/null ') }, ['pytest-collection-hijack']), []);
  });
  void it('the quiet forms of the idiom (`cd … >/dev/null 2>&1 && pwd -P`), also through a variable, are the same folder', async () => {
    const own = '$(cd "$(dirname "${BASH_SOURCE[0]}")" >/dev/null 2>&1 && pwd -P)';
    const direct = `#!/bin/bash\ncd "${own}"\npytest test_outputs.py -rA\n${reward}`;
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': direct }, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 3']);
    const viaVar = `#!/bin/bash\nHERE="${own}"\npytest "$HERE/test_outputs.py" -rA\n${reward}`;
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': viaVar }, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 3']);
    // `$(dirname "$0")/..` is the folder above: not the verifier's own tests.
    const above = `#!/bin/bash\nROOT="$(dirname "$0")/.."\npytest "$ROOT/test_outputs.py" -rA\n${reward}`;
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': above }, ['pytest-collection-hijack']), []);
  });
});

void describe('missing-tests: a test file left at the task root is where the fix goes', () => {
  const filesOf = async (files: Parameters<typeof makeTask>[1]): Promise<string[]> => {
    const dir = await makeTask('clean-tb1', files);
    try {
      return (await auditTask(await loadTask(dir), { ignoreConfigFiles: true })).filter((f) => f.rule === 'missing-tests').map((f) => `${f.severity} ${f.file ?? '-'}`);
    } finally {
      await removeTemp(dir);
    }
  };
  void it('no tests/ but a root test_outputs.py: reported at that file; with no test file at all, at task.yaml', async () => {
    assert.deepEqual(await filesOf({ tests: null, 'test_outputs.py': 'def test_x():\n    assert 1 + 1 == 2\n' }), ['warning test_outputs.py']);
    assert.deepEqual(await filesOf({ tests: null }), ['warning task.yaml']);
  });
});
