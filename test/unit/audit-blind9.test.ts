/**
 * False findings the ninth blind held-out set met (bench/accuracy/labels/blind9.json), one fixture per
 * cause, in the style of what was read (science-integration tasks that keep reference sources and
 * recorded agent runs beside the task): the false case is quiet, the true case still fires.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';
import { LOCAL_BASE_TOML } from './audit-cases-recall';

const LAUNCH = '{\n  // Debug the grader.\n  "version": "0.2.0",\n  "configurations": [\n    { "name": "grader", "type": "debugpy", "request": "launch", "program": "grader.py" },\n  ],\n}\n';
const TRAJECTORY = '{\n  "schema": "atif",\n  "steps": [\n    { "role": "assistant", "content": "I\'ll help you port the estimator. Let me read the module first." }\n  ]\n}\n';

/** A task whose agent has a helper at /opt/task-tools, and whose tests run the verifier's own copy. */
const TOOL_COPY = {
  'instruction.md': 'Port the estimator into `/app/src/estimate.py`. `/opt/task-tools/materialize.py` shows how your module is loaded.\n',
  'tests/test_outputs.py': 'import subprocess\n\n\ndef test_loads():\n    out = subprocess.run(["python3", "/opt/verifier-tools/materialize.py", "/app/src"], capture_output=True, text=True)\n    assert out.returncode == 0 and out.stdout.strip() == "ok"\n',
  'tests/materialize.py': 'print("ok")\n',
};
const VERIFIER_IMAGE = 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nCOPY materialize.py /opt/verifier-tools/materialize.py\n';

/** A verifier that runs a script whose inline metadata (PEP 723) `uv run` resolves at grading time. */
const INLINE = (deps: string): Record<string, string> => ({
  'tests/test.sh': '#!/bin/bash\nset -euo pipefail\nmkdir -p /logs/verifier\nTESTS_DIR="${HARBOR_TESTS_DIR:-/tests}"\nuv run "$TESTS_DIR/run_check.py" /app > /logs/verifier/reward.txt\n',
  'tests/run_check.py': `# /// script\n# dependencies = [\n${deps}# ]\n# ///\n"""Score the app."""\nimport sys\n\nprint(1 if sys.argv[1] else 0)\n`,
});

/** A generated task whose build context keeps copies of its solution and tests (`COPY . /task`). */
const COPIES = {
  'environment/Dockerfile': 'FROM rust:1.83-slim-bookworm\n\nWORKDIR /task\nRUN cargo init --bin --name solution\n\nCOPY . /task\n',
  'environment/solution/solution.rs': 'fn main() { println!("42"); }\n',
  'solution/solution.rs': 'fn main() { println!("42"); }\n',
  'environment/tests/main.rs': 'fn main() { assert_eq!(2 + 2, 4); }\n',
  'tests/main.rs': 'fn main() { assert_eq!(2 + 2, 4); }\n',
};

const CASES: readonly Case[] = [
  { name: 'a copy of the reference solution kept in the build context and shipped by `COPY .` is reported', base: 'clean-harbor', rules: ['solution-copied-into-image'],
    files: COPIES, want: ['solution-copied-into-image error 6'] },
  { name: '… an empty file there is the slot the agent fills, not a copy (post-fix sample)', base: 'clean-harbor', rules: ['solution-copied-into-image'],
    files: { ...COPIES, 'environment/solution/solution.rs': '' }, want: [] },
  { name: '… a context folder named solution that holds none of the solution\'s files is not', base: 'clean-harbor', rules: ['solution-copied-into-image'],
    files: { ...COPIES, 'environment/solution/solution.rs': null, 'environment/solution/README.md': 'Write your answer here.\n' }, want: [] },
  { name: 'the verifier copying in the image\'s copy of the tests (agent-writable) before building is reported', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { ...COPIES, 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\n( cp /task/tests/main.rs /task/src/main.rs && cargo test ) 2>&1\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    want: ['verifier-runs-agent-writable-code warning 3'] },
  { name: '… copying in the harness\'s /tests mount is not', base: 'clean-harbor', rules: ['verifier-runs-agent-writable-code'],
    files: { ...COPIES, 'tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\n( cp /tests/main.rs /task/src/main.rs && cargo test ) 2>&1\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    want: [] },
  { name: 'a range in a verifier script\'s inline metadata is resolved at test time: reported at that dependency', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: INLINE('#   "rewardkit==0.1.7",\n#   "tomli-w>=1.2.0",\n'), want: ['unpinned-test-dependency warning 4'] },
  { name: '… exact pins are not', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: INLINE('#   "rewardkit==0.1.7",\n#   "tomli-w==1.2.0",\n'), want: [] },
  { name: '… nor ranges locked beside the script (uv lock --script)', base: 'clean-harbor', rules: ['unpinned-test-dependency'],
    files: { ...INLINE('#   "tomli-w>=1.2.0",\n'), 'tests/run_check.py.lock': 'version = 1\n' }, want: [] },
  { name: 'a separate verifier whose own image makes the tested path reads its own copy: no disagreement', base: 'clean-harbor', rules: ['test-path-disagrees'],
    files: { ...TOOL_COPY, 'task.toml': LOCAL_BASE_TOML, 'tests/Dockerfile': VERIFIER_IMAGE }, want: [] },
  { name: '… the same tests in the agent\'s container read a path nothing makes: reported', base: 'clean-harbor', rules: ['test-path-disagrees'],
    files: TOOL_COPY, want: ['test-path-disagrees warning 5'] },
  { name: 'a VS Code launch.json with comments and a trailing comma is JSON with comments, as VS Code reads it', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/.vscode/launch.json': LAUNCH }, want: [] },
  { name: '… the same text as an ordinary JSON file of the tests does not parse: an error', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/cases.json': LAUNCH, 'tests/test_outputs.py': 'import json\n\ndef test_cases():\n    assert json.load(open("/tests/cases.json"))\n' }, want: ['malformed-data-file error 2'] },
  { name: '… and a JSON-with-comments name with a real syntax error is still reported (a note: nothing of the task reads an editor setting)', base: 'clean-harbor', rules: ['malformed-data-file'],
    files: { 'tests/.vscode/settings.json': '{\n  "python.testing.pytestEnabled": true\n  "x": 1\n}\n' }, want: ['malformed-data-file info 3'] },
  { name: 'a recorded agent trajectory kept beside the task is chat by nature, not a generator\'s leftover', base: 'clean-harbor', rules: ['llm-artifact-in-task'],
    files: { 'trajectories/model-a/trial-1/trajectory.atif.json': TRAJECTORY }, want: [] },
  { name: '… the same chat inside a file of the tests is reported', base: 'clean-harbor', rules: ['llm-artifact-in-task'],
    files: { 'tests/cases.json': TRAJECTORY }, want: ['llm-artifact-in-task warning 4'] },
];

describeCases('audit precision (blind9 false findings): one fixture per cause', CASES);
