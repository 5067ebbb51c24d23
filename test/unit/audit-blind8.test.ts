/**
 * False findings the eighth blind held-out set met (bench/accuracy/labels/blind8.json), one fixture per
 * cause, in the style of what was read (Terminal-Bench 1 original tasks): the false case is quiet, the
 * true case still fires.
 */
import { describeCases, type PatternCase as Case } from './audit-helpers';

const TB1_DOCKER = (extra: string): string => `FROM python:3.12-slim-bookworm\n\nRUN apt-get update && apt-get install -y --no-install-recommends tmux asciinema && rm -rf /var/lib/apt/lists/*\nRUN pip install --no-cache-dir pytest==8.3.3\n\nWORKDIR /app\nCOPY words.txt /app/words.txt\n${extra}`;
const RUN_TESTS = (pytest: string): string => `#!/bin/bash\n\nif [ "$PWD" = "/" ]; then\n    echo "Error: No working directory set."\n    exit 1\nfi\n\n${pytest}\n`;

/** A TB1 task whose tests/ holds a data file the Dockerfile also copies for the agent, and the test reads. */
const WEIGHTS = {
  'tests/weights.json': '{"pear": 2}\n',
  'Dockerfile': TB1_DOCKER('COPY tests/weights.json /app/weights.json\n'),
  'tests/test_outputs.py': 'import json\nfrom pathlib import Path\n\n\ndef test_weighted():\n    w = json.loads(Path("/tests/weights.json").read_text())\n    assert Path("/app/counts.txt").read_text().splitlines()[0] == f"{3 * w[\'pear\']} pear"\n',
};
const TB1_TASK = (sentence: string): string => `instruction: |-\n  \`/app/words.txt\` holds one word per line. ${sentence} Write \`/app/counts.txt\`.\nauthor_name: Taskwright Tests\ndifficulty: easy\ncategory: text-processing\nparser_name: pytest\nmax_agent_timeout_sec: 360\nmax_test_timeout_sec: 60\n`;

const CASES: readonly Case[] = [
  { name: 'a heredoc COPY writes a file from the Dockerfile: nothing of the task (the solution) is copied', base: 'clean-tb1', rules: ['solution-copied-into-image'],
    files: { 'Dockerfile': TB1_DOCKER('COPY <<EOT /app/pipeline.py\nimport sys\nprint(sys.argv)\nEOT\n') }, want: [] },
  { name: '… while `COPY . /app` still ships the solution', base: 'clean-tb1', rules: ['solution-copied-into-image'],
    files: { 'Dockerfile': TB1_DOCKER('COPY . /app\n') }, want: ['solution-copied-into-image error 8'] },
  { name: '`-r fEsxXpP` (flags as the next word) lists passed tests: no -rA trap', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': RUN_TESTS('pytest --noconftest $TEST_DIR/test_outputs.py -r fEsxXpP') }, want: [] },
  { name: '… and `-r fE` does not', base: 'clean-tb1', rules: ['tb1-missing-ra'],
    files: { 'run-tests.sh': RUN_TESTS('pytest --noconftest $TEST_DIR/test_outputs.py -r fE') }, want: ['tb1-missing-ra error 8'] },
  { name: 'a run-tests.sh that writes its test patch itself needs no tests/ folder', base: 'clean-tb1', rules: ['missing-tests'],
    files: { 'tests': null, 'run-tests.sh': RUN_TESTS("cat > /tmp/test.patch <<'EOF'\n--- a/t.py\n+++ b/t.py\nEOF\ngit apply /tmp/test.patch\npytest -rA t.py") }, want: [] },
  { name: '… one that runs tests it never writes does', base: 'clean-tb1', rules: ['missing-tests'],
    files: { 'tests': null }, want: ['missing-tests warning -'] },
  { name: 'a listing compared with a one-element list has no order to get wrong', base: 'clean-harbor', rules: ['unordered-listing-comparison'],
    files: { 'tests/test_outputs.py': 'import os\n\n\ndef test_only_main():\n    assert os.listdir("/app/out") == ["main.rs"]\n' }, want: [] },
  { name: '… two elements do', base: 'clean-harbor', rules: ['unordered-listing-comparison'],
    files: { 'tests/test_outputs.py': 'import os\n\n\ndef test_only_main():\n    assert os.listdir("/app/out") == ["main.rs", "lib.rs"]\n' }, want: ['unordered-listing-comparison warning 5'] },
  { name: 'a file of tests/ the instruction names (input the agent is sent to) is not a leaked check', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { ...WEIGHTS, 'task.yaml': TB1_TASK('Weight each word by the factor in `/app/weights.json`.') }, want: [] },
  { name: '… the same copy when the instruction never mentions it is', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { ...WEIGHTS, 'task.yaml': TB1_TASK('Weight each word by its factor.') }, want: ['tests-copied-into-image warning 8'] },
  { name: 'a folder of tests/ copied where the instruction sends the agent (`/app/checks`) is handed over on purpose', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { 'Dockerfile': TB1_DOCKER('COPY tests/ /app/checks/\n'), 'task.yaml': TB1_TASK('You may run the checks in `/app/checks` while you work.') }, want: [] },
  { name: '… and reported when the instruction never names where it lands', base: 'clean-tb1', rules: ['tests-copied-into-image'],
    files: { 'Dockerfile': TB1_DOCKER('COPY tests/ /app/checks/\n'), 'task.yaml': TB1_TASK('Count the words.') }, want: ['tests-copied-into-image warning 8'] },
];

describeCases('audit precision (blind8 false findings): one fixture per cause', CASES);
