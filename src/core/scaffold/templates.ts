import type { Difficulty, TaskFormat } from '../model/task';

/** What a new task is made from; everything but format and id has a default. */
export interface ScaffoldOptions {
  readonly format: TaskFormat;
  readonly id: string;
  readonly difficulty?: Difficulty;
  readonly category?: string;
  readonly authorName?: string;
  readonly authorEmail?: string;
}

export interface ScaffoldFile {
  /** Relative to the task folder, POSIX separators. */
  readonly path: string;
  readonly content: string;
  readonly executable: boolean;
}

/*
 * The starter task: a small behavioural task that shows the shape a good task has. The tests run
 * what the agent wrote on inputs the agent never sees and compare exact outputs (no existence-only
 * checks), they need no network (pytest comes with the image), the verifier keeps pytest's status,
 * and the reference solution passes them while an untouched environment fails them.
 */

// The verifier runs the image's interpreter by absolute path in isolated mode (-I: no working directory
// on sys.path, so no planted `pytest.py`; no user site-packages, usercustomize or .pth; no PYTHON*
// variables), so nothing the agent puts on PATH or in site-packages runs instead, and it ignores any
// conftest.py or pytest.ini outside the tests.
const PYTEST = '/usr/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider';
const PYTEST_WHY = '/usr/bin/python3 -I, --noconftest and -c /dev/null: no pytest, conftest.py or pytest.ini the agent plants can steer the run.';

const INSTRUCTION = [
  'Write a Python script `/app/wordcount.py` that reads text from standard input and prints the',
  'number of whitespace-separated words in it, as a single integer on one line.',
  '',
  'Empty input has 0 words. Spaces, tabs and newlines all separate words.',
].join('\n');

const DOCKERFILE = [
  'FROM debian:bookworm-slim',
  '',
  '# The image provides python3 and pytest; the agent works in /app.',
  'WORKDIR /app',
  '',
].join('\n');

const TEST_OUTPUTS = [
  '"""Checks /app/wordcount.py by running it on inputs the agent never saw."""',
  'import subprocess',
  '',
  'import pytest',
  '',
  'SCRIPT = "/app/wordcount.py"',
  '',
  'CASES = [',
  '    ("", 0),',
  '    ("one", 1),',
  '    ("two words\\n", 2),',
  '    ("  spaced   out\\ttabs\\nand  lines  ", 5),',
  '    ("a b c d e f g h i j k l m n o p", 16),',
  ']',
  '',
  '',
  '@pytest.mark.parametrize("text, expected", CASES)',
  'def test_prints_the_word_count(text, expected):',
  '    result = subprocess.run(["python3", SCRIPT], input=text, capture_output=True, text=True)',
  '    assert result.returncode == 0, result.stderr',
  '    assert result.stdout.strip() == str(expected)',
  '',
].join('\n');

const SOLUTION_BODY = [
  'cat > /app/wordcount.py <<\'PY\'',
  'import sys',
  '',
  'print(len(sys.stdin.read().split()))',
  'PY',
].join('\n');

