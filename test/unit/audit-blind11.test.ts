/**
 * What the eleventh blind held-out set showed (bench/accuracy/labels/blind11.json), one fixture per cause,
 * in the style of what was read (whole applications with planted bugs and their project test suites,
 * security tests with SSRF inputs, "must not raise" tests, a scorer run from the agent's workspace): each
 * false case is quiet, each true case still fires.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findingsOf as found, type PatternCase as Case } from './audit-helpers';

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

void describe('audit on the eleventh blind set\'s causes: one fixture per cause', () => {
  for (const c of CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.base, c.files, c.rules), [...c.want].sort());
    });
  }
});
