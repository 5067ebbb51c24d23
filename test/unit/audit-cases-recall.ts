/**
 * Fixtures of the data-flow rules added for recall on real tasks (issue 11): a Terminal-Bench 1 task
 * whose verifier retrains a shipped script and scores the model with a shipped module and held-out data,
 * all in the agent's folders. Written in the style of such tasks; the unit tests edit it case by case.
 */
import type { Files, RuleCase } from './audit-cases';

export const KD_DOCKER = 'FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y tmux asciinema\nRUN pip install --no-cache-dir pytest==8.3.3 torch==2.4.1\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY deps/net.py /app/lib/net.py\nCOPY deps/fit.py /app/lib/fit.py\nCOPY deps/holdout.pt /app/data/holdout.pt\n';
export const KD_TASK = 'instruction: |-\n  The training script `/app/lib/fit.py` diverges. Fix it so that the model it saves to\n  `/app/out/model.pt` reaches a good accuracy.\nauthor_name: Taskwright Tests\ndifficulty: medium\ncategory: ml\nparser_name: pytest\nmax_agent_timeout_sec: 900\nmax_test_timeout_sec: 300\n';
export const KD_TEST = (imports: string, body: string): string => `import sys\nimport torch\n\nsys.path.append("/app/lib")\n${imports}\n\n\ndef test_accuracy():\n${body}`;
export const KD_BODY = '    split = torch.load("/app/data/holdout.pt")\n    net = Net()\n    net.load_state_dict(torch.load("/app/out/model.pt"))\n    acc = (net(split["x"]).argmax(1) == split["y"]).float().mean().item()\n    assert acc > 0.9\n';
export const KD_FILES = (extra: Files): Files => ({
  'task.yaml': KD_TASK, Dockerfile: KD_DOCKER,
  'deps/net.py': 'import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n',
  'deps/fit.py': 'import torch\nfrom net import Net\n\nnet = Net()\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nfor _ in range(10):\n    loss = net.loss()\n    loss.backward()\n    opt.step()\n',
  'deps/holdout.pt': 'not really a tensor file\n',
  'run-tests.sh': '#!/bin/bash\nif [ "$PWD" = "/" ]; then\n    exit 1\nfi\npython3 /app/lib/fit.py\npytest --noconftest $TEST_DIR/test_outputs.py -rA\n',
  'tests/test_outputs.py': KD_TEST('from net import Net', KD_BODY),
  ...extra,
});

const GOOD_COMPOSE = 'services:\n  client:\n    build:\n      dockerfile: Dockerfile\n    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}\n    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}\n';
const SEEDED_FIT = 'import torch\nfrom net import Net\n\ntorch.manual_seed(0)\nnet = Net()\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nloss = net.loss()\nloss.backward()\nopt.step()\n';

const SCHEMA = '{"region_totals": {"rows": [{"region": "string", "total": "number"}]}, "notes": "string"}\n';
export const SCHEMA_FILES = (score: string): Files => ({
  'environment/data/answer_shape.json': SCHEMA,
  'instruction.md': 'Sum `amount` per region of `/app/data/orders.csv` and write `/app/totals.json` following the shape in\n`/app/data/answer_shape.json`.\n',
  'tests/score_config.json': `{\n  "checks": [\n    {"path": "region_totals.rows[0].total", "weight": 1},\n    {"path": "${score}", "weight": 1}\n  ]\n}\n`,
});

/** Environment, oracle and verifier-image fixtures (downloads, local bases): a small web task's files. */
export const VENDOR_DOCKER = (curl: string): string => `FROM node:20-bookworm\n\nRUN mkdir -p /app/vendor && \\\n    ${curl}\n\nWORKDIR /app\n`;
export const PR_SOLVE = (fetch: string): string => `#!/bin/bash\nset -euo pipefail\ncd /app\n${fetch}\ngit apply /tmp/fix.diff\n`;
export const LOCAL_BASE_TOML = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\nenvironment_mode = "separate"\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\nbuild_timeout_sec = 600.0\n';
export const VERIFIER_DOCKER = (from: string): string => `# Verifier shares the agent's toolchain.\nFROM ${from}\n\nRUN pip install --no-cache-dir pytest==8.3.3\nCOPY test.sh test_outputs.py /tests/\n`;