function tb1Files(o: ScaffoldOptions): ScaffoldFile[] {
  const author = [
    o.authorName ? `author_name: ${yamlString(o.authorName)}` : undefined,
    o.authorEmail ? `author_email: ${yamlString(o.authorEmail)}` : undefined,
  ].filter((l): l is string => l !== undefined);
  const taskYaml = [
    'instruction: |-',
    ...INSTRUCTION.split('\n').map((l) => (l ? `  ${l}` : '')),
    ...author,
    `difficulty: ${o.difficulty ?? 'easy'}`,
    `category: ${yamlString(o.category ?? 'software_engineering')}`,
    'tags:',
    '  - python',
    'parser_name: pytest',
    'max_agent_timeout_sec: 360',
    'max_test_timeout_sec: 60',
    'run_tests_in_same_shell: false',
    '',
  ].join('\n');
  const compose = [
    'services:',
    '  client:',
    '    build:',
    '      dockerfile: Dockerfile',
    '    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}',
    '    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}',
    '    command: ["sh", "-c", "sleep infinity"]',
    '    environment:',
    '      - TEST_DIR=${T_BENCH_TEST_DIR}',
    '    volumes:',
    '      - ${T_BENCH_TASK_LOGS_PATH}:${T_BENCH_CONTAINER_LOGS_PATH}',
    '      - ${T_BENCH_TASK_AGENT_LOGS_PATH}:${T_BENCH_CONTAINER_AGENT_LOGS_PATH}',
    '',
  ].join('\n');
  const runTests = [
    '#!/bin/bash',
    '# The harness copies tests/ to $TEST_DIR and reads the verdict from pytest\'s -rA summary.',
    `# ${PYTEST_WHY}`,
    'set -u',
    '',
    'tests="${TEST_DIR:-/tests}"',
    `${PYTEST} --rootdir="$tests" -rA "$tests/test_outputs.py"`,
    '',
  ].join('\n');
  return [
    { path: 'task.yaml', content: taskYaml, executable: false },
    { path: 'Dockerfile', content: DOCKERFILE, executable: false },
    { path: 'docker-compose.yaml', content: compose, executable: false },
    { path: 'run-tests.sh', content: runTests, executable: true },
    { path: 'solution.sh', content: `#!/bin/bash\nset -euo pipefail\n\n${SOLUTION_BODY}\n`, executable: true },
    { path: 'tests/test_outputs.py', content: TEST_OUTPUTS, executable: false },
  ];
}

function harborFiles(o: ScaffoldOptions): ScaffoldFile[] {
  const taskToml = [
    'version = "1.0"',
    '',
    '[metadata]',
    ...(o.authorName ? [`author_name = ${tomlString(o.authorName)}`] : []),
    ...(o.authorEmail ? [`author_email = ${tomlString(o.authorEmail)}`] : []),
    `difficulty = "${o.difficulty ?? 'easy'}"`,
    `category = ${tomlString(o.category ?? 'software_engineering')}`,
    'tags = ["python"]',
    '',
    '[verifier]',
    'timeout_sec = 120.0',
    '',
    '[agent]',
    'timeout_sec = 600.0',
    '',
    '[environment]',
    'build_timeout_sec = 600.0',
    'cpus = 1',
    'memory_mb = 2048',
    'storage_mb = 10240',
    '',
  ].join('\n');
  const testSh = [
    '#!/bin/bash',
    '# The reward is pytest\'s verdict: 1 when every test passes, 0 otherwise.',
    `# ${PYTEST_WHY}`,
    'mkdir -p /logs/verifier',
    '',
    `if ${PYTEST} --rootdir=/tests -rA /tests/test_outputs.py; then`,
    '  echo 1 > /logs/verifier/reward.txt',
    'else',
    '  echo 0 > /logs/verifier/reward.txt',
    'fi',
    '',
  ].join('\n');
  return [
    { path: 'task.toml', content: taskToml, executable: false },
    { path: 'instruction.md', content: `${INSTRUCTION}\n`, executable: false },
    { path: 'environment/Dockerfile', content: DOCKERFILE, executable: false },
    { path: 'solution/solve.sh', content: `#!/bin/bash\nset -euo pipefail\n\n${SOLUTION_BODY}\n`, executable: true },
    { path: 'tests/test.sh', content: testSh, executable: true },
    { path: 'tests/test_outputs.py', content: TEST_OUTPUTS, executable: false },
  ];
}

/** Every file of a new, complete task in the given format. Pure: writes nothing. */
export function scaffoldFiles(options: ScaffoldOptions): ScaffoldFile[] {
  return options.format === 'tb1' ? tb1Files(options) : harborFiles(options);
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

function tomlString(s: string): string {
  return JSON.stringify(s);
}
