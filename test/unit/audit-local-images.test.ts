/**
 * Pooled misses of the twenty-one blind sets (bench/accuracy/labels/blind*.json, read together), in the
 * style of what was read: a generated SWE-style task whose base image checks the project out in /repo
 * (so no WORKDIR of the task names it) and whose verifier runs `python -m pytest` there through xargs;
 * environment images built FROM a base only the author's pipeline builds (`tb-seed-…`, `rl-exploits-…-core`);
 * and (the twenty-third set) a verifier that only syntax-checks the agent's module before grading it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf } from './audit-helpers';

const DOCKERFILE = 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nCOPY repo/ /repo/\n';
const VERIFIER = (cd: string): string => [
  '#!/bin/bash', 'set -u', 'mkdir -p /logs/verifier', 'rm -f /repo/conftest.py', cd,
  'tr \'\\n\' \'\\0\' < /tests/selected_tests.txt \\', '  | xargs -0 timeout 240 python -m pytest -q --tb=short -p no:cacheprovider',
  'code=$?', 'if [ $code -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi', '',
].join('\n');

void describe('the project checked out in /repo is the agent\'s to write', () => {
  void it('`cd /repo` then `xargs … python -m pytest`: a planted /repo/pytest.py replaces pytest (reported at the pytest line)', async () => {
    const files = { 'environment/Dockerfile': DOCKERFILE, 'environment/repo/README.md': 'tabulate\n', 'tests/test.sh': VERIFIER('cd /repo'), 'tests/selected_tests.txt': 'test/test_output.py::test_align\n' };
    assert.deepEqual(await findingsOf('clean-harbor', files, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 7']);
  });
  void it('`python -P` keeps /repo off sys.path, but its conftest.py and ini still count; with `--noconftest -c /dev/null` too, nothing is planted', async () => {
    const files = { 'environment/Dockerfile': DOCKERFILE, 'environment/repo/README.md': 'tabulate\n', 'tests/selected_tests.txt': 'test/test_output.py::test_align\n' };
    const safePath = VERIFIER('cd /repo').replace('python -m pytest', 'python -P -m pytest');
    assert.deepEqual(await findingsOf('clean-harbor', { ...files, 'tests/test.sh': safePath }, ['pytest-collection-hijack']), ['pytest-collection-hijack warning 7']);
    const sealed = safePath.replace('-m pytest -q', '-m pytest --noconftest -c /dev/null -q');
    assert.deepEqual(await findingsOf('clean-harbor', { ...files, 'tests/test.sh': sealed }, ['pytest-collection-hijack']), []);
  });
});

void describe('environment-image-local-base: a base only the author\'s machine has', () => {
  const RULES = ['environment-image-local-base', 'verifier-image-local-base'];
  void it('FROM a bare tag that is no official image, no stage and built by nothing in the task: a note at the image name (repositories often build such bases with their own scripts)', async () => {
    const df = 'FROM tb-seed-tabulate:bf58e37e6b35\nCOPY broken.patch /tmp/broken.patch\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': df, 'environment/broken.patch': '' }, RULES), ['environment-image-local-base info 1']);
  });
  void it('a verifier image on the same base is not reported a second time', async () => {
    const files = {
      'environment/Dockerfile': 'FROM rl-exploits-foundry-core:latest\nRUN mkdir -p /app\n',
      'tests/Dockerfile': 'FROM rl-exploits-foundry-core:latest\nCOPY test.sh /tests/test.sh\n',
      'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nenvironment_mode = "separate"\n\n[agent]\ntimeout_sec = 600.0\n',
    };
    assert.deepEqual(await findingsOf('clean-harbor', files, RULES), ['environment-image-local-base info 1']);
  });
  void it('an official image, a namespaced or registry image, an earlier stage, an ARG and a template placeholder are left alone', async () => {
    const staged = 'ARG BASE=python:3.12-slim-bookworm\nFROM golang:1.23 AS build\nRUN go version\nFROM build AS tools\nFROM ${BASE}\nFROM ghcr.io/acme/base:1.0\nFROM acme/base:1.0\nFROM {base_image}\nFROM python:3.12-slim-bookworm\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': staged }, ['environment-image-local-base']), []);
  });
  void it('a tag a compose service of the task builds is the task\'s own', async () => {
    const compose = 'services:\n  base:\n    build:\n      context: ./base\n    image: orders-base\n  main:\n    build:\n      context: ${CONTEXT_DIR}\n    image: ${MAIN_IMAGE_NAME}\n    depends_on:\n      - base\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'environment/Dockerfile': 'FROM orders-base\nRUN mkdir -p /app\n', 'environment/docker-compose.yaml': compose, 'environment/base/Dockerfile': 'FROM python:3.12-slim-bookworm\n' }, ['environment-image-local-base']), []);
  });
});

void describe('verifier-runs-agent-writable-code: a syntax check runs nothing', () => {
  const RULE = ['verifier-runs-agent-writable-code'];
  const verifier = (check: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\n${check} || exit 0\npytest --noconftest -c /dev/null -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi\n`;
  void it('`node --check /app/src/verifier.js` and `bash -n /app/run.sh` only parse the agent\'s file', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': verifier('node --check /app/src/verifier.js') }, RULE), []);
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': verifier('bash -n /app/run.sh') }, RULE), []);
  });
  void it('running the agent\'s checker file is still reported', async () => {
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': verifier('node /app/src/verifier.js') }, RULE), ['verifier-runs-agent-writable-code warning 4']);
  });
});
