/**
 * False findings the third blind held-out set met (bench/accuracy/labels/blind3.json), one fixture
 * per cause, written here in the style of what was read: each asserts the absence on the false case
 * and that the true case still fires.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCases, findingsOf as found, type PatternCase as Case } from './audit-helpers';

/** A verifier that discards pytest's status and turns the score file the tests write into the reward. */
const SCORE_SH = '#!/bin/bash\nset -uo pipefail\nSCORE_FILE="/tests/score.txt"\nmkdir -p /logs/verifier\nrm -f "$SCORE_FILE"\npytest --noconftest -rA /tests/test_outputs.py || true\nif [[ ! -f "$SCORE_FILE" ]]; then echo 0 > /logs/verifier/reward.txt; exit 0; fi\npython3 -c "print(float(open(\'$SCORE_FILE\').read()) / 100)" > /logs/verifier/reward.txt\n';
/** The same tests graded by pytest's status. */
const STATUS_SH = '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
const SCORED_TEST = 'import json\nfrom pathlib import Path\n\nimport pytest\n\nOUT = Path("/app/totals.json")\nSCORE = Path("/tests") / "score.txt"\n\n\ndef test_has_north():\n    if not OUT.exists():\n        pytest.skip("no output")\n    assert "north" in json.loads(OUT.read_text())\n\n\ndef test_write_score():\n    got = json.loads(OUT.read_text()) if OUT.exists() else {}\n    pts = 50.0 if got.get("north") == 12.5 else 0.0\n    pts += 50.0 if got.get("south") == 4.5 else 0.0\n    SCORE.write_text(str(pts))\n    assert True\n';

