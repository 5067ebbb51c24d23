/**
 * What the tenth blind held-out set showed (bench/accuracy/labels/blind10.json), one fixture per cause,
 * in the style of what was read (single-task assessment repositories: a framework checkout beside the
 * task, graders that write their own reward, recorded job folders, unresolved merges): each false case
 * is quiet, each true case still fires, and the defects the reading found that no rule saw now have one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import { describeCases, makeTask, removeTemp, type PatternCase as Case } from './audit-helpers';

const SH = (body: string): string => `#!/bin/bash\n${body}\n`;

/** A copy of a published project (manifest, licence, sources) whose own example tasks sit inside it. */
const FRAMEWORK: Record<string, string> = {
  'harbor/pyproject.toml': '[project]\nname = "harbor"\nversion = "0.1.0"\n',
  'harbor/LICENSE': 'Apache License 2.0\n',
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`harbor/src/harbor/mod${i}.py`, `VALUE = ${i}\n`])),
  'harbor/examples/tasks/hello-world/task.toml': 'version = "1.0"\n',
  'harbor/examples/tasks/hello-world/instruction.md': 'Create /app/hello.txt.\n',
};

/** A grader that scores the work and writes reward.txt itself; test.sh keeps a log and a fallback. */
const GRADER = {
  'tests/verify.py': 'from pathlib import Path\n\nscore = 1.0 if Path("/app/totals.json").exists() else 0.0\nPath("/logs/verifier/reward.txt").write_text(str(score))\n',
  'tests/test.sh': SH('set -e\npython3 /tests/verify.py 2>&1 | tee /logs/verifier/grader.log || true\nif [ ! -f /logs/verifier/reward.txt ]; then\n  echo 0 > /logs/verifier/reward.txt\nfi'),
};

const CONFLICTED = SH('mkdir -p /logs/verifier\n<<<<<<< Updated upstream\npytest --noconftest /tests/test_outputs.py\n=======\npytest --noconftest -rA /tests/test_outputs.py\n>>>>>>> Stashed changes\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi');

