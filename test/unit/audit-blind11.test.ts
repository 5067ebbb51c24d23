/**
 * What the eleventh blind held-out set showed (bench/accuracy/labels/blind11.json), one fixture per cause,
 * in the style of what was read (whole applications with planted bugs and their project test suites,
 * security tests with SSRF inputs, "must not raise" tests, a scorer run from the agent's workspace): each
 * false case is quiet, each true case still fires.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';

const SH = (body: string): string => `#!/bin/bash\n${body}\n`;
/** A Terminal-Bench 1 task whose image takes the whole task folder, tests included (`COPY . /app/`). */
const DOCKER_ALL = 'FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y --no-install-recommends tmux asciinema && rm -rf /var/lib/apt/lists/*\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY . /app/\n';
const TB1 = (instruction: string): Record<string, string> => ({ Dockerfile: DOCKER_ALL, 'task.yaml': `instruction: |-\n  ${instruction.split('\n').join('\n  ')}\nauthor_name: Taskwright Tests\ndifficulty: easy\ncategory: software-engineering\ntags:\n  - bugs\nparser_name: pytest\nmax_agent_timeout_sec: 360\nmax_test_timeout_sec: 60\n` });

const CASES: readonly Case[] = [
  // tests-copied-into-image: the project's own suite the agent is told to run
  { name: 'a project whose instruction has the agent run its test suite (`python -m pytest tests/` in a code block) ships that suite on purpose', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: TB1('Fix the planted bugs in /app.\n\n```bash\ncd /app\npython -m pytest tests/\n```'), want: [] },
  { name: '… "make the failing tests pass" says the same', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: TB1('Fix the bugs in /app and make all the failing tests pass.'), want: [] },
  { name: '… but an instruction that only says how grading runs (`pytest /tests/test_outputs.py`) hands over nothing: still reported', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: TB1('Fix the bugs in /app. Grading runs `pytest /tests/test_outputs.py`.'), want: ['tests-copied-into-image warning 5'] },
  // assertion-free-test: a "must not raise" contract
  { name: 'a test whose comment or docstring says the call must not raise checks by calling', base: 'clean-harbor', rules: ['assertion-free-test'],
    files: { 'tests/test_outputs.py': 'from app.cache import Cache\n\n\ndef test_remove_missing():\n    """Removing a missing key should not error."""\n    Cache().remove("missing")  # should not raise\n\n\ndef test_release_does_not_raise():\n    Cache().release()\n' },
    want: [] },
  { name: '… a test that computes and never checks is still reported', base: 'clean-harbor', rules: ['assertion-free-test'],
    files: { 'tests/test_outputs.py': 'import json\n\n\ndef test_totals():\n    """Totals are right."""\n    got = json.load(open("/app/totals.json"))\n    print(got)\n' },
    want: ['assertion-free-test warning 4'] },
  // external-grading-service: SSRF inputs
  { name: 'private and link-local addresses listed as SSRF inputs are test data, not a remote grader', base: 'clean-harbor', rules: ['external-grading-service'],
    files: { 'tests/test_outputs.py': 'from app.webhooks import is_blocked\n\n\ndef test_internal_urls_blocked():\n    for url in ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1:8080/internal", "http://52.14.7.9/hook"]:\n        assert is_blocked(url)\n' },
    want: [] },
  { name: '… a public address the tests post the work to is still one', base: 'clean-harbor', rules: ['external-grading-service'],
    files: { 'tests/test_outputs.py': 'import requests\n\n\ndef test_graded():\n    r = requests.post("http://52.14.7.9/grade", json={"answer": open("/app/out.txt").read()})\n    assert r.json()["ok"]\n' },
    want: ['external-grading-service warning 5'] },
  // verifier-runs-agent-writable-code: a scorer in the agent's workspace
  { name: 'the reward computed by a scoring script in the agent\'s workspace (`REWARD=$(python3 /app/environment/scoring.py …)`)', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('mkdir -p /logs/verifier\nOUT=$(pytest --noconftest -q /tests/test_outputs.py 2>&1)\nREWARD=$(python3 /app/environment/scoring.py --passed 3 --total 4 || echo 0.0)\necho "$REWARD" > /logs/verifier/reward.txt') },
    want: ['verifier-runs-agent-writable-code warning 4'] },
];

describeCases('audit on the eleventh blind set\'s causes: one fixture per cause', CASES);

/** The twelfth blind set's causes (bench/accuracy/labels/blind12.json): tasks run through their authors' own verifier images. */
const SEPARATE = 'version = "1.0"\n\n[verifier]\nenvironment_mode = "separate"\ntimeout_sec = 900.0\n\n[agent]\ntimeout_sec = 600.0\n\n[environment]\ndocker_image = "rl-exploits-lbp:latest"\n';
const CASES12: readonly Case[] = [
  { name: 'a verifier that hands grading to a program its image installs (`exec /usr/local/bin/verify-task`): a note, not a missing reward', base: 'clean-harbor', rules: ['no-reward-written'],
    files: { 'tests/test.sh': SH('set -euo pipefail\nexec /usr/local/bin/verify-task') }, want: ['no-reward-written info -'] },
  { name: '… a verifier that runs pytest and writes nothing is still an error', base: 'clean-harbor', rules: ['no-reward-written'],
    files: { 'tests/test.sh': SH('set -euo pipefail\npytest --noconftest -rA /tests/test_outputs.py') }, want: ['no-reward-written error 3'] },
  { name: 'a verifier image built FROM the task\'s own docker_image is not a stray local tag', base: 'clean-harbor', rules: ['verifier-image-local-base'],
    files: { 'task.toml': SEPARATE, 'tests/Dockerfile': 'FROM rl-exploits-lbp:latest\nCOPY test.sh /tests/test.sh\n' }, want: [] },
  { name: '… FROM another bare local tag still is one', base: 'clean-harbor', rules: ['verifier-image-local-base'],
    files: { 'task.toml': SEPARATE, 'tests/Dockerfile': 'FROM rl-exploits-base:latest\nCOPY test.sh /tests/test.sh\n' }, want: ['verifier-image-local-base warning 1'] },
  { name: 'a test skipped outright never runs: no assertion-free finding', base: 'clean-harbor', rules: ['assertion-free-test'],
    files: { 'tests/test_outputs.py': 'import pytest\nfrom pytest import skip\n\n\n@pytest.mark.skip(reason="flipped set only")\ndef test_edge():\n    print("edge")\n\n\ndef test_commas():\n    "Regression: commas"\n    skip("disabled until the feature is reimplemented")\n    print("commas")\n' }, want: [] },
  { name: '`xargs -0 … python -m pytest` runs pytest (the verifier\'s test run is seen through xargs)', base: 'clean-harbor', rules: ['pytest-collection-hijack'],
    files: { 'tests/test.sh': SH('cd /app\ntr "\\n" "\\0" < /tests/list.txt | xargs -0 timeout 240 python -m pytest -q\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi') },
    want: ['pytest-collection-hijack warning 3'] },
];

describeCases('audit on the twelfth blind set\'s causes: one fixture per cause', CASES12);
