import { STATIC_RULES } from '../audit/index';
import type { TaskFormat } from '../model/task';
import { REQUIRED_FILES } from './layout';
import type { GenDifficulty } from './types';

/** The base image generated tasks build on: a real public image (scripts/base-images.sh builds an offline stand-in laid out like it). */
export const BASE_IMAGE = 'python:3.11-slim';
/** The pytest version generated Dockerfiles pin (on PyPI for a stock runner; already installed in the offline stand-in). */
export const PYTEST_PIN = '7.2.1';
/**
 * How generated verifiers start pytest: the base image's interpreter by absolute path, in isolated mode,
 * so a `python3`/`pytest` the agent puts early on PATH, or a usercustomize/.pth in its site-packages,
 * never runs instead (validate's path-trojan and python-startup probes check exactly this).
 */
export const VERIFIER_PYTEST = '/usr/local/bin/python3 -I -m pytest --noconftest -c /dev/null -p no:cacheprovider';

/** What the REAL public images hold: a task that relies on more fails on a stock Harbor or Terminal-Bench runner. */
const BASE_FACTS = [
  `Base image: \`FROM ${BASE_IMAGE}\` (Debian 12 bookworm with Python 3.11, pip, bash, coreutils, grep, sed, findutils, tar, gzip). It does NOT contain pytest or any other Python package.`,
  `The Dockerfile installs what the tests need at build time, pinned: \`RUN pip install --no-cache-dir pytest==${PYTEST_PIN}\` (exactly this version, nothing else from PyPI). Never install at test time.`,
  'Do not use `debian:bookworm-slim` for tasks with Python tests: the real image has no python3 and no pytest. No apt-get, curl, wget, git clone or npm: the build here has no network beyond that one pinned pytest.',
  'Tests and solutions use the Python 3.11 standard library, pytest and the tools listed above only.',
  'Containers run unprivileged, network mode none, with CPU, memory and process limits; keep every workload small (seconds, a few MB).',
];

const CONTRACT: Readonly<Record<TaskFormat, readonly string[]>> = {
  harbor: [
    'Layout (Harbor / Terminal-Bench 2): `task.toml`, `instruction.md`, `environment/Dockerfile` (+ data files it COPYs, the build context is `environment/`), `solution/solve.sh`, `tests/test.sh`, `tests/test_outputs.py` (+ fixtures the tests read).',
    '`task.toml`: `version = "1.0"`; `[metadata]` author_name, author_email, difficulty, category, tags; `[verifier] timeout_sec`; `[agent] timeout_sec`; `[environment] build_timeout_sec, cpus = 1, memory_mb = 1024, storage_mb = 2048`.',
    'The harness copies `solution/` to `/solution` only for the reference run, and `tests/` to `/tests` only after the agent finished; it runs `bash /tests/test.sh` and reads the reward from `/logs/verifier/reward.txt`.',
    '`tests/test.sh` must be exactly this shape (reward only from pytest\'s exit status):\n```bash\n#!/bin/bash\n\nmkdir -p /logs/verifier\n\n' + VERIFIER_PYTEST + ' --rootdir=/tests /tests/test_outputs.py -rA\n\nif [ $? -eq 0 ]; then\n  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n```',
    'Tests read their own fixtures relative to the test file (`Path(__file__).with_name("x.csv")`), never from the agent-writable image.',
  ],
  tb1: [
    'Layout (Terminal-Bench 1): `task.yaml`, `Dockerfile` (build context is the task folder), `run-tests.sh`, `solution.sh`, `tests/test_outputs.py` (+ fixtures in `tests/`), data files the Dockerfile COPYs by name. (`docker-compose.yaml` is added for you.)',
    '`task.yaml`: `instruction: |-` (the whole instruction), author_name, author_email, difficulty, category, tags, `parser_name: pytest`, `max_agent_timeout_sec`, `max_test_timeout_sec`, `run_tests_in_same_shell: false`.',
    'The harness copies `tests/` and `run-tests.sh` to `$TEST_DIR` (/tests) after the agent and parses pytest\'s `-rA` summary: every test must PASS.',
    '`run-tests.sh` must be exactly this shape:\n```bash\n#!/bin/bash\n\nif [ "$PWD" = "/" ]; then\n    echo "Error: No working directory set. Please set a WORKDIR in your Dockerfile before running this script."\n    exit 1\nfi\n\n' + VERIFIER_PYTEST + ' --rootdir="$TEST_DIR" "$TEST_DIR/test_outputs.py" -rA\n```',
    'The Dockerfile COPYs only the data files it names (never `COPY . ...`: that would ship tests/ and solution.sh to the agent), and sets `WORKDIR /app`.',
    'Tests read their own fixtures relative to the test file (`Path(__file__).with_name("x.txt")`), never from the agent-writable image.',
  ],
};

