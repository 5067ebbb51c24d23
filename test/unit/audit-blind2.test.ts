/**
 * False findings the second blind held-out set met (bench/accuracy/labels/blind2.json), one fixture
 * per cause, written here in the style of what was read: each asserts the absence on the false case
 * and that the true case still fires.
 */
import { describeCases, type PatternCase as Case, verifierScript as SH } from './audit-helpers';

const MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: api-config\ndata:\n  MODE: "ha"\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 2\n';
const DF = (tail: string): string => `FROM python:3.12-slim-bookworm\n\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY data/ /app/data/\n${tail}`;
const MULTI = 'FROM golang:1.24-bookworm AS build\nWORKDIR /src\nRUN go mod init example.com/x\n\nFROM python:3.12-slim-bookworm\nRUN useradd -m svc\n';
const GATED = 'if pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
const PYT = (body: string): string => `import os\nimport subprocess\n\n${body}\n`;

const CASES: readonly Case[] = [
  // malformed-data-file
  { name: 'a multi-document YAML stream (Kubernetes manifests) is valid', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'solution/k8s/20-api.yaml': MANIFEST, 'tests/fixtures/k8s/controllers.yaml': `---\n${MANIFEST}` },
    want: [] },
  { name: 'a YAML stream with one bad document is still an error, at the bad line', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'solution/k8s/20-api.yaml': `${MANIFEST}---\nkind: Service\n  spec: [\n`, 'solution/solve.sh': '#!/bin/bash\nkubectl apply -f /solution/k8s/\n' },
    want: ['malformed-data-file error 15'] },
  { name: 'a deliberately malformed fixture a test feeds to the code is not a defect', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/fixtures/malformed/broken.json': '{"records": [{"id": 1, "email": "a@b.c"}, {"id": 2,\n',
      'tests/test_outputs.py': PYT('FIX = "/tests/fixtures/malformed"\n\ndef test_bad_record_isolated():\n    r = subprocess.run(["python3", "/app/scan.py", FIX], capture_output=True, text=True)\n    assert "quarantined" in r.stdout\n') },
    want: [] },
  { name: 'a malformed-named file no test uses is a note', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/data/invalid.json': '{"a": 1,,}\n' },
    want: ['malformed-data-file info 1'] },
  { name: 'a broken JSON file with an ordinary name is still an error', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/expected.json': '{"total": 12,}\n', 'tests/test_outputs.py': PYT('import json\n\ndef test_total():\n    assert json.load(open("/app/out.json")) == json.load(open("/tests/expected.json"))\n') },
    want: ['malformed-data-file error 1'] },
  { name: '… the same broken file that nothing names (no script, build step or instruction) is a note', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/expected.json': '{"total": 12,}\n' },
    want: ['malformed-data-file info 1'] },
  // copy-source-missing
  { name: 'COPY --from=stage beside another flag, ADD --from and --from=image:tag are not context paths', base: 'clean-harbor', rules: ['copy-source-missing'],
    files: { 'environment/Dockerfile': `${MULTI}COPY --from=build --chown=svc:svc /src/ /app/svc/\nCOPY --chown=svc:svc --from=build /src/go.mod /app/go.mod\nADD --from=build /src/go.mod /opt/go.mod\nCOPY --from=ghcr.io/astral-sh/uv:0.5.11 /uv /usr/local/bin/uv\n` },
    want: [] },
  { name: 'a COPY from the context beside --chown is still checked', base: 'clean-harbor', rules: ['copy-source-missing'],
    files: { 'environment/Dockerfile': `${MULTI}COPY --chown=svc:svc config/ /app/config/\n` },
    want: ['copy-source-missing error 7'] },
  // verifier-runs-agent-writable-code
  { name: '`python3 -c "import pytest"` and `bash -c` run inline code, not a script in the agent\'s folder', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\npython3 -c "import pytest" >/dev/null 2>&1 || pip install pytest==8.3.3\npython3 -B -c "import sys; print(sys.version)"\nbash -ec "echo checking"\npytest --noconftest -rA /tests/test_outputs.py') },
    want: [] },
  { name: 'a program the verifier builds into /tmp right before running it is fresh', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\ng++ -std=c++17 -Wall /tests/test_outputs.cpp -o /tmp/list_verifier\n/tmp/list_verifier'), 'tests/test_outputs.cpp': 'int main() { return 0; }\n' },
    want: [] },
  { name: 'a checker in /tmp the verifier did not write is still reported; python3 with a script path too', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('cd /app\n/tmp/list_verifier\npython3 -u check_output.py') },
    want: ['verifier-runs-agent-writable-code warning 4', 'verifier-runs-agent-writable-code warning 5'] },
  // answer-in-image
  { name: 'an app secret the tests only set up as configuration is no answer', base: 'clean-harbor', rules: ['answer-in-image'],
    files: { 'environment/Dockerfile': DF('ENV DJANGO_SETTINGS_MODULE=app.settings \\\n    APP_SECRET_KEY=test-secret-key-bench\n'),
      'tests/test.sh': SH('export APP_SECRET_KEY="${APP_SECRET_KEY:-test-secret-key-bench}"\npytest --noconftest -rA /tests/test_outputs.py'),
      'tests/test_outputs.py': PYT('os.environ.setdefault("APP_SECRET_KEY", "test-secret-key-bench")\n\ndef test_counts():\n    assert subprocess.run(["python3", "/app/manage.py", "check"]).returncode == 0\n') },
    want: [] },
  { name: 'a flag in the image environment that a test compares the output with is an answer', base: 'clean-harbor', rules: ['answer-in-image'],
    files: { 'environment/Dockerfile': DF('ENV CTF_FLAG=flag{r3ad_th3_env}\n'),
      'tests/test_outputs.py': PYT('EXPECTED = os.environ.get("CTF_FLAG")\n\ndef test_flag():\n    assert open("/app/flag.txt").read().strip() == EXPECTED\n') },
    want: ['answer-in-image info 7'] },
  { name: 'a shell verifier comparing with the environment secret is an answer too', base: 'clean-harbor', rules: ['answer-in-image'],
    files: { 'environment/Dockerfile': DF('ENV VAULT_SECRET=opensesame42\n'),
      'tests/test.sh': SH('[ "$(cat /app/out.txt)" = "$VAULT_SECRET" ]') },
    want: ['answer-in-image info 7'] },
  // reward-not-written-on-failure: installs under `set -e` before the reward write (recall)
  { name: 'an unguarded install under set -e before the reward write leaves no reward when it fails', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': `#!/bin/bash\nset -euo pipefail\nmkdir -p /logs/verifier\npip install -q pytest==8.3.3 2>/dev/null\nnpx playwright install chromium\n${GATED}` },
    want: ['reward-not-written-on-failure warning 4'] },
  { name: 'a fallback 0 written before the install keeps the reward', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': `#!/bin/bash\nset -e\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\napt-get install -y curl\n${GATED}` },
    want: [] },
  { name: 'when the unguarded test run is reported, the install before it is not repeated', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': '#!/bin/bash\nset -euo pipefail\nmkdir -p /logs/verifier\npip install -q uv==0.9.5\npytest --noconftest -rA /tests/test_outputs.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    want: ['reward-not-written-on-failure warning 5'] },
  { name: 'a guarded install under set -e keeps the reward', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': `#!/bin/bash\nset -e\npip install pytest==8.3.3 || true\n${GATED}` },
    want: [] },
  { name: 'without set -e a failed install goes on to the reward', base: 'clean-harbor', rules: ['reward-not-written-on-failure'],
    files: { 'tests/test.sh': `#!/bin/bash\npip install pytest==8.3.3\n${GATED}` },
    want: [] },
  // reward-path-mismatch: a relative reward path (recall)
  { name: 'a relative reward.txt lands in the working folder, not /logs/verifier', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': '#!/bin/bash\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > reward.txt; else echo 0 > ./reward.txt; fi\n' },
    want: ['reward-path-mismatch error 2', 'reward-path-mismatch error 2'] },
  { name: 'a relative reward.txt after `cd /logs/verifier` is the harness\'s file', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\ncd /logs/verifier\nif pytest --noconftest -rA /tests/test_outputs.py; then echo 1 > reward.txt; else echo 0 > reward.txt; fi\n' },
    want: [] },
];

describeCases('audit precision (blind2 false findings): one fixture per cause', CASES);