/** One bad/good pair per new rule, for the table test (every static rule has a case). */
/** The Harbor template's uvx line, with extra `--with` requirements. */
const UVX_VERIFIER = (withs: string): string => `#!/bin/bash\nmkdir -p /logs/verifier\nuvx -p 3.13 -w pytest==8.4.1${withs} pytest --noconftest /tests/test_outputs.py -rA\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

export const RECALL_CASES: readonly RuleCase[] = [
  {
    rule: 'tb1-compose-without-harness-name', base: 'clean-tb1',
    bad: { 'docker-compose.yaml': 'services:\n  workbench:\n    build: .\n    command: sleep infinity\n' },
    good: { 'docker-compose.yaml': GOOD_COMPOSE },
  },
  {
    rule: 'verifier-imports-agent-module', base: 'clean-tb1',
    bad: KD_FILES({}),
    good: KD_FILES({ 'tests/test_outputs.py': KD_TEST('from fit import train_step', '    assert train_step(1.0) == 0.5\n') }),
  },
  {
    rule: 'unseeded-training-threshold', base: 'clean-tb1',
    bad: KD_FILES({}),
    good: KD_FILES({ 'deps/fit.py': SEEDED_FIT }),
  },
  {
    rule: 'scored-field-not-in-schema', base: 'clean-harbor',
    bad: SCHEMA_FILES('region_totals.rows[1].share'),
    good: SCHEMA_FILES('region_totals.rows[1].region'),
  },
  {
    rule: 'download-without-fail', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': VENDOR_DOCKER('curl -sLo /app/vendor/chart.js https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.js') },
    good: { 'environment/Dockerfile': VENDOR_DOCKER('curl -fsSLo /app/vendor/chart.js https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.js') },
  },
  {
    rule: 'unversioned-download-url', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': VENDOR_DOCKER('curl -fsSLo /app/vendor/marked.js https://unpkg.com/marked/marked.min.js') },
    good: { 'environment/Dockerfile': VENDOR_DOCKER('curl -fsSLo /app/vendor/marked.js https://unpkg.com/marked@12.0.2/marked.min.js') },
  },
  {
    rule: 'solution-fetches-fix', base: 'clean-harbor',
    bad: { 'solution/solve.sh': PR_SOLVE('curl -fsSL https://github.com/acme/widgets/pull/812.diff -o /tmp/fix.diff') },
    good: { 'solution/solve.sh': PR_SOLVE("cat > /tmp/fix.diff <<'EOF'\n--- a/x\n+++ b/x\nEOF") },
  },
  {
    rule: 'test-imports-outside-env', base: 'clean-harbor',
    bad: { 'tests/test.sh': UVX_VERIFIER(''), 'tests/test_outputs.py': 'import requests\n\n\ndef test_api():\n    assert requests.get("http://127.0.0.1:8000/health", timeout=5).status_code == 200\n' },
    good: { 'tests/test.sh': UVX_VERIFIER(' -w requests==2.32.3'), 'tests/test_outputs.py': 'import requests\n\n\ndef test_api():\n    assert requests.get("http://127.0.0.1:8000/health", timeout=5).status_code == 200\n' },
  },
  {
    rule: 'agent-user-missing', base: 'clean-harbor',
    bad: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\nuser = "agent"\n' },
    good: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\nuser = "agent"\n', 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3 && useradd -m agent\nWORKDIR /app\nCOPY data/ /app/data/\n' },
  },
  {
    rule: 'harbor-compose-without-main', base: 'clean-harbor',
    // No environment/Dockerfile for Harbor's own main, and no main here: nothing runs the agent.
    bad: { 'environment/Dockerfile': null, 'environment/gateway/Dockerfile': 'FROM python:3.12-slim-bookworm\n', 'environment/docker-compose.yaml': 'services:\n  gateway:\n    build: ./gateway\n  ledger:\n    image: postgres:16\n' },
    // Sidecars over Harbor's main (built from environment/Dockerfile): the documented overlay.
    good: { 'environment/docker-compose.yaml': 'services:\n  ledger:\n    image: postgres:16\n' },
  },
  {
    rule: 'base-image-invalid-reference', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm@sha256:<digest>\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\n' },
    good: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\n' },
  },
  {
    rule: 'test-path-unmounted', base: 'clean-harbor',
    // WORKDIR /app: a relative tests/test_outputs.py is /app/tests/…, where nothing puts it.
    bad: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\npytest --noconftest -rA tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    good: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\ncd /tests\npytest --noconftest -rA tests/../test_outputs.py test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
  },
  {
    rule: 'answer-in-instruction', base: 'clean-harbor',
    bad: { 'instruction.md': 'Summarise `/app/data/orders.csv` into `/app/totals.json`: `north` is `12.5` and `south` is `7`.\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    totals = json.load(open("/app/totals.json"))\n    assert totals["north"] == 12.5\n    assert totals["south"] == 7\n' },
    // The same tests, with an instruction that says what to compute, not its result.
    good: { 'instruction.md': 'Summarise `/app/data/orders.csv` into `/app/totals.json`: the total `amount` per `region`.\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    totals = json.load(open("/app/totals.json"))\n    assert totals["north"] == 12.5\n    assert totals["south"] == 7\n' },
  },
  {
    rule: 'docker-image-shadows-dockerfile', base: 'clean-harbor',
    bad: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\ndocker_image = "python:3.12-slim-bookworm"\n' },
    // The task's own image, built from this Dockerfile and pushed: the intended use.
    good: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\ndocker_image = "ghcr.io/acme/orders-task:1.2.0"\n' },
  },
  {
    // A bare local tag (a repository script builds it): no registry holds it, so the environment never starts elsewhere.
    rule: 'docker-image-shadows-dockerfile', variant: 'local tag', base: 'clean-harbor',
    bad: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\ndocker_image = "orders-task-env:latest"\n' },
    // The same image by its registry path: pushed, the intended use.
    good: { 'task.toml': 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\ndocker_image = "docker.io/acme/orders-task-env:1.0.0"\n' },
  },
  {
    // The environment's base is a tag a generation pipeline builds on its author's machine.
    rule: 'environment-image-local-base', base: 'clean-harbor',
    bad: { 'environment/Dockerfile': 'FROM orders-seed-base:3f2a91\nWORKDIR /app\nCOPY data/ /app/data/\n' },
    good: { 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY data/ /app/data/\n' },
  },
  {
    rule: 'verifier-image-local-base', base: 'clean-harbor',
    bad: { 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_DOCKER('orders-env') },
    good: { 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_DOCKER('python:3.12-slim-bookworm') },
  },
  {
    // A sidecar that publishes a fixed host port: the second concurrent trial cannot start.
    rule: 'concurrent-trials-collide', base: 'clean-harbor',
    bad: { 'environment/docker-compose.yaml': 'services:\n  api:\n    image: python:3.12-slim-bookworm\n    command: ["python", "-m", "http.server", "8080"]\n    ports:\n      - "8081:8080"\n' },
    // The container port alone: Docker picks a free host port for each trial.
    good: { 'environment/docker-compose.yaml': 'services:\n  api:\n    image: python:3.12-slim-bookworm\n    command: ["python", "-m", "http.server", "8080"]\n    ports:\n      - "8080"\n' },
  },
  {
    // A TB1 sidecar with a literal container_name; the client's name comes from the harness.
    rule: 'concurrent-trials-collide', variant: 'tb1 container_name', base: 'clean-tb1',
    bad: { 'docker-compose.yaml': GOOD_COMPOSE + '  db:\n    image: postgres:16.4\n    container_name: orders_db\n' },
    good: { 'docker-compose.yaml': GOOD_COMPOSE + '  db:\n    image: postgres:16.4\n' },
  },
];
