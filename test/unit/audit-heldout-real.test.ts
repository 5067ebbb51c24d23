/**
 * The false positives the blind held-out reading found (bench/ACCURACY.md "Held-out (blind)"), one
 * fixture per pattern, written here in the style of those tasks (not copied), each asserting the
 * exact finding — rule, severity, line — or its absence; beside each, the true case that must stay.
 */
import { describeCases, type PatternCase as Case, verifierScript as SH } from './audit-helpers';

const DOCKER = (extra: string): string => `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n${extra}`;
const PYT = (body: string): string => `import json\nimport os\nimport subprocess\nimport time\nfrom pathlib import Path\n\nimport pytest\nimport requests\n\n${body}\n`;
const TOML_SEPARATE = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nenvironment_mode = "separate"\n\n[agent]\ntimeout_sec = 600.0\n';

const CASES: readonly Case[] = [
  // apt-exact-version-pin: only revisions from an update pocket disappear
  { name: 'apt: release-pocket revisions (ubuntuN, buildN, plain Debian) stay in the archive', base: 'clean-harbor', rules: ['apt-exact-version-pin'],
    files: { 'environment/Dockerfile': DOCKER('RUN apt-get update && apt-get install -y --no-install-recommends \\\n    gfortran=4:13.2.0-7ubuntu1 \\\n    tesseract-ocr=5.3.4-1build5 \\\n    octave=7.3.0-2 \\\n    python3=3.11.2-1+b1 \\\n && rm -rf /var/lib/apt/lists/*\n') },
    want: [] },
  { name: 'apt: security, point-release and SRU revisions are flagged, each at its word', base: 'clean-harbor', rules: ['apt-exact-version-pin'],
    files: { 'environment/Dockerfile': DOCKER('RUN apt-get update && apt-get install -y --no-install-recommends \\\n    git=1:2.39.5-0+deb12u2 \\\n    curl=8.5.0-2ubuntu10.6 \\\n    libblas-dev=3.12.0-3build1.1 \\\n && rm -rf /var/lib/apt/lists/*\n') },
    want: ['apt-exact-version-pin warning 8', 'apt-exact-version-pin warning 9', 'apt-exact-version-pin warning 10'] },
  // fixed-sleep-synchronization: only a wait on something just started
  { name: 'sleep right after starting a server, then a request: flagged', base: 'clean-harbor', rules: ['fixed-sleep-synchronization'],
    files: { 'tests/test_outputs.py': PYT('def test_server_answers():\n    proc = subprocess.Popen(["/app/server"])\n    time.sleep(2)\n    try:\n        assert requests.get("http://127.0.0.1:8080/health", timeout=5).status_code == 200\n    finally:\n        proc.kill()\n') },
    want: ['fixed-sleep-synchronization info 12'] },
  { name: 'sleep after an acknowledged request, after exit, or for a TTL: not synchronisation', base: 'clean-harbor', rules: ['fixed-sleep-synchronization'],
    files: { 'tests/test_outputs.py': PYT([
      'def wait_for_server(port):\n    for _ in range(50):\n        try:\n            requests.get(f"http://127.0.0.1:{port}/health", timeout=1)\n            return True\n        except Exception:\n            time.sleep(0.1)\n    return False\n',
      'def test_persisted_after_ack():\n    proc = subprocess.Popen(["/app/server"])\n    assert wait_for_server(8080)\n    r = requests.post("http://127.0.0.1:8080/documents", json={"id": "a"}, timeout=5)\n    assert r.status_code == 201\n    time.sleep(0.5)\n    assert os.path.exists("/app/data/index.json")\n    proc.terminate()\n    proc.wait(timeout=5)\n    time.sleep(0.5)\n    proc2 = subprocess.Popen(["/app/server"])\n    assert wait_for_server(8080)\n    assert requests.get("http://127.0.0.1:8080/documents/a", timeout=5).status_code == 200\n    proc2.kill()\n',
      'def test_object_expires():\n    requests.put("http://127.0.0.1:8080/b/o", data=b"x", headers={"X-Expire-After": "2"}, timeout=5)\n    time.sleep(2.5)\n    assert requests.get("http://127.0.0.1:8080/b/o", timeout=5).status_code in (404, 410)\n',
    ].join('\n')) },
    want: [] },
  { name: 'shell: sleep after killing the background server is not a readiness wait', base: 'clean-harbor', rules: ['fixed-sleep-synchronization'],
    files: { 'tests/test.sh': SH('/app/server &\nSERVER_PID=$!\nfor i in $(seq 1 30); do curl -s localhost:8080 && break; sleep 1; done\npytest --noconftest -c /dev/null -rA /tests/test_outputs.py\nrc=$?\nkill $SERVER_PID\nsleep 1\n[ $rc -eq 0 ]') },
    want: [] },
  // skip-counts-as-pass: a guard on the task's own shipped files is not a hole
  { name: 'skip when the shipped sample or ground truth is absent (local runs): quiet; skip on missing agent output: flagged', base: 'clean-harbor', rules: ['skip-counts-as-pass'],
    files: {
      'environment/data/scene.bin': 'BIN0',
      'tests/data/ground_truth.json': '{"heldout_1.bin": 1.5}\n',
      'tests/data/heldout_1.bin': 'BIN1',
      'tests/test_outputs.py': PYT([
        'def ground_truth(path):\n    for base in ["/tests/data/ground_truth.json", "tests/data/ground_truth.json"]:\n        if os.path.exists(base):\n            return json.load(open(base)).get(os.path.basename(path), 0.0)\n    return 0.0\n',
        'def test_scene_sample():\n    scene = "/app/data/scene.bin"\n    if not os.path.exists(scene):\n        pytest.skip("scene.bin not found")\n    assert open(scene, "rb").read(3) == b"BIN"\n',
        'def test_heldout():\n    expected = ground_truth("/tests/data/heldout_1.bin")\n    if expected == 0.0:\n        pytest.skip("ground truth missing")\n    assert expected > 1\n',
        'def test_binary_runs():\n    if not os.path.exists("/app/bin/server"):\n        pytest.skip("server binary not built")\n    assert subprocess.run(["/app/bin/server", "--version"]).returncode == 0\n',
      ].join('\n')),
    },
    want: ['skip-counts-as-pass info 30'] },
  // output-already-in-image: the create verb must govern the path
  { name: 'a provided script the instruction tells the agent to run is not an output', base: 'clean-harbor', rules: ['output-already-in-image'],
    files: {
      'instruction.md': 'Fix the fragment manager in /app/src.\n\nBuild: bash /app/src/build.sh compiles the sources. Run: bash /app/src/run.sh reads /app/scenario.txt writes /app/output.txt.\n',
      'environment/src/build.sh': '#!/bin/bash\nkotlinc /app/src -d /app/out\n',
      'environment/src/run.sh': '#!/bin/bash\nkotlin -cp /app/out MainKt\n',
      'environment/Dockerfile': DOCKER('COPY src /app/src\n'),
      'tests/test_outputs.py': PYT('def test_output():\n    subprocess.run(["bash", "/app/src/build.sh"], check=True)\n    subprocess.run(["bash", "/app/src/run.sh"], check=True)\n    assert Path("/app/output.txt").read_text().strip() == "ok"\n'),
    },
    want: [] },
  { name: 'a file the instruction asks to write but the image already ships: still reported (a warning: the claim rests on reading the instruction)', base: 'clean-harbor', rules: ['output-already-in-image'],
    files: {
      'instruction.md': 'Write the per-region totals to /app/report.json.\n',
      'environment/report.json': '{"north": 1}\n',
      'environment/Dockerfile': DOCKER('COPY report.json /app/report.json\n'),
      'tests/test_outputs.py': PYT('def test_report():\n    assert json.loads(Path("/app/report.json").read_text())["north"] == 1\n'),
    },
    want: ['output-already-in-image warning 7'] },
  // trivial-assertion: an advisory test passes by design
  { name: 'an advisory test ending in `assert True` is a note', base: 'clean-harbor', rules: ['trivial-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_totals():\n    assert json.loads(Path("/app/totals.json").read_text()) == {"north": 12.5}\n\n\ndef test_atomic_write_advisory():\n    src = Path("/app/main.go").read_text()\n    if "Rename" not in src:\n        print("Advisory: atomic rename recommended but not required")\n    assert True\n') },
    want: ['trivial-assertion info 18'] },
  // malformed-data-file: Python's json reads NaN
  { name: 'JSON with NaN / Infinity parses in Python: not malformed; a real syntax error still is', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/expected.json': '{\n  "width": NaN,\n  "peak": Infinity,\n  "low": -Infinity\n}\n', 'tests/summary.json': '{"a": 1,,}\n',
      'tests/test_outputs.py': PYT('def test_summary():\n    assert json.loads(Path("/tests/summary.json").read_text()) == json.loads(Path("/tests/expected.json").read_text())\n') },
    want: ['malformed-data-file error 1'] },
  // pytest-collection-hijack: a separate verifier container, and the line that runs pytest
  { name: 'separate verifier container: no conftest planting is possible', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'task.toml': TOML_SEPARATE, 'tests/test.sh': SH('pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA') },
    want: [] },
  { name: 'a command continued over lines is reported where pytest runs', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'tests/test.sh': SH('uvx \\\n  --with pytest==8.4.1 \\\n  --with pytest-json-ctrf==0.3.5 \\\n  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA') },
    want: ['pytest-collection-hijack warning 6'] },
  // hardcoded-host-path: behind an exists() check
  { name: 'an author path used only behind .exists() is harmless; one opened directly is not', base: 'clean-harbor', rules: ['hardcoded-host-path'],
    files: { 'tests/test_outputs.py': PYT('def test_paths():\n    repo = Path("/home/alice/tasks/mytask/tests/test_outputs.py")\n    if repo.exists():\n        repo.chmod(0o700)\n    data = open("/home/alice/data/truth.json").read()\n    assert data\n') },
    want: ['hardcoded-host-path warning 14'] },
  // missing-test-fixture: one of several candidates
  { name: 'a candidate path beside one the task ships is not missing; a list of all-missing inputs is', base: 'clean-harbor', rules: ['missing-test-fixture'],
    files: {
      'tests/data/ground_truth.json': '{}\n',
      'tests/test_outputs.py': PYT('HELDOUTS = [\n    "/tests/data/heldout_1.bin",\n]\n\n\ndef truth():\n    for base in [\n        "/tests/data/ground_truth_v2.json",\n        "/tests/data/ground_truth.json",\n    ]:\n        if os.path.exists(base):\n            return json.load(open(base))\n\n\n@pytest.mark.parametrize("p", HELDOUTS)\ndef test_heldout(p):\n    assert Path(p).stat().st_size > 0 and truth() is not None\n'),
    },
    want: ['missing-test-fixture error 11'] },
  // self-reported-result: a dict the tests compute themselves
  { name: 'metrics computed by the tests\' own cost model are not self-reported', base: 'clean-harbor', rules: ['self-reported-result'],
    files: { 'tests/test_outputs.py': PYT('class CostModel:\n    def plan_metrics(self, plan):\n        return {"latency_ms": sum(b["tokens"] for b in plan) * 0.1}\n\n\ndef _plan_metrics(plan_path):\n    plan = [json.loads(line) for line in open(plan_path)]\n    return CostModel().plan_metrics(plan)\n\n\ndef test_latency():\n    m = _plan_metrics("/app/plan.jsonl")\n    assert m["latency_ms"] <= 2000\n\n\ndef test_reported_accuracy():\n    report = json.loads(Path("/app/metrics.json").read_text())\n    assert report["accuracy"] > 0.9\n') },
    want: ['self-reported-result warning 27'] },
  // tests-copied-into-image: a build stage, task input kept under tests/
  { name: 'tests copied into a builder stage the final image leaves behind: quiet', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { 'tests/make_data.py': 'print("data")\n', 'Dockerfile': 'FROM python:3.12-slim AS builder\nWORKDIR /app\nCOPY tests/make_data.py ./\nRUN python make_data.py > data.bin\n\nFROM python:3.12-slim\nWORKDIR /app\nCOPY --from=builder /app/data.bin ./data.bin\n' },
    want: [] },
  { name: 'a project kept under tests/ that no test names, copied as the agent\'s input: quiet; the tests themselves: error', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { 'tests/pipeline/Main.scala': 'object Main\n', 'tests/pipeline/build.sbt': 'name := "p"\n', 'Dockerfile': 'FROM python:3.12-slim\nWORKDIR /app\nCOPY tests/pipeline/ /app/\nCOPY tests/test_outputs.py /app/check.py\n' },
    want: ['tests-copied-into-image warning 4'] },
  // verifier-runs-agent-writable-code: a read-only mount over the image's copy
  { name: 'tests mounted read-only over the image copy: the agent cannot edit what pytest runs', base: 'clean-tb1', rules: ['verifier-runs-agent-writable-code'],
    files: {
      'Dockerfile': 'FROM python:3.12-slim\nRUN pip install pytest==8.3.3\nWORKDIR /app\nCOPY tests /app/tests\n',
      'docker-compose.yaml': 'services:\n  client:\n    build:\n      context: .\n    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\n    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\n    command: ["sh", "-c", "sleep infinity"]\n    volumes:\n      - ./tests:/app/tests:ro\n',
      'run-tests.sh': '#!/bin/bash\ncd /app\npytest --noconftest -rA tests/test_outputs.py\n',
    },
    want: [] },
  { name: 'recall: a compose file mounting the tests into the agent container leaks them (read-only or not)', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { 'docker-compose.yaml': 'services:\n  client:\n    build:\n      context: .\n    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\n    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\n    volumes:\n      - ./tests:/app/tests:ro\n      - ./data:/app/data\n' },
    want: ['tests-copied-into-image warning 8'] },
  // weak-assertion: a quality bar is a value check
  { name: 'an accuracy threshold is the task\'s bar, not a plausibility range', base: 'clean-harbor', rules: ['weak-assertion'],
    files: { 'tests/test_outputs.py': PYT('def test_model_exists():\n    assert os.path.exists("/app/model.npz")\n\n\ndef test_accuracy():\n    acc = float(json.loads(Path("/app/eval.json").read_text())["acc"])\n    assert acc > 0.90\n') },
    want: [] },
];

describeCases('audit precision on held-out patterns: one fixture per false positive the blind reading found', CASES);
