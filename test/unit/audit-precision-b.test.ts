/**
 * One fixture per pattern met in real verifiers and tests (written here in their style, not copied),
 * each asserting the exact finding — rule, severity, line — or its absence.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf as found, type PatternCase as Case, verifierScript as SH } from './audit-helpers';

const TOML_OFFLINE = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\nallow_internet = false\n';
const PYT = (body: string): string => `import json\nimport os\nimport subprocess\nimport time\nfrom pathlib import Path\n\nOUT = Path("/app/totals.json")\n\n${body}\n`;
const NET = ['test-time-network-install', 'unpinned-test-dependency'];

const CASES: readonly Case[] = [
  // Shell: installs, pins, options
  { name: 'pinned install with network (Harbor default public) is a note, once per script', base: 'clean-harbor', rules: NET,
    files: { 'tests/test.sh': SH('pip install requests==2.32.3\npip install numpy==2.1.0\npytest --noconftest -rA /tests/test_outputs.py') },
    want: ['test-time-network-install info 3'] },
  { name: 'install with the verifier offline is a warning', base: 'clean-harbor', rules: NET,
    files: { 'task.toml': TOML_OFFLINE, 'tests/test.sh': SH('pip install requests==2.32.3\npytest --noconftest -rA /tests/test_outputs.py') },
    want: ['test-time-network-install warning 3'] },
  { name: 'option values are not packages (--retries 3, --index URL)', base: 'clean-harbor', rules: NET,
    files: { 'tests/test.sh': SH('uv pip install --retries 3 --index https://pypi.org/simple pytest==8.3.3\npytest --noconftest -rA /tests/test_outputs.py') },
    want: ['test-time-network-install info 3'] },
  { name: '~= and closed ranges are pinned', base: 'clean-harbor', rules: NET,
    files: { 'tests/test.sh': SH('pip install "pytest~=8.3" "requests>=2.31,<3"\npytest --noconftest -rA /tests/test_outputs.py') },
    want: ['test-time-network-install info 3'] },
  { name: 'unpinned installs: one finding per script, at the first', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { 'tests/test.sh': SH('pip install pytest requests\npip install "numpy>=1.20"\npytest --noconftest -rA /tests/test_outputs.py') },
    want: ['unpinned-test-dependency warning 3'] },
  { name: 'TB1: an install is a note (the harness always has network)', base: 'clean-tb1', rules: NET,
    files: { 'run-tests.sh': '#!/bin/bash\npip install pytest==8.3.3\npytest --noconftest $TEST_DIR/test_outputs.py -rA\n' },
    want: ['test-time-network-install info 2'] },
  // Shell: what is a test run
  { name: '`command -v pytest` and `pytest --version` are not runs', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': '#!/bin/bash\ncommand -v pytest >/dev/null || exit 1\npytest --version\npytest --noconftest $TEST_DIR/test_outputs.py -rA\n' },
    want: [] },
  { name: 'TB1: pytest output sent to a log is not parsed, no -rA needed there', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': '#!/bin/bash\nif (pytest --noconftest /app/unit_tests) > /app/unit.log 2>&1; then echo ok; fi\npytest --noconftest $TEST_DIR/test_outputs.py -rA\n' },
    want: [] },
  { name: 'TB1: a script that prints its own short test summary feeds the parser', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': '#!/bin/bash\npytest --noconftest $TEST_DIR/test_outputs.py\nrc=$?\necho "=== short test summary info ==="\nif [ $rc -eq 0 ]; then echo "PASSED all"; else echo "FAILED all"; fi\n' },
    want: [] },
  { name: 'TB1: a plain run without -rA is still an error', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': '#!/bin/bash\npytest --noconftest $TEST_DIR/test_outputs.py > /dev/stdout\n' },
    want: ['tb1-missing-ra error 2'] },
  // Shell: editable tests and scripts
  { name: 'the verifier runs the copy of the tests the image put in /app', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code', 'pytest-collection-hijack'],
    files: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY tests/ /app/tests/\n', 'environment/tests/test_outputs.py': 'def test_x():\n    assert True\n',
      'tests/test.sh': SH('python -m pytest /app/tests/test_outputs.py -rA') },
    want: ['verifier-runs-agent-writable-code error 3'] },
  { name: 'a copy made by the verifier itself is fresh (conftest planting remains)', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code', 'pytest-collection-hijack'],
    files: { 'tests/test.sh': SH('cp /tests/test_outputs.py /app/test_outputs.py\npytest -rA /app/test_outputs.py') },
    want: ['pytest-collection-hijack warning 4'] },
  { name: 'a relative invocation of an agent-writable checker is followed', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\n./check_output.sh') },
    want: ['verifier-runs-agent-writable-code warning 4'] },
  { name: '`python -m unittest dir/x.py` runs the file, not "unittest"; `make test` runs the agent\'s Makefile', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\nmake test\npython -m unittest acceptance/test_app.py') },
    want: ['verifier-runs-agent-writable-code warning 4', 'verifier-runs-agent-writable-code warning 5'] },
  { name: '`python3 -m pip install pytest==x` runs no checker', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\npython3 -m pip install -q pytest==8.3.3 || true\npytest --noconftest -rA /tests/test_outputs.py') },
    want: [] },
  { name: 'a checker script the instruction asks the agent to write is its deliverable', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'instruction.md': 'Write an acceptance test script at /app/acceptance_check.sh that exits 0 when the service works.\n', 'tests/test.sh': SH('bash /app/acceptance_check.sh > /app/acc.log 2>&1\npytest --noconftest -rA /tests/test_outputs.py') },
    want: [] },
  // Python: assertions
  { name: 'test_* functions returning booleans belong to a driver script, not to pytest', base: 'clean-harbor', rules: ['assertion-free-test'],
    files: { 'tests/check_editor.py': 'def test_undo(editor):\n    return editor.text() == "a"\n\n\ndef test_redo():\n    if 1 + 1 == 2:\n        print("PASS")\n        return True\n    return False\n' },
    want: [] },
  { name: 'weak checks beside value checks are quiet, whatever the name', base: 'clean-harbor', rules: ['weak-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_result_is_valid():\n    assert json.loads(OUT.read_text()) is not None\n\n\ndef test_totals():\n    assert json.loads(OUT.read_text())["north"] == 12.5\n') },
    want: [] },
  { name: '`assert False` in an except is a failing check, not a weak one', base: 'clean-harbor', rules: ['weak-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_result_valid_json():\n    try:\n        json.loads(OUT.read_text())\n    except ValueError:\n        assert False, "not JSON"\n') },
    want: [] },
  { name: 'trailing `assert True` beside real checks is a note', base: 'clean-harbor', rules: ['trivial-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_totals():\n    assert json.loads(OUT.read_text())["north"] == 12.5\n    assert True\n') },
    want: ['trivial-assertion info 11'] },
  { name: 'a swallowed check beside live ones is a warning, not an error', base: 'clean-harbor', rules: ['swallowed-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_totals():\n    data = json.loads(OUT.read_text())\n    assert data["north"] == 12.5\n    try:\n        assert data["south"] == 4.5\n    except Exception:\n        pass\n') },
    want: ['swallowed-assertion warning 14'] },
  { name: 'a test whose only check is swallowed is an error', base: 'clean-harbor', rules: ['swallowed-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_totals():\n    try:\n        assert json.loads(OUT.read_text())["north"] == 12.5\n    except:\n        pass\n') },
    want: ['swallowed-assertion error 12'] },
  // Python: time
  { name: 'a lower bound on elapsed time is not brittle', base: 'clean-harbor', rules: ['wall-clock-threshold'],
    files: { 'tests/test_outputs.py': PYT('def test_waits():\n    start = time.monotonic()\n    subprocess.run(["/app/retry.sh"], check=True)\n    elapsed = time.monotonic() - start\n    assert elapsed >= 6\n') },
    want: [] },
  { name: 'an upper bound written either way round is', base: 'clean-harbor', rules: ['wall-clock-threshold'],
    files: { 'tests/test_outputs.py': PYT('def test_fast():\n    start = time.perf_counter()\n    subprocess.run(["/app/solve"], check=True)\n    assert 0.5 > time.perf_counter() - start\n') },
    want: ['wall-clock-threshold warning 12'] },
  { name: 'a bound of many seconds is a hang guard: a note (milliseconds read as such)', base: 'clean-harbor', rules: ['wall-clock-threshold'],
    files: { 'tests/test_outputs.py': PYT('def test_no_hang():\n    t0 = time.time()\n    subprocess.run(["/app/solve"], check=True)\n    elapsed = time.time() - t0\n    assert elapsed < 30\n\n\ndef test_cached():\n    t0 = time.time()\n    subprocess.run(["/app/solve"], check=True)\n    ms = (time.time() - t0) * 1000\n    assert ms < 10\n') },
    want: ['wall-clock-threshold info 13', 'wall-clock-threshold warning 20'] },
  { name: 'a bound held in a name (timeout_s = 120, tol = max(10, x * 0.5)) is read through it', base: 'clean-harbor', rules: ['wall-clock-threshold'],
    files: { 'tests/test_outputs.py': PYT('def test_no_hang():\n    limit = 120\n    t0 = time.time()\n    subprocess.run(["/app/solve"], check=True, timeout=limit)\n    elapsed = time.time() - t0\n    assert elapsed < limit\n\n\ndef test_reported():\n    reported = json.loads(OUT.read_text())["seconds"]\n    t0 = time.time()\n    subprocess.run(["/app/solve"], check=True)\n    took = time.time() - t0\n    tol = max(10.0, reported * 0.5)\n    assert abs(took - reported) < tol\n\n\ndef test_tight():\n    budget = 0.25\n    t0 = time.time()\n    subprocess.run(["/app/solve"], check=True)\n    assert time.time() - t0 < budget\n') },
    want: ['wall-clock-threshold info 14', 'wall-clock-threshold info 23', 'wall-clock-threshold warning 30'] },
  { name: 'datetime.now() against data dates is not elapsed time', base: 'clean-harbor', rules: ['wall-clock-threshold'],
    files: { 'tests/test_outputs.py': `from datetime import datetime, timedelta\n${PYT('def test_recent():\n    now = datetime.now()\n    cutoff = now - timedelta(days=45)\n    assert datetime.fromisoformat(json.loads(OUT.read_text())["at"]) >= cutoff\n')}` },
    want: [] },
  { name: 'a sleep before checking a process is still alive is the check itself', base: 'clean-harbor', rules: ['fixed-sleep-synchronization'],
    files: { 'tests/test_outputs.py': PYT('def test_stays_up():\n    p = subprocess.Popen(["/app/daemon"])\n    time.sleep(2)\n    assert p.poll() is None\n') },
    want: [] },
  // Python: where expected values come from
  { name: "the agent's own output file named like an answer is not an expected value", base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: { 'solution/solve.sh': '#!/bin/bash\necho 42 > /app/answer.txt\n', 'tests/test_outputs.py': PYT('def test_answer():\n    assert Path("/app/answer.txt").read_text().strip() == "42"\n') },
    want: [] },
  { name: 'a file the test writes itself is not an expected value', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\nRUN touch /app/reference_input.txt\n',
      'tests/test_outputs.py': PYT('REF = Path("/app/reference_input.txt")\n\n\ndef test_roundtrip():\n    REF.write_text("abc")\n    out = subprocess.run(["/app/tool", str(REF)], capture_output=True, text=True).stdout\n    assert out == "cba"\n') },
    want: [] },
  { name: 'a reference input handed to the agent\'s program, or a name merely containing "reference", is not an expected value', base: 'clean-harbor', rules: ['expected-from-agent-writable-path'],
    files: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY reference.bed preferences.json /app/\n',
      'tests/test_outputs.py': PYT('def test_intersect():\n    out = subprocess.run(["/app/run.sh", "/app/reference.bed"], capture_output=True, text=True).stdout\n    prefs = json.loads(Path("/app/preferences.json").read_text())\n    assert out.count("\\n") == len(prefs)\n') },
    want: [] },
  // Python: network in test code
  { name: 'grading by a raw-IP judge behind an env default', base: 'clean-harbor', rules: ['external-grading-service', 'test-code-network-fetch'],
    files: { 'tests/test_outputs.py': `import requests\n${PYT('BASE = os.environ.get("BASE_URL", "http://198.51.100.4:8081")\n\n\ndef test_judge():\n    r = requests.post(f"{BASE}/submit", files={"code": open("/app/main.cpp", "rb")}, timeout=30)\n    assert r.json()["passed"] is True\n')}` },
    want: ['external-grading-service warning 10'] },
  { name: 'curl of a moving branch from test code is a warning', base: 'clean-harbor', rules: ['external-grading-service', 'test-code-network-fetch'],
    files: { 'tests/test_outputs.py': PYT('def test_matches():\n    ref = subprocess.run(["curl", "-sL", "https://raw.githubusercontent.com/org/repo/main/ref.json"], capture_output=True, text=True).stdout\n    assert json.loads(OUT.read_text()) == json.loads(ref)\n') },
    want: ['test-code-network-fetch warning 10'] },
  { name: 'localhost services are not the network', base: 'clean-harbor', rules: ['external-grading-service', 'test-code-network-fetch'],
    files: { 'tests/test_outputs.py': `import requests\n${PYT('def test_api():\n    assert requests.post("http://localhost:8000/items", json={"a": 1}, timeout=5).status_code == 201\n')}` },
    want: [] },
];

void describe('audit precision (verifier scripts and Python tests): one fixture per real pattern', () => {
  for (const c of CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});
