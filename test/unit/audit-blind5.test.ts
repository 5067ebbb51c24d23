/**
 * False findings the fifth blind held-out set met (bench/accuracy/labels/blind5.json), one fixture
 * per cause, in the style of what was read: the false case is quiet, the true case still fires.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf as found, type PatternCase as Case } from './audit-helpers';

const BLIND5_CASES: readonly Case[] = [
  { name: 'a `|| true` on a python3 -c that reads a config inside `$(…)` is not the test run\'s status', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nTIMEOUT="$(python3 -c "import json;print(json.load(open(\'/tests/config.json\'))[\'timeout\'])" 2>/dev/null || true)"\ntimeout "${TIMEOUT:-60}" pytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: [] },
  { name: 'the test run itself ending in `|| true` is still an error', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py || true\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: ['exit-code-masking error 3'] },
  { name: 'a non-root agent (`[agent] user`) cannot plant /pytest.ini: pytest on /tests is quiet; a root agent\'s is a warning', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nuser = "root"\n\n[agent]\ntimeout_sec = 600.0\nuser = "agent"\n', 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: [] },
  { name: '… and with `[agent] user = "root"` it is reported', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\nuser = "root"\n', 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' }, want: ['pytest-collection-hijack warning 3'] },
];

void describe('audit precision (blind5 false findings): one fixture per cause', () => {
  for (const c of BLIND5_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

/** A verifier on the Harbor template's uvx line, and a test file with `imports` on top. */
const UVX_SH = (withs: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\nuvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5${withs} pytest --noconftest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;
const IMPORTING = (imports: string): string => `${imports}\nimport json\nfrom pathlib import Path\n\n\ndef test_totals():\n    assert json.loads(Path("/app/totals.json").read_text())["north"] == 12.5\n`;

const RECALL_CASES: readonly Case[] = [
  { name: 'uvx with only pytest runs tests that import flask: the oracle cannot pass (recall)', base: 'clean-harbor', rules: ['test-imports-outside-env'],
    files: { 'tests/test.sh': UVX_SH(''), 'tests/test_outputs.py': IMPORTING('import flask') }, want: ['test-imports-outside-env warning 3'] },
  { name: 'the same with `-w flask==3.1.0`, with pandas bringing numpy, or under try/except ImportError: quiet', base: 'clean-harbor', rules: ['test-imports-outside-env'],
    files: { 'tests/test.sh': UVX_SH(' -w flask==3.1.0 -w pandas==2.2.3'), 'tests/test_outputs.py': IMPORTING('import flask\nimport numpy as np\ntry:\n    import yaml\nexcept ImportError:\n    yaml = None') }, want: [] },
  { name: 'a --with package whose dependencies are not known (it may bring numpy): quiet', base: 'clean-harbor', rules: ['test-imports-outside-env'],
    files: { 'tests/test.sh': UVX_SH(' -w mystery-lib==1.0'), 'tests/test_outputs.py': IMPORTING('import numpy') }, want: [] },
  { name: 'the agent\'s module the instruction names (`/app/dedupe.py`) on a sys.path entry is not a package; numpy beside it is', base: 'clean-harbor', rules: ['test-imports-outside-env'],
    files: { 'instruction.md': 'Write `/app/dedupe.py` with a function `dedupe(rows)`.\n', 'tests/test.sh': UVX_SH(''), 'tests/test_outputs.py': IMPORTING('import sys\nsys.path.insert(0, "/app")\nfrom dedupe import dedupe\nimport numpy') }, want: ['test-imports-outside-env warning 3'] },
  { name: '… and with the module alone, quiet', base: 'clean-harbor', rules: ['test-imports-outside-env'],
    files: { 'instruction.md': 'Write `/app/dedupe.py` with a function `dedupe(rows)`.\n', 'tests/test.sh': UVX_SH(''), 'tests/test_outputs.py': IMPORTING('import sys\nsys.path.insert(0, "/app")\nfrom dedupe import dedupe') }, want: [] },
];

void describe('audit recall (blind5 misses): tests uvx cannot import', () => {
  for (const c of RECALL_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

const ERREXIT_SH = (middle: string): string => `#!/bin/bash\nset -e\nmkdir -p /logs/verifier\ncd /app\n${middle}\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

const ERREXIT_CASES: readonly Case[] = [
  { name: 'set -e, then the agent\'s program runs before the reward is written: a failing attempt gets no verdict (recall)', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': ERREXIT_SH('python3 run_resolver.py') }, want: ['reward-not-written-on-failure warning 5'] },
  { name: 'a check of its own line under set -e (`test -f …`, then `grep -q`) ends the script the same way: reported at the first', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': ERREXIT_SH('test -f /app/totals.json\ngrep -q north /app/totals.json') }, want: ['reward-not-written-on-failure warning 5'] },
  { name: 'guarded (`|| true`, inside an if) or with a 0 written first: quiet', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': ERREXIT_SH('python3 run_resolver.py || true\nif [ -f /app/totals.json ]; then echo found; fi') }, want: [] },
  { name: 'a verifier-owned script from /tests is the test run\'s business, not the agent\'s program', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': '#!/bin/bash\nset -e\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\npython3 /app/run_resolver.py\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; fi\n' }, want: [] },
];

void describe('audit recall (blind5 misses): set -e ends the verifier before the reward on the agent\'s own program', () => {
  for (const c of ERREXIT_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

const USER_TOML = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\nuser = "agent"\n';
const USER_DOCKER = (from: string, extra: string): string => `FROM ${from}\n\nRUN pip install --no-cache-dir pytest==8.3.3\n${extra}WORKDIR /app\nCOPY data/ /app/data/\n`;

const USER_CASES: readonly Case[] = [
  { name: '`[agent] user = "agent"` that no RUN line and no base image creates: every command fails (recall)', base: 'clean-harbor', rules: ['agent-user-missing'],
    files: { 'task.toml': USER_TOML, 'environment/Dockerfile': USER_DOCKER('python:3.12-slim-bookworm', '') }, want: ['agent-user-missing warning 8'] },
  { name: 'the same user made with useradd: quiet', base: 'clean-harbor', rules: ['agent-user-missing'],
    files: { 'task.toml': USER_TOML, 'environment/Dockerfile': USER_DOCKER('python:3.12-slim-bookworm', 'RUN useradd -m -s /bin/bash agent\n') }, want: [] },
  { name: 'a final `USER app` nobody creates is reported at the USER line; `USER node` on a node image is the image\'s own', base: 'clean-harbor', rules: ['agent-user-missing'],
    files: { 'environment/Dockerfile': USER_DOCKER('python:3.12-slim-bookworm', 'USER app\n') }, want: ['agent-user-missing warning 4'] },
  { name: '… `USER node` on node:20-bookworm is quiet', base: 'clean-harbor', rules: ['agent-user-missing'],
    files: { 'environment/Dockerfile': 'FROM node:20-bookworm\nUSER node\nWORKDIR /app\n' }, want: [] },
  { name: '… and so is any user on a base image whose accounts are not known', base: 'clean-harbor', rules: ['agent-user-missing'],
    files: { 'task.toml': USER_TOML, 'environment/Dockerfile': 'FROM ghcr.io/acme/agent-base:1.4\nUSER runner\nWORKDIR /app\n' }, want: [] },
];

void describe('audit recall (blind5 misses): the agent\'s user is never created', () => {
  for (const c of USER_CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});
