/**
 * Table of rule fixtures: each case edits a clean base task (test/fixtures/audit/clean-*) into a
 * firing ("bad") and a quiet ("good") variant. `null` deletes a file.
 */
export type Files = Readonly<Record<string, string | null>>;

export interface RuleCase {
  readonly rule: string;
  readonly base: 'clean-harbor' | 'clean-tb1';
  readonly bad: Files;
  readonly good: Files;
  /** The bad variant's finding carries a fix that, applied, makes it disappear. */
  readonly fix?: boolean;
  /** Tells apart two cases of one rule in the test's name. */
  readonly variant?: string;
}

import { RECALL_CASES } from './audit-cases-recall';
import { RECALL_TEST_CASES } from './audit-cases-recall-tests';

const H_TEST_SH = (body: string): string => `#!/bin/bash\n\nmkdir -p /logs/verifier\n\n${body}\n`;
const REWARD_IF = 'if [ $? -eq 0 ]; then\n  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi';
const PY = (body: string): string => `import json\nimport os\nimport time\nfrom pathlib import Path\n\nOUT = Path("/app/totals.json")\n\n\n${body}\n`;
const DOCKER = (extra: string): string => `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n${extra}`;
const TB1_RUN = (cmd: string): string => `#!/bin/bash\n\n${cmd}\n`;