const PINNED_TOOL_SH = (from: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\ncurl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh\nsource $HOME/.local/bin/env\nuvx --from '${from}' rewardkit /tests\n`;

/** A vendored library unpacked from an archive: the folder's content is not known file by file. */
const LIB_DOCKER = 'FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\nADD vendor.tar.gz /app/lib/\n';
const LIB_TEST = (imports: string, check: string): string => `import sys\n\nsys.path.insert(0, "/app/lib")\n${imports}\n\n\ndef test_totals():\n${check}`;

const SSH_TEST = (user: string): string => `import subprocess\n\n\ndef _ensure_user(name):\n    subprocess.run(["useradd", "-m", name], check=False)\n\n\ndef test_copy_through_jump():\n    _ensure_user("${user}")\n    remote = "/home/${user}/from_client.txt"\n    subprocess.run(["scp", "-F", "/app/client/ssh_config", "/tmp/x", f"internal:{remote}"], check=True)\n    assert open(remote).read() == "x"\n`;
const AUTHOR_TEST = 'def test_totals():\n    with open("/home/jsmith/work/totals.json") as fh:\n        assert fh.read().strip() == "{}"\n';

/** A checked-in dataset bigger than the loader's listing bound, beside an ordinary tests/ folder. */
const BIG_DATA: Record<string, string> = {};
for (let i = 0; i < 5100; i++) BIG_DATA[`environment/data/corpus/${String(i).padStart(5, '0')}.txt`] = 'x\n';

const ANSWER_DOCKER = (copy: string): string => `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n${copy}\n`;
const FAILURES_SH = '#!/bin/bash\nmkdir -p /logs/verifier\nKNOWN="/tests/data/expected_failures.txt"\nbash /tests/run_suite.sh "$KNOWN"\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';

const CASES: readonly Case[] = [
  // skip-counts-as-pass / trivial-assertion: graded by a score file the tests write
  { name: 'a skip does not count when pytest\'s status is discarded and the reward is read from the score file the tests write', base: 'clean-harbor', rules: ['skip-counts-as-pass'],
    files: { 'tests/test.sh': SCORE_SH, 'tests/test_outputs.py': SCORED_TEST }, want: [] },
  { name: 'the same skip under a status-graded run is still reported', base: 'clean-harbor', rules: ['skip-counts-as-pass'],
    files: { 'tests/test.sh': STATUS_SH, 'tests/test_outputs.py': SCORED_TEST }, want: ['skip-counts-as-pass info 12'] },
  { name: 'the scoring test ending in `assert True` is a note when the score file decides the reward', base: 'clean-harbor', rules: ['trivial-assertion'],
    files: { 'tests/test.sh': SCORE_SH, 'tests/test_outputs.py': SCORED_TEST }, want: ['trivial-assertion info 21'] },
  { name: 'the same `assert True` under a status-graded run is a warning (the test can never fail; other tests may still check the work)', base: 'clean-harbor', rules: ['trivial-assertion'],
    files: { 'tests/test.sh': STATUS_SH, 'tests/test_outputs.py': SCORED_TEST }, want: ['trivial-assertion warning 21'] },
  // unpinned-test-dependency: `uvx --from pkg==v tool`
  { name: 'the command of a `uvx --from` package is not a package of its own; `==0.1.*` pins the package', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': PINNED_TOOL_SH('harbor-rewardkit==0.1.*') }, want: [] },
  { name: 'an unpinned `uvx --from` package is still reported', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': PINNED_TOOL_SH('harbor-rewardkit') }, want: ['unpinned-test-dependency warning 5'] },
  // verifier-imports-agent-module: standard-library names
  { name: 'a standard-library import beside an agent-writable folder on sys.path is the interpreter\'s module', base: 'clean-harbor', rules: ['verifier-imports-agent-module'],
    files: { 'environment/Dockerfile': LIB_DOCKER, 'environment/vendor.tar.gz': '',
      'tests/test_outputs.py': LIB_TEST('from pathlib import Path', '    assert Path("/app/totals.json").read_text().strip() == \'{"north": 12.5}\'\n') },
    want: [] },
  { name: 'a module of the copied folder the tests grade through is still reported', base: 'clean-harbor', rules: ['verifier-imports-agent-module'],
    files: { 'environment/Dockerfile': LIB_DOCKER, 'environment/vendor.tar.gz': '',
      'tests/test_outputs.py': LIB_TEST('from scorer import score', '    assert score("/app/totals.json") == 1.0\n') },
    want: ['verifier-imports-agent-module warning 4'] },
  // hardcoded-host-path: a home folder the task creates
  { name: 'the home folder of a user the tests create (and the instruction names) is in the container', base: 'clean-harbor', rules: ['hardcoded-host-path'],
    files: { 'instruction.md': 'Sign the client key for principal `appuser` and configure `/app/client/ssh_config` to reach `internal` through the bastion.\n', 'tests/test_outputs.py': SSH_TEST('appuser') },
    want: [] },
  { name: 'an author\'s home folder the task never mentions is still reported', base: 'clean-harbor', rules: ['hardcoded-host-path'],
    files: { 'tests/test_outputs.py': AUTHOR_TEST }, want: ['hardcoded-host-path warning 2'] },
  // missing-test-entry: the listing bound
  { name: 'tests/test.sh beside a checked-in dataset larger than the listing bound is found', base: 'clean-harbor', rules: ['missing-test-entry', 'missing-solution'],
    files: BIG_DATA, want: [] },
  { name: 'a task without tests/test.sh is still reported, whatever its size', base: 'clean-harbor', rules: ['missing-test-entry'],
    files: { ...BIG_DATA, 'tests/test.sh': null }, want: ['missing-test-entry error 9'] },
  // answer-in-image: the tests' own copy, and documentation beside answers
  { name: 'a file named as expected that the tests ship their own copy of is not the answer they read', base: 'clean-harbor', rules: ['answer-in-image'],
    files: { 'environment/Dockerfile': ANSWER_DOCKER('COPY known/ /app/known/'), 'environment/known/expected_failures.txt': 'cc:loop-unroll:known\n',
      'tests/data/expected_failures.txt': 'cc:loop-unroll:known\n', 'tests/run_suite.sh': '#!/bin/bash\ngrep -c . "$1"\n', 'tests/test.sh': FAILURES_SH },
    want: [] },
  { name: 'a README in a golden folder documents; the golden data beside it is still an answer', base: 'clean-harbor', rules: ['answer-in-image'],
    files: { 'environment/Dockerfile': ANSWER_DOCKER('COPY golden/README.txt /app/golden/README.txt\nCOPY golden/regional.json /app/golden/regional.json'),
      'environment/golden/README.txt': 'Regression goldens.\n', 'environment/golden/regional.json': '{"north": 12.5}\n',
      'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    # golden/README.txt explains the goldens\n    assert json.load(open("/app/totals.json")) == json.load(open("/app/golden/regional.json"))\n' },
    want: ['answer-in-image info 8'] },
];

const PKG = (deps: string): string => `{\n  "name": "ui-tests",\n  "private": true,\n  "devDependencies": {\n${deps}\n  }\n}\n`;
const NPM_SH = '#!/bin/bash\nset -e\ncd /tests\nnpm install\nnpx playwright test || { echo 0 > /logs/verifier/reward.txt; exit 0; }\necho 1 > /logs/verifier/reward.txt\n';
const PY_REWARD_SH = (target: string): string => `#!/usr/bin/env bash\nset -euo pipefail\npython3 /tests/verify.py > /tests/result.json\npython3 - <<'PY'\nimport json\nfrom pathlib import Path\nscore = json.loads(Path('/tests/result.json').read_text()).get('score', 0.0)\nPath('${target}').write_text(f"{score:.6f}\\n")\nPY\n`;

const RUST_DOCKER = (pipe: string): string => `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\nRUN apt-get update && apt-get install -y --no-install-recommends curl=7.88.1-10+deb12u12\nRUN curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | ${pipe}\n\nWORKDIR /app\nCOPY data/ /app/data/\n`;
const OFFLINE_COMPOSE = 'services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}\n    image: ${MAIN_IMAGE_NAME}\n    command: ["sh", "-c", "sleep infinity"]\n    network_mode: "none"\n';
const UV_SH = (url: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\ncurl -LsSf ${url} | sh\nsource $HOME/.local/bin/env\nuvx -p 3.12 -w pytest==8.4.1 pytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

/**
 * Defects the blind readings found and the audit missed, now found: blind2's (labels/blind2.json) and,
 * after blind3 was frozen, blind3's (labels/blind3.json).
 */
const RECALL: readonly Case[] = [
  { name: 'rustup piped into sh with no toolchain (or `stable`) installs whatever Rust is newest', base: 'clean-harbor', rules: ['unversioned-download-url'],
    files: { 'environment/Dockerfile': RUST_DOCKER('sh -s -- -y --default-toolchain stable') }, want: ['unversioned-download-url warning 5'] },
  { name: 'rustup with a version, a dated channel or a build argument is pinned', base: 'clean-harbor', rules: ['unversioned-download-url'],
    files: { 'environment/Dockerfile': `${RUST_DOCKER('sh -s -- -y --default-toolchain 1.83.0')}RUN curl -sSf https://sh.rustup.rs | sh -s -- -y --default-toolchain nightly-2026-01-16\nARG RUST_VERSION=1.83.0\nRUN curl -sSf https://sh.rustup.rs | sh -s -- -y --default-toolchain \${RUST_VERSION}\n` },
    want: [] },
  { name: 'the unversioned uv installer piped into sh by the verifier is an unpinned test dependency', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': UV_SH('https://astral.sh/uv/install.sh') }, want: ['unpinned-test-dependency warning 3'] },
  { name: 'the versioned uv installer is pinned', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': UV_SH('https://astral.sh/uv/0.9.7/install.sh') }, want: [] },
  { name: 'a compose file that cuts the main service off the network makes a verify-time install a warning', base: 'clean-harbor', rules: ['test-time-network-install'],
    files: { 'environment/docker-compose.yaml': OFFLINE_COMPOSE, 'tests/test.sh': UV_SH('https://astral.sh/uv/0.9.7/install.sh') }, want: ['test-time-network-install warning 3'] },
  { name: 'without it (Harbor\'s default public network) the install is a note', base: 'clean-harbor', rules: ['test-time-network-install'],
    files: { 'tests/test.sh': UV_SH('https://astral.sh/uv/0.9.7/install.sh') }, want: ['test-time-network-install info 3'] },
  { name: '`npm install` of the tests\' package.json ranges with no lockfile is an unpinned test dependency', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': NPM_SH, 'tests/package.json': PKG('    "@playwright/test": "^1.49.0",\n    "vitest": "~2.1.8"') },
    want: ['unpinned-test-dependency warning 4'] },
  { name: 'the same install with a lockfile beside the manifest, or exact versions, is pinned', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': NPM_SH, 'tests/package.json': PKG('    "@playwright/test": "1.49.0",\n    "vitest": "2.1.8"') },
    want: [] },
  { name: 'a lockfile pins the ranges', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': NPM_SH, 'tests/package.json': PKG('    "@playwright/test": "^1.49.0"'), 'tests/package-lock.json': '{"lockfileVersion": 3}\n' },
    want: [] },
  { name: 'a reward written by Python to a relative reward.txt, with /logs/verifier named nowhere, is lost', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': PY_REWARD_SH('reward.txt'), 'tests/verify.py': 'import json\nprint(json.dumps({"score": 1.0}))\n' },
    want: ['reward-path-mismatch error 8'] },
  { name: 'the same Python write to /logs/verifier/reward.txt is where the harness reads', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': PY_REWARD_SH('/logs/verifier/reward.txt'), 'tests/verify.py': 'import json\nprint(json.dumps({"score": 1.0}))\n' },
    want: [] },
];

void describe('audit recall (blind2 misses): one fixture per pattern', () => {
  for (const c of RECALL) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});

describeCases('audit precision (blind3 false findings): one fixture per cause', CASES);