const CASES: readonly Case[] = [
  // nested-task-folder: a framework checkout's own example tasks
  { name: 'the example tasks of a framework checkout kept beside the task are that project\'s, not nested tasks', base: 'clean-harbor', rules: ['nested-task-folder'],
    files: FRAMEWORK, want: [] },
  { name: '… a task folder copied inside the task is still reported', base: 'clean-harbor', rules: ['nested-task-folder'],
    files: { 'extra/task.toml': 'version = "1.0"\n', 'extra/instruction.md': 'Do it.\n' }, want: ['nested-task-folder warning -'] },
  // reward-path-mismatch: extra copies beside a write the harness reads
  { name: 'extra copies of the reward ("for compatibility") beside a write to a folder found at run time decide nothing', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': SH('pytest --noconftest -rA /tests/test_outputs.py && R=1 || R=0\nDIR=$(find / -type d -name verifier -writable 2>/dev/null | head -1)\necho "$R" > "$DIR/reward.txt"\necho "$R" > reward.txt\necho "$R" > /workspace/reward.txt') },
    want: [] },
  { name: '… a reward written only to a path the harness does not read is still an error', base: 'clean-harbor', rules: ['reward-path-mismatch'],
    files: { 'tests/test.sh': SH('pytest --noconftest -rA /tests/test_outputs.py && R=1 || R=0\necho "$R" > /workspace/reward.txt') },
    want: ['reward-path-mismatch error 3'] },
  // exit-code-masking / pipeline-status-masked: the grader writes the reward itself
  { name: 'a grader that writes reward.txt itself: its masked or piped status decides nothing', base: 'clean-harbor', rules: ['exit-code-masking', 'pipeline-status-masked'],
    files: GRADER, want: [] },
  { name: '… the same masking of a pytest run whose status is the reward is still an error', base: 'clean-harbor', rules: ['exit-code-masking'],
    files: { 'tests/test.sh': SH('pytest --noconftest -rA /tests/test_outputs.py || true\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi') },
    want: ['exit-code-masking error 2'] },
  // malformed-data-file: a name two files share
  { name: 'an empty solution/oracle.json is not what the grader loads when tests/oracle.json has the same name: a note', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'solution/oracle.json': '', 'tests/oracle.json': '{"total": 3}\n', 'tests/test_outputs.py': 'import json\n\n\ndef test_total():\n    assert json.load(open("/tests/oracle.json"))["total"] == 3\n' },
    want: ['malformed-data-file info 1'] },
  // llm-artifact-in-task: a recorded Harbor job
  { name: 'a Harbor job folder (jobs/<start time>/…/agent/episode-0/debug.json) records a run: its chat is expected', base: 'clean-harbor', rules: ['llm-artifact-in-task'],
    files: { 'jobs/2026-01-03__22-30-29/trial__x/agent/episode-0/debug.json': '{"messages": [{"role": "assistant", "content": "I need to analyze the CSV first."}]}\n' }, want: [] },
  // verifier-runs-agent-writable-code: the folder is made afresh from /tests
  { name: '`npm run test` in a folder the verifier has just made from /tests runs the verifier\'s own package.json', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/package.json': '{"scripts": {"test": "vitest run"}}\n', 'tests/test.sh': SH('set -e\nmkdir -p /logs/verifier\nrm -rf /tmp/ui-tests\ncp -R /tests /tmp/ui-tests\ncd /tmp/ui-tests\nnpm run test\necho 1 > /logs/verifier/reward.txt') },
    want: [] },
  { name: '… `npm run test` in the agent\'s /app still runs what the agent\'s package.json says', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { 'tests/test.sh': SH('set -e\nmkdir -p /logs/verifier\ncd /app\nnpm run test\necho 1 > /logs/verifier/reward.txt') },
    want: ['verifier-runs-agent-writable-code warning 5'] },
  // merge-conflict-markers (new)
  { name: 'unresolved merge markers in the verifier script: an error at the first marker', base: 'clean-harbor', rules: ['merge-conflict-markers'],
    files: { 'tests/test.sh': CONFLICTED }, want: ['merge-conflict-markers error 3'] },
  { name: '… in the instruction (prose still reads): a warning', base: 'clean-harbor', rules: ['merge-conflict-markers'],
    files: { 'instruction.md': '<<<<<<< HEAD\nWrite the totals to /app/totals.json.\n=======\nWrite the totals to /app/out/totals.json.\n>>>>>>> feature\n' },
    want: ['merge-conflict-markers warning 1'] },
  { name: '… a task about resolving a conflict ships one in the agent\'s material on purpose', base: 'clean-harbor', rules: ['merge-conflict-markers'],
    files: { 'instruction.md': 'Resolve the merge conflict in `/app/calc.py` so both features work.\n', 'environment/calc.py': 'def add(a, b):\n<<<<<<< ours\n    return a + b\n=======\n    return b + a\n>>>>>>> theirs\n' },
    want: [] },
  { name: '… a conflicted compose file Harbor never reads (`.yml` beside the Dockerfile) is a warning: nothing breaks', base: 'clean-harbor', rules: ['merge-conflict-markers'],
    files: { 'environment/docker-compose.yml': 'services:\n  app:\n<<<<<<< Updated upstream\n    image: a\n=======\n    image: b\n>>>>>>> Stashed changes\n' },
    want: ['merge-conflict-markers warning 3'] },
  { name: '… a Markdown heading underline (=======) alone is no conflict', base: 'clean-harbor', rules: ['merge-conflict-markers'],
    files: { 'instruction.md': 'Totals\n=======\n\nWrite the totals to /app/totals.json.\n' }, want: [] },
  // verifier-reads-solution (new)
  { name: 'a verifier that grades /solution/cleaner.py (Harbor uploads it for the oracle only)', base: 'clean-harbor', rules: ['verifier-reads-solution'],
    files: { 'solution/cleaner.py': 'print("clean")\n', 'tests/test.sh': SH('SOLUTION_DIR="${1:-/solution}"\ncp "$SOLUTION_DIR/cleaner.py" /app/cleaner.py\npytest --noconftest -rA /tests/test_outputs.py && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt') },
    want: ['verifier-reads-solution warning 2'] },
  { name: '… a check that runs only when /solution is there, or falls back to its own copy under tests/, knows it may be absent', base: 'clean-harbor', rules: ['verifier-reads-solution'],
    files: { 'solution/solve.sh': '#!/bin/bash\necho ok\n', 'solution/oracle.patch': '', 'tests/judge/oracle.patch': '',
      'tests/test_outputs.py': 'import os\n\n\ndef test_packaging():\n    if os.path.exists("/solution/solve.sh"):\n        assert os.access("/solution/solve.sh", os.R_OK)\n',
      'tests/run_judge.py': 'from pathlib import Path\n\nORACLE = Path("/tests/judge/oracle.patch") if Path("/tests/judge/oracle.patch").exists() else Path("/solution/oracle.patch")\n' },
    want: [] },
  { name: '… the existence test may go through a variable (`SOL = "/solution/solve.sh"` … `os.path.isfile(SOL)`)', base: 'clean-harbor', rules: ['verifier-reads-solution'],
    files: { 'solution/solve.sh': '#!/bin/bash\necho ok\n', 'tests/test_outputs.py': 'import os\n\n\ndef test_hint():\n    sol = "/solution/solve.sh"\n    if os.path.isfile(sol):\n        assert "DATA_DIR" in open(sol).read()\n' },
    want: [] },
  { name: '… a web route named /solution/submit is not the solution folder', base: 'clean-harbor', rules: ['verifier-reads-solution'],
    files: { 'tests/test_outputs.py': 'import requests\n\n\ndef test_submit():\n    assert requests.post("http://localhost:8000" + "/solution/submit").status_code == 200\n' }, want: [] },
  // reward-json-not-object (new)
  { name: 'a bare number written to reward.json (Harbor validates it as {"name": number})', base: 'clean-harbor', rules: ['reward-json-not-object'],
    files: { 'tests/test.sh': SH('mkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py && R=1 || R=0\necho "$R" > /logs/verifier/reward.json\necho 1 > /logs/verifier/reward.json') },
    want: ['reward-json-not-object error 5', 'reward-json-not-object warning 4'] },
  { name: '… a bare number written to a reward.json the harness never reads (a relative fallback folder) is not this rule\'s', base: 'clean-harbor', rules: ['reward-json-not-object'],
    files: { 'tests/test.sh': SH('mkdir -p verifier\necho 1 > verifier/reward.json\necho 1 > /logs/verifier/reward.txt') }, want: [] },
  { name: '… an object, or a variable that holds one, is what Harbor reads', base: 'clean-harbor', rules: ['reward-json-not-object'],
    files: { 'tests/test.sh': SH('mkdir -p /logs/verifier\necho \'{"reward": 1}\' > /logs/verifier/reward.json\nJSON=$(python3 -c \'import json; print(json.dumps({"reward": 1.0}))\')\necho "$JSON" > /logs/verifier/reward.json') },
    want: [] },
  // solution-path-missing (new)
  { name: 'a solve.sh that runs /app/solution/solve.py, where neither Harbor nor the image puts it', base: 'clean-harbor', rules: ['solution-path-missing'],
    files: { 'solution/solve.py': 'print(1)\n', 'solution/solve.sh': SH('set -e\ncd /app\npython /app/solution/solve.py') }, want: ['solution-path-missing warning 4'] },
  { name: '… quiet when the script copies it there first, or the image ships it there', base: 'clean-harbor', rules: ['solution-path-missing'],
    files: { 'solution/solve.py': 'print(1)\n', 'solution/solve.sh': SH('set -e\ncp -r /solution /app/solution\npython /app/solution/solve.py'),
      'environment/solve.py': 'print(1)\n', 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY solve.py /opt/ref/solve.py\n' }, want: [] },
  // tests-unavailable-to-agent (new)
  { name: 'the instruction has the agent iterate with `pytest /tests/test_visible.py`, which is uploaded only for the verifier', base: 'clean-harbor', rules: ['tests-unavailable-to-agent'],
    files: { 'tests/test_visible.py': 'def test_ok():\n    assert True\n', 'instruction.md': 'Fix the scheduler in /app.\n\nIterate with `pytest /tests/test_visible.py` until it passes.\n' },
    want: ['tests-unavailable-to-agent warning 3'] },
  { name: '… saying how the work is graded (`graded by pytest /tests/test_outputs.py`) is no step for the agent', base: 'clean-harbor', rules: ['tests-unavailable-to-agent'],
    files: { 'instruction.md': 'Write the totals to /app/totals.json.\n\nYour work is graded by `pytest /tests/test_outputs.py`.\n' }, want: [] },
];

describeCases('audit on the tenth blind set\'s causes: one fixture per cause', CASES);

void describe('reward-not-written-on-failure points at the `set -e` that causes it', () => {
  void it('names the test run and, beside it, the line that turned errexit on (where the tenth set\'s readers pointed)', async () => {
    const dir = await makeTask('clean-harbor', { 'tests/test.sh': SH('set -euo pipefail\nmkdir -p /logs/verifier\npytest --noconftest -rA /tests/test_outputs.py\necho 1 > /logs/verifier/reward.txt') });
    try {
      const f = (await auditTask(await loadTask(dir), { ignoreConfigFiles: true })).find((x) => x.rule === 'reward-not-written-on-failure');
      assert.deepEqual([f?.range?.start.line, f?.related?.map((r) => [r.file, r.range?.start.line, r.message])], [3, [['tests/test.sh', 1, '`set -e` is turned on here']]]);
    } finally {
      await removeTemp(dir);
    }
  });
});