export const CASES: readonly RuleCase[] = [
  {
    rule: 'test-time-network-install', base: 'clean-harbor', fix: true,
    bad: { 'tests/test.sh': H_TEST_SH(`pip install requests==2.32.3\npytest --noconftest -rA /tests/test_outputs.py\n${REWARD_IF}`) },
    good: { 'environment/Dockerfile': DOCKER('RUN pip install --no-cache-dir requests==2.32.3\n') },
  },
  {
    rule: 'unpinned-test-dependency', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH(`pip install requests\npytest --noconftest -rA /tests/test_outputs.py\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`pip install requests==2.32.3\npytest --noconftest -rA /tests/test_outputs.py\n${REWARD_IF}`) },
  },
  {
    rule: 'exit-code-masking', base: 'clean-harbor', fix: true,
    bad: { 'tests/test.sh': H_TEST_SH(`pytest --noconftest -rA /tests/test_outputs.py || true\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`pytest --noconftest -rA /tests/test_outputs.py\n${REWARD_IF}`) },
  },
  {
    rule: 'pipeline-status-masked', base: 'clean-harbor', fix: true,
    bad: { 'tests/test.sh': H_TEST_SH(`pytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/pytest.log\n${REWARD_IF}`) },
    good: { 'tests/test.sh': `#!/bin/bash\nset -o pipefail\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/pytest.log\n${REWARD_IF}\n` },
  },
  {
    // Hardened verifiers run pytest through an absolute, isolated interpreter: still a test command.
    rule: 'pipeline-status-masked', variant: 'python3 -I -W error -m pytest', base: 'clean-harbor', fix: true,
    bad: { 'tests/test.sh': H_TEST_SH(`/usr/local/bin/python3 -I -W error -m pytest --noconftest -rA /tests/test_outputs.py | tee /logs/verifier/pytest.log\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`/usr/local/bin/python3 -I -m pytest --noconftest -rA /tests/test_outputs.py > /logs/verifier/pytest.log\n${REWARD_IF}`) },
  },
  {
    rule: 'unconditional-reward', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH('pytest --noconftest -rA /tests/test_outputs.py\necho 1 > /logs/verifier/reward.txt') },
    good: { 'tests/test.sh': H_TEST_SH('pytest --noconftest -rA /tests/test_outputs.py || { echo 0 > /logs/verifier/reward.txt; exit 0; }\necho 1 > /logs/verifier/reward.txt') },
  },
  {
    rule: 'reward-not-written-on-failure', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH('set -e\npytest --noconftest -rA /tests/test_outputs.py\necho 1 > /logs/verifier/reward.txt') },
    good: { 'tests/test.sh': H_TEST_SH('set -e\nif pytest --noconftest -rA /tests/test_outputs.py; then\n  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi') },
  },
  {
    rule: 'reward-path-mismatch', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH('pytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/reward.txt; else echo 0 > /logs/reward.txt; fi') },
    good: {},
  },
  {
    rule: 'no-reward-written', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH('pytest --noconftest -rA /tests/test_outputs.py') },
    good: {},
  },
  {
    rule: 'tb1-missing-ra', base: 'clean-tb1', fix: true,
    bad: { 'run-tests.sh': TB1_RUN('pytest --noconftest $TEST_DIR/test_outputs.py') },
    good: { 'run-tests.sh': TB1_RUN('pytest --noconftest $TEST_DIR/test_outputs.py -rA') },
  },
  {
    rule: 'pytest-collection-hijack', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH(`cp /tests/test_outputs.py /app/test_outputs.py\npytest -rA /app/test_outputs.py\n${REWARD_IF}`) },
    good: {},
  },
  {
    rule: 'external-grading-service', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import requests\n${PY('JUDGE = os.environ.get("JUDGE_URL", "http://203.0.113.7:8081")\n\n\ndef test_judge():\n    r = requests.post(JUDGE + "/submit", data={"code": OUT.read_text()}, timeout=30)\n    assert r.json()["passed"] is True\n')}` },
    good: {},
  },
  {
    rule: 'test-code-network-fetch', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import urllib.request\n${PY('def test_matches_upstream():\n    ref = urllib.request.urlopen("https://example.org/data/totals.json").read()\n    assert json.loads(OUT.read_text()) == json.loads(ref)\n')}` },
    good: {},
  },
  {
    rule: 'hardcodable-answer', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_total():\n    assert Path("/app/answer.txt").read_text().strip() == "42"\n') },
    good: {},
  },
  {
    rule: 'verifier-runs-agent-writable-code', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH(`bash /app/run_tests.sh\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`bash /tests/run_checks.sh\n${REWARD_IF}`), 'tests/run_checks.sh': '#!/bin/bash\npytest --noconftest -rA /tests/test_outputs.py\n' },
  },
  {
    rule: 'missing-test-deps-in-image', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY data/ /app/data/\n' },
    good: {},
  },
  {
    rule: 'tests-copied-into-image', base: 'clean-tb1', fix: true,
    bad: { Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY tests/ /app/tests/\n' },
    good: { Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY tests/ /app/tests/\nRUN rm -rf /app/tests\n' },
  },
  {
    rule: 'solution-copied-into-image', base: 'clean-tb1', fix: true,
    bad: { Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY solution.sh /app/solution.sh\n' },
    good: {},
  },
  {
    rule: 'answer-in-image', base: 'clean-harbor',
    bad: { 'environment/data/expected_totals.json': '{"north": 12.5, "south": 4.5}\n', 'tests/test_outputs.py': PY('def test_totals():\n    want = json.loads(Path("/app/data/expected_totals.json").read_text())\n    assert json.loads(OUT.read_text()) == want') },
    good: { 'tests/expected_totals.json': '{"north": 12.5, "south": 4.5}\n', 'tests/test_outputs.py': PY('def test_totals():\n    want = json.loads(Path("/tests/expected_totals.json").read_text())\n    assert json.loads(OUT.read_text()) == want') },
  },
  {
    rule: 'output-already-in-image', base: 'clean-tb1',
    bad: { 'counts.txt': '2 a\n', 'solution.sh': '#!/bin/bash\necho ok\n', Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y tmux asciinema\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY counts.txt /app/counts.txt\n' },
    good: { 'counts.txt': '2 a\n', Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y tmux asciinema\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY counts.txt /app/counts.txt\n' },
  },
  {
    rule: 'tb1-terminal-tools-missing', base: 'clean-tb1',
    bad: { Dockerfile: 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY words.txt /app/words.txt\n' },
    good: {},
  },
  {
    rule: 'copy-source-missing', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('COPY config.ini /app/config.ini\n') },
    good: { 'environment/Dockerfile': DOCKER('COPY config.ini /app/config.ini\n'), 'environment/config.ini': '[server]\nport = 80\n' },
  },
  {
    rule: 'heredoc-without-syntax', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('RUN <<EOF\nmkdir -p /app/out\nEOF\n') },
    good: { 'environment/Dockerfile': `# syntax=docker/dockerfile:1.4\n${DOCKER('RUN <<EOF\nmkdir -p /app/out\nEOF\n')}` },
  },
  {
    rule: 'base-image-unpinned', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': 'FROM python:latest\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\n' },
    good: {},
  },
  {
    rule: 'apt-exact-version-pin', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('RUN apt-get update && apt-get install -y curl=7.88.1-10+deb12u8 && rm -rf /var/lib/apt/lists/*\n') },
    // A release-pocket revision stays in its release: pinning it keeps building.
    good: { 'environment/Dockerfile': DOCKER('RUN apt-get update && apt-get install -y jq=1.6-2.1ubuntu3 && rm -rf /var/lib/apt/lists/*\n') },
  },
  {
    rule: 'unpinned-image-package', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('RUN pip install --no-cache-dir pandas\n') },
    good: { 'environment/Dockerfile': DOCKER('RUN pip install --no-cache-dir pandas==2.2.3\n') },
  },
  {
    rule: 'apt-install-without-update', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('RUN apt-get install -y jq\n') },
    good: { 'environment/Dockerfile': DOCKER('RUN apt-get update && apt-get install -y jq\n') },
  },
  {
    rule: 'nproc-with-cpu-limit', base: 'clean-harbor',
    bad: { 'task.toml': 'version = "1.0"\n[verifier]\ntimeout_sec = 120.0\n[agent]\ntimeout_sec = 600.0\n[environment]\ncpus = 1\n', 'solution/solve.sh': '#!/bin/bash\nmake -j"$(nproc)" -C /app\n' },
    good: { 'task.toml': 'version = "1.0"\n[verifier]\ntimeout_sec = 120.0\n[agent]\ntimeout_sec = 600.0\n[environment]\ncpus = 1\n', 'solution/solve.sh': '#!/bin/bash\nmake -j1 -C /app\n' },
  },
  {
    rule: 'assertion-free-test', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals():\n    data = json.loads(OUT.read_text())\n    print(data)\n') },
    good: { 'tests/test_outputs.py': PY('def check(data):\n    assert data == {"north": 12.5, "south": 4.5}\n\n\ndef test_totals():\n    data = json.loads(OUT.read_text())\n    check(data)\n') },
  },
  {
    rule: 'trivial-assertion', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals():\n    json.loads(OUT.read_text())\n    assert True\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    assert json.loads(OUT.read_text()) == {"north": 12.5, "south": 4.5}\n') },
  },
  {
    rule: 'existence-only-test', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals_exist():\n    assert OUT.exists()\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals_exist():\n    assert OUT.exists()\n\n\ndef test_totals():\n    assert json.loads(OUT.read_text()) == {"north": 12.5, "south": 4.5}\n') },
  },
  {
    rule: 'weak-assertion', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals():\n    data = json.loads(OUT.read_text())\n    assert data is not None\n    assert isinstance(data, dict)\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    data = json.loads(OUT.read_text())\n    assert isinstance(data, dict)\n    assert data["north"] == 12.5\n') },
  },
  {
    rule: 'weak-assertion', base: 'clean-harbor', variant: 'plausibility only',
    bad: { 'tests/test_outputs.py': PY('def test_totals_plausible():\n    data = json.loads(OUT.read_text())\n    assert "north" in data\n    assert data["north"] > 0\n    assert 0 <= data["south"] <= 100\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals_plausible():\n    data = json.loads(OUT.read_text())\n    assert "north" in data\n    assert abs(data["north"] - 12.5) < 0.01\n') },
  },
  {
    rule: 'self-reported-result', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_model_good_enough():\n    report = json.loads(Path("/app/metrics.json").read_text())\n    assert report["accuracy"] >= 0.9\n') },
    good: { 'tests/test_outputs.py': `from sklearn.metrics import accuracy_score\n${PY('def test_model_good_enough():\n    pred = json.loads(Path("/app/predictions.json").read_text())\n    truth = json.loads(Path("/tests/labels.json").read_text())\n    assert accuracy_score(truth, pred) >= 0.9\n')}` },
  },
  {
    rule: 'swallowed-assertion', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals():\n    try:\n        assert json.loads(OUT.read_text()) == {"north": 12.5}\n    except Exception:\n        pass\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    try:\n        data = json.loads(OUT.read_text())\n    except ValueError:\n        data = None\n    assert data == {"north": 12.5}\n') },
  },
  {
    rule: 'skip-counts-as-pass', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import pytest\n${PY('def test_totals():\n    if not OUT.exists():\n        pytest.skip("no output yet")\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n')}` },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    assert OUT.exists(), "no output"\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n') },
  },
  {
    rule: 'wall-clock-threshold', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import subprocess\n${PY('def test_fast():\n    start = time.time()\n    subprocess.run(["python3", "/app/solve.py"], check=True)\n    elapsed = time.time() - start\n    assert elapsed < 0.2\n')}` },
    good: { 'tests/test_outputs.py': `import subprocess\n${PY('def test_runs():\n    start = time.time()\n    out = subprocess.run(["python3", "/app/solve.py"], check=True, capture_output=True, text=True)\n    print("took", time.time() - start)\n    assert out.stdout == "ok\\n"\n')}` },
  },
  {
    rule: 'fixed-sleep-synchronization', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import subprocess\nimport requests\n${PY('def test_server():\n    subprocess.Popen(["python3", "/app/server.py"])\n    time.sleep(3)\n    assert requests.get("http://localhost:8000/health", timeout=5).status_code == 200\n')}` },
    good: { 'tests/test_outputs.py': `import subprocess\n${PY('def test_server():\n    subprocess.Popen(["python3", "/app/server.py"])\n    deadline = time.time() + 30\n    while not Path("/app/server.pid").exists() and time.time() < deadline:\n        time.sleep(0.5)\n    assert Path("/app/server.pid").read_text().strip().isdigit()\n')}` },
  },
  {
    rule: 'unordered-listing-comparison', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_outputs():\n    assert os.listdir("/app/out") == ["a.txt", "b.txt"]\n') },
    good: { 'tests/test_outputs.py': PY('def test_outputs():\n    assert {"a.txt", "b.txt"} <= set(os.listdir("/app/out"))\n') },
  },
  {
    rule: 'exact-directory-listing', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_outputs():\n    assert sorted(os.listdir("/app/out")) == ["a.txt", "b.txt"]\n') },
    good: { 'tests/test_outputs.py': PY('def test_outputs():\n    names = set(os.listdir("/app/out"))\n    assert "a.txt" in names and "b.txt" in names\n') },
  },
  {
    rule: 'clock-timezone-dependence', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import datetime\n${PY('def test_stamp():\n    today = datetime.date.today().isoformat()\n    assert Path("/app/stamp.txt").read_text().strip() == today\n')}` },
    good: { 'tests/test_outputs.py': `import datetime\n${PY('def test_stamp():\n    stamp = Path("/app/stamp.txt").read_text().strip()\n    assert datetime.date.fromisoformat(stamp).year >= 2024\n')}` },
  },
  {
    rule: 'non-invoking-test', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_math():\n    assert sum([1, 2, 3]) == 6\n\n\ndef test_totals():\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n') },
    good: {},
  },
  {
    rule: 'expected-from-agent-writable-path', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('COPY expected_totals.json /app/expected_totals.json\n'), 'environment/expected_totals.json': '{"north": 12.5, "south": 4.5}\n', 'tests/test_outputs.py': PY('def test_totals():\n    want = json.loads(Path("/app/expected_totals.json").read_text())\n    assert json.loads(OUT.read_text()) == want\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    want = json.loads(Path("/tests/expected_totals.json").read_text())\n    assert json.loads(OUT.read_text()) == want\n'), 'tests/expected_totals.json': '{"north": 12.5, "south": 4.5}\n' },
  },
  {
    rule: 'hardcoded-host-path', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('DATA = "/Users/alice/projects/task/data/orders.csv"\n\n\ndef test_totals():\n    assert Path(DATA).exists()\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n') },
    good: {},
  },
  {
    // A path that is a value (an expected answer, text the report must name) is not opened here.
    rule: 'hardcoded-host-path', variant: 'a value, not a file the test opens', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_totals():\n    with open("/home/alice/out/totals.json") as f:\n        assert json.load(f) == {"north": 12.5}\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    found = {"/home/alice/bin/tool", "/opt/tool"}\n    assert "/home/alice/bin/tool" in OUT.read_text()\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n') },
  },
  {
    // pytest reads an ini from every folder above the tests up to /, and then the conftest.py there.
    rule: 'pytest-collection-hijack', variant: 'ini and conftest planted in /', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH(`pytest -rA /tests/test_outputs.py\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`pytest --noconftest -c /dev/null -rA /tests/test_outputs.py\n${REWARD_IF}`) },
  },
  {
    // Generated tasks: a data file saved as the generator's chat about it.
    rule: 'llm-artifact-in-task', variant: 'a data file that opens with chat', base: 'clean-harbor',
    bad: { 'environment/data/orders.db': "I'll create a SQLite database with the order records. Since I need to output binary data, here are the SQL commands:\n\nCREATE TABLE orders (id INTEGER);\n" },
    good: { 'environment/data/orders.db': 'SQLite format 3\u0000\u0010\u0000\u0001\u0001\u0000@  \n' },
  },
  {
    rule: 'llm-artifact-in-task', variant: 'a Markdown fence inside a Python file', base: 'clean-harbor',
    bad: { 'environment/data/report.py': 'import json\n\n\ndef main():\n    print(json.dumps({"ok": True}))\n\n\nmain()\n```\n\nNow the configuration file:\n' },
    good: { 'environment/data/report.py': 'import json\n\n\ndef main():\n    """Print the report.\n\n```\nmain()\n```\n    """\n    print(json.dumps({"ok": True}))\n\n\nmain()\n' },
  },
  {
    // The generator script saved under the data's name; a tool without an extension is a program.
    rule: 'malformed-data-file', variant: 'a data file that is the script meant to make it', base: 'clean-harbor',
    bad: { 'environment/data/features.npy': 'import numpy as np\n\nnp.random.seed(42)\nnp.save("/app/data/features.npy", np.random.rand(10, 4))\n' },
    good: { 'environment/data/features.npy': '\u0093NUMPY\u0001\u0000v\u0000{"descr": "<f8", "fortran_order": False, "shape": (10, 4), }\n', 'environment/data/make-report': '#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n' },
  },
  {
    // Exercism-style suites disable every case but the first; the verifier must re-enable them.
    rule: 'skip-counts-as-pass', variant: 'xtest in a Jest suite', base: 'clean-harbor',
    bad: { 'tests/total.spec.js': "import { total } from './total';\n\ntest('empty', () => {\n  expect(total([])).toBe(0);\n});\n\nxtest('two items', () => {\n  expect(total([1, 2])).toBe(3);\n});\n", 'tests/test.sh': H_TEST_SH(`npx jest /tests\nexit_code=$?\n[ $exit_code -eq 0 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\necho "Exit code: $exit_code"\nexit $exit_code`) },
    good: { 'tests/total.spec.js': "import { total } from './total';\n\ntest('empty', () => {\n  expect(total([])).toBe(0);\n});\n\nxtest('two items', () => {\n  expect(total([1, 2])).toBe(3);\n});\n", 'tests/test.sh': H_TEST_SH(`sed -i 's/xtest(/test(/g' /tests/total.spec.js\nnpx jest /tests\n${REWARD_IF}`) },
  },
  {
    // The expected value lives in the image's environment, which the agent's shell shares.
    rule: 'answer-in-image', variant: 'expected value in an image ENV', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('ENV SECRET_FLAG=FLAG{n0t_s0_s3cr3t}\n'), 'tests/test_outputs.py': PY('def test_flag():\n    assert Path("/app/flag.txt").read_text().strip() == os.environ["SECRET_FLAG"]\n') },
    good: { 'environment/Dockerfile': DOCKER('ENV APP_PORT=8080\n'), 'tests/test_outputs.py': PY('def test_flag():\n    assert Path("/app/flag.txt").read_text().strip() == Path("/tests/flag.txt").read_text().strip()\n'), 'tests/flag.txt': 'FLAG{n0t_s0_s3cr3t}\n' },
  },
  {
    // `npm test` runs package.json's test script, which the agent can rewrite.
    rule: 'verifier-runs-agent-writable-code', variant: 'npm test in the agent\'s folder', base: 'clean-harbor',
    bad: { 'tests/test.sh': H_TEST_SH(`cd /app\nif [ ! -f package.json ]; then cp /tests/package.json /app/package.json; fi\nnpm test\n${REWARD_IF}`) },
    good: { 'tests/test.sh': H_TEST_SH(`cd /app\ncp /tests/package.json /app/package.json\nnpm test\n${REWARD_IF}`) },
  },
  {
    // Outside the agent's folders is still the root agent's: truth baked under /opt at build time.
    rule: 'expected-from-agent-writable-path', variant: 'truth made at build time under /opt', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('RUN mkdir -p /opt/grader && echo 12.5 > /opt/grader/truth.txt\n'), 'tests/test_outputs.py': PY('def test_totals():\n    want = float(Path("/opt/grader/truth.txt").read_text())\n    assert json.loads(OUT.read_text())["north"] == want\n') },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    want = float(Path("/tests/truth.txt").read_text())\n    assert json.loads(OUT.read_text())["north"] == want\n'), 'tests/truth.txt': '12.5\n' },
  },
  {
    rule: 'test-path-disagrees', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': 'import json\nfrom pathlib import Path\n\n\ndef test_totals():\n    assert json.loads(Path("/workspace/out/totals.json").read_text()) == {"north": 12.5}\n' },
    // Trying the instruction's path among candidates agrees with it.
    good: { 'tests/test_outputs.py': 'import json\nfrom pathlib import Path\n\nCANDIDATES = ["/app/totals.json", "/workspace/out/totals.json"]\n\n\ndef test_totals():\n    path = next(Path(p) for p in CANDIDATES if Path(p).exists())\n    assert json.loads(path.read_text()) == {"north": 12.5}\n' },
  },
  {
    // The instruction names the folder and the file apart, in one sentence: it states the tested path.
    rule: 'test-path-disagrees', variant: 'folder and file named apart', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': 'import json\nfrom pathlib import Path\n\n\ndef test_copy():\n    assert json.loads(Path("/workspace/out/totals.json").read_text()) == {"north": 12.5}\n' },
    good: {
      'tests/test_outputs.py': 'import json\nfrom pathlib import Path\n\n\ndef test_copy():\n    assert json.loads(Path("/workspace/out/totals.json").read_text()) == {"north": 12.5}\n',
      'instruction.md': 'Write the total `amount` per region of `/app/data/orders.csv` to `/app/totals.json`. Keep a copy under `/workspace/out/` with the same name, `totals.json`.\n',
    },
  },
  {
    rule: 'secret-in-image', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': DOCKER('ARG HF_TOKEN=""\nENV HF_TOKEN=${HF_TOKEN}\n') },
    good: { 'environment/Dockerfile': DOCKER('ARG HF_TOKEN=""\nRUN --mount=type=secret,id=hf_token true\nENV HF_HOME=/app/.cache\n') },
  },
  {
    rule: 'placeholder-solution', base: 'clean-harbor',
    bad: { 'solution/solve.sh': '#!/bin/bash\n# oracle\necho "Oracle solution script"\n' },
    good: { 'solution/solve.sh': '#!/bin/bash\necho \'{"north": 12.5}\' > /app/totals.json\n' },
  },
  {
    rule: 'merge-conflict-markers', base: 'clean-harbor',
    bad: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\n<<<<<<< HEAD\npytest --noconftest /tests/test_outputs.py\n=======\npytest --noconftest -rA /tests/test_outputs.py\n>>>>>>> fix\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    good: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
  },
  {
    rule: 'verifier-reads-solution', base: 'clean-harbor',
    bad: { 'solution/expected.json': '{"north": 12.5}\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    assert json.load(open("/app/totals.json")) == json.load(open("/solution/expected.json"))\n' },
    good: { 'tests/expected.json': '{"north": 12.5}\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    assert json.load(open("/app/totals.json")) == json.load(open("/tests/expected.json"))\n' },
  },
  {
    rule: 'solution-path-missing', base: 'clean-harbor',
    bad: { 'solution/solve.py': 'print("totals")\n', 'solution/solve.sh': '#!/bin/bash\nset -e\npython3 /app/solution/solve.py\n' },
    good: { 'solution/solve.py': 'print("totals")\n', 'solution/solve.sh': '#!/bin/bash\nset -e\npython3 /solution/solve.py\n' },
  },
  {
    rule: 'tb1-compose-missing', base: 'clean-tb1',
    bad: { 'docker-compose.yaml': null, 'dockercompose.yaml': 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n' },
    good: {},
  },
  {
    rule: 'input-path-mismatch', base: 'clean-harbor',
    bad: { 'solution/solve.sh': '#!/bin/bash\nset -e\npython3 - <<\'PY\'\nimport csv, json\nrows = list(csv.DictReader(open("/app/orders.csv")))\njson.dump({"n": len(rows)}, open("/app/totals.json", "w"))\nPY\n', 'tests/test_outputs.py': 'import csv\nimport json\n\n\ndef test_count():\n    rows = list(csv.DictReader(open("/app/orders.csv")))\n    assert json.load(open("/app/totals.json"))["n"] == len(rows)\n' },
    good: { 'solution/solve.sh': '#!/bin/bash\nset -e\npython3 - <<\'PY\'\nimport csv, json\nrows = list(csv.DictReader(open("/app/data/orders.csv")))\njson.dump({"n": len(rows)}, open("/app/totals.json", "w"))\nPY\n', 'tests/test_outputs.py': 'import csv\nimport json\n\n\ndef test_count():\n    rows = list(csv.DictReader(open("/app/data/orders.csv")))\n    assert json.load(open("/app/totals.json"))["n"] == len(rows)\n' },
  },
  {
    rule: 'reward-json-not-object', base: 'clean-harbor',
    bad: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.json; else echo 0 > /logs/verifier/reward.json; fi\n' },
    good: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
  },
  {
    rule: 'tests-unavailable-to-agent', base: 'clean-harbor',
    bad: { 'tests/test_visible.py': 'def test_ok():\n    assert True\n', 'instruction.md': 'Write the totals per region to `/app/totals.json`. Check your work with `pytest /tests/test_visible.py`.\n' },
    good: { 'tests/test_visible.py': 'def test_ok():\n    assert True\n', 'instruction.md': 'Write the totals per region to `/app/totals.json`.\n' },
  },
  {
    rule: 'instruction-missing-file', base: 'clean-harbor',
    bad: { 'instruction.md': 'Using the rates in `/app/data/rates.csv`, convert each amount in `/app/data/orders.csv` and write the totals per region to `/app/totals.json`.\n' },
    good: { 'instruction.md': 'Using the rates in `/app/data/rates.csv`, convert each amount in `/app/data/orders.csv` and write the totals per region to `/app/totals.json`.\n', 'environment/data/rates.csv': 'region,rate\nnorth,1\n' },
  },
  {
    rule: 'missing-test-fixture', base: 'clean-harbor',
    bad: { 'tests/orders.csv': null },
    good: {},
  },
  {
    rule: 'unstated-tested-file', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': PY('def test_report():\n    assert Path("/app/report.md").read_text().startswith("# Totals")\n\n\ndef test_totals():\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n'), 'solution/solve.sh': '#!/bin/bash\necho "# Totals" > /app/report.md\necho \'{"north": 12.5}\' > /app/totals.json\n' },
    good: { 'tests/test_outputs.py': PY('def test_totals():\n    assert json.loads(OUT.read_text()) == {"north": 12.5}\n'), 'solution/solve.sh': '#!/bin/bash\necho "# Totals" > /app/report.md\necho \'{"north": 12.5}\' > /app/totals.json\n' },
  },
  {
    rule: 'solution-exceeds-timeout', base: 'clean-harbor',
    bad: { 'solution/solve.sh': '#!/bin/bash\npython3 /app/train.py &\nsleep 900\n' },
    good: { 'solution/solve.sh': '#!/bin/bash\npython3 /app/train.py &\nsleep 30\n' },
  },
  {
    rule: 'verifier-timeout-too-short', base: 'clean-harbor',
    bad: { 'tests/test_outputs.py': `import subprocess\n${PY('def test_run():\n    out = subprocess.run(["python3", "/app/solve.py"], capture_output=True, text=True, timeout=300)\n    assert out.stdout == "ok\\n"\n')}` },
    good: { 'tests/test_outputs.py': `import subprocess\n${PY('def test_run():\n    out = subprocess.run(["python3", "/app/solve.py"], capture_output=True, text=True, timeout=60)\n    assert out.stdout == "ok\\n"\n')}` },
  },
  {
    rule: 'external-live-resource', base: 'clean-harbor',
    bad: { 'instruction.md': 'Download the model card from https://huggingface.co/bert-base-uncased and write its license to `/app/license.txt`.\n' },
    good: {},
  },
  {
    rule: 'malformed-data-file', base: 'clean-harbor',
    bad: { 'tests/expected.json': '{"north": 12.5,,}\n' },
    good: { 'tests/expected.json': '{"north": 12.5}\n' },
  },
  {
    rule: 'llm-artifact-in-task', base: 'clean-harbor',
    bad: { 'instruction.md': 'I need to analyze the CSV first.\n\nWrite the totals per region of `/app/data/orders.csv` to `/app/totals.json`.\n' },
    good: {},
  },
  {
    rule: 'solution-unpinned-dependency', base: 'clean-harbor',
    bad: { 'solution/solve.sh': '#!/bin/bash\npip install pandas\npython3 /app/solve.py\n' },
    good: { 'solution/solve.sh': '#!/bin/bash\npip install pandas==2.2.3\npython3 /app/solve.py\n' },
  },
  {
    rule: 'path-outside-task', base: 'clean-tb1',
    bad: { 'docker-compose.yaml': 'services:\n  client:\n    build:\n      context: ../..\n      dockerfile: Dockerfile\n' },
    good: { 'docker-compose.yaml': 'services:\n  client:\n    build:\n      context: .\n      dockerfile: Dockerfile\n' },
  },
  {
    // Harbor sets CONTEXT_DIR to the task's environment folder when it runs the compose file.
    rule: 'path-outside-task', base: 'clean-harbor',
    bad: { 'environment/docker-compose.yaml': 'services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}/../..\n' },
    good: { 'environment/docker-compose.yaml': 'services:\n  main:\n    build:\n      context: ${CONTEXT_DIR}/..\n      dockerfile: environment/Dockerfile\n' },
  },
  ...RECALL_CASES,
  ...RECALL_TEST_CASES,
];