const DESIGN = [
  'The instruction states exactly what to produce: every output path, file name, format, ordering and edge case the tests check. The tests check nothing the instruction does not state.',
  'Tests check BEHAVIOUR: run the agent\'s program on inputs the tests create (e.g. in tmp_path) or on fixtures, compare with expected values the tests compute themselves or hold in tests/. No test only checks that a file exists, and none asserts nothing (`assert True`, `is not None` alone, bare `except: pass`).',
  'Doing nothing must fail every substantive test; a wrong but plausible answer must fail at least one.',
  'Nothing of tests/ or the solution goes into the image; expected answers never sit where the agent can read them.',
  'The reward comes only from the verifier\'s exit status: no `|| true`, no `| tee` without pipefail, no `set -e` before the reward is written, no reward written unconditionally.',
  'Deterministic: no sleeps, no wall-clock thresholds, no dependence on directory listing order, the clock, the time zone or the locale, no absolute paths of your machine, no randomness without a fixed seed.',
  'The reference solution DERIVES its answer by doing the task (reading the inputs, computing), never by printing a memorised result; it uses `#!/bin/bash` and `set -euo pipefail`, and runs in seconds.',
  `Pin every version: the base image tag and pytest==${PYTEST_PIN}; install nothing else.`,
];

const DIFFICULTY: Readonly<Record<GenDifficulty, string>> = {
  easy: 'easy: one clear step, an expert needs ~10 minutes.',
  medium: 'medium: several steps or a subtle specification (edge cases, precise formats), an expert needs ~30 minutes.',
  hard: 'hard: a real engineering problem with traps an average attempt falls into, an expert needs 1–2 hours; still fully specified and solvable offline.',
};

/** The audit's rules as the model must respect them (generated from the rule table, so they never drift). */
export function auditRuleLines(): string[] {
  return STATIC_RULES.filter((r) => r.severity !== 'info').map((r) => `- ${r.id}: ${r.title}`);
}

/**
 * The stable system prompt (cached when long enough): the format's contract, the real base image's contents and the
 * audit's rules. Everything that varies per request goes into the user message instead.
 */
export function systemPrompt(format: TaskFormat): string {
  return [
    'You write terminal-agent tasks for reinforcement-learning training and benchmarks. A task is a Docker environment, an instruction, a verifier that decides the reward, and a reference solution. Every task you submit is audited statically, built, and validated in fresh containers: doing nothing must score 0, the reference solution must score 1, identical runs must agree, and a planted conftest.py, pytest.ini or fake reward file must not change the verdict. Tasks that fail come back to you with the findings to repair.',
    '',
    '## Environment',
    ...BASE_FACTS.map((l) => `- ${l}`),
    '',
    '## Format contract',
    ...CONTRACT[format].map((l) => `- ${l}`),
    `- Required files: ${REQUIRED_FILES[format].join(', ')}.`,
    '',
    '## Design rules (the three failure classes: invalid task, brittle harness, misaligned reward)',
    ...DESIGN.map((l) => `- ${l}`),
    '',
    '## Audit rules your files must not trigger',
    ...auditRuleLines(),
    '',
    'Answer only by calling the submit_task tool with every file of the task.',
  ].join('\n');
}

export function requestPrompt(topic: string, difficulty: GenDifficulty, slot: number, count: number, avoid: readonly string[]): string {
  return [
    `Write task ${slot} of ${count} on this topic: ${topic}`,
    `Difficulty — ${DIFFICULTY[difficulty]}`,
    avoid.length ? `Make it different from the tasks already written: ${avoid.join(', ')}.` : '',
    'Submit it with submit_task.',
  ].filter(Boolean).join('\n');
}
