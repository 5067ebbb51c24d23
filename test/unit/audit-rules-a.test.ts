import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';
import { makeTask, removeTemp } from './audit-helpers';

/** `rule severity file:line` (1-based) of every finding of the given rules. */
async function findings(base: 'clean-harbor' | 'clean-tb1', files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    const all = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return all.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.file ?? ''}:${f.range ? f.range.start.line + 1 : ''}`);
  } finally {
    await removeTemp(dir);
  }
}

const H_DOCKER = (extra: string): string => `FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY data/ /app/data/\n${extra}`;
const T_DOCKER = (extra: string): string => `FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y tmux asciinema\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\nCOPY words.txt /app/words.txt\n${extra}`;

void describe('copy-source-missing on real-world source spellings', () => {
  const rule = ['copy-source-missing'];
  void it('accepts quoted sources and folder/. sources that exist', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'environment/Dockerfile': H_DOCKER('COPY "data/" "/srv/data/"\nCOPY data/. /opt/data\n') }, rule), []);
  });
  void it('still reports a quoted source that is absent', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'environment/Dockerfile': H_DOCKER('COPY "vendor/" /opt/vendor/\n') }, rule), ['copy-source-missing error environment/Dockerfile:5']);
  });
  void it('sees files eleven folders deep (a Java source tree)', async () => {
    const deep = 'environment/proj/app/src/main/java/com/example/util/deep/Helper.java';
    assert.deepEqual(await findings('clean-harbor', { [deep]: 'class Helper {}\n', 'environment/Dockerfile': H_DOCKER('COPY proj/app/src/main/java/com/example/util/deep/Helper.java /app/Helper.java\n') }, rule), []);
  });
  void it('reports a source that .dockerignore excludes', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'environment/.dockerignore': 'data\n' }, rule), ['copy-source-missing error environment/Dockerfile:6']);
  });
  void it('does not judge the recipe of a prebuilt docker_image by the environment folder', async () => {
    const toml = 'version = "1.0"\n[verifier]\ntimeout_sec = 120.0\n[agent]\ntimeout_sec = 600.0\n[environment]\ndocker_image = "registry.example/team/task:1"\n';
    assert.deepEqual(await findings('clean-harbor', { 'task.toml': toml, 'environment/Dockerfile': H_DOCKER('COPY tests/. /tests\n') }, rule), []);
  });
  void it('does not check a build context that compose moves elsewhere', async () => {
    const compose = 'services:\n  main:\n    build:\n      context: ../shared\n';
    assert.deepEqual(await findings('clean-harbor', { 'environment/docker-compose.yaml': compose, 'environment/Dockerfile': H_DOCKER('COPY lib/ /opt/lib/\n') }, rule), []);
  });
});

void describe('leaks into the image, judged by what the files hold', () => {
  void it('does not report a COPY of only the TB1 entry script', async () => {
    assert.deepEqual(await findings('clean-tb1', { Dockerfile: T_DOCKER('COPY run-tests.sh /app/run-tests.sh\n') }, ['tests-copied-into-image']), []);
  });
  void it('does not report a placeholder solution that only prints', async () => {
    assert.deepEqual(await findings('clean-tb1', { 'solution.sh': '#!/bin/bash\necho "placeholder oracle"\n', Dockerfile: T_DOCKER('COPY solution.sh /oracle/solution.sh\n') }, ['solution-copied-into-image']), []);
  });
  void it('reports a real solution copied in', async () => {
    assert.deepEqual(await findings('clean-tb1', { Dockerfile: T_DOCKER('COPY solution.sh /oracle/solution.sh\n') }, ['solution-copied-into-image']), ['solution-copied-into-image error Dockerfile:6']);
  });
  void it('answer-in-image: grading data whose name says nothing, read only by the tests', async () => {
    const test = 'import json\nfrom pathlib import Path\n\ndef test_totals():\n    want = json.loads(Path("/app/data/q3_totals.json").read_text())\n    assert json.loads(Path("/app/totals.json").read_text()) == want\n';
    assert.deepEqual(await findings('clean-harbor', { 'environment/data/q3_totals.json': '{"north": 12.5}\n', 'tests/test_outputs.py': test }, ['answer-in-image']), ['answer-in-image info environment/Dockerfile:6']);
  });
  void it('answer-in-image: an input the instruction hands the agent is not an answer', async () => {
    assert.deepEqual(await findings('clean-harbor', {}, ['answer-in-image']), []);
  });
  void it('answer-in-image: an encrypted oracle payload is not an answer', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'environment/data/.oracle/solution.enc': 'U2FsdGVkX1' }, ['answer-in-image']), []);
  });
});

void describe('output-already-in-image', () => {
  const rule = ['output-already-in-image'];
  const test = 'from pathlib import Path\n\ndef test_counts():\n    assert Path("/app/counts.txt").read_text().startswith("3 the")\n';
  void it('fires when the image ships the file to create and the oracle never writes it', async () => {
    assert.deepEqual(await findings('clean-tb1', { 'counts.txt': '3 the\n', 'solution.sh': '#!/bin/bash\necho done\n', 'tests/test_outputs.py': test, Dockerfile: T_DOCKER('COPY counts.txt /app/counts.txt\n') }, rule), ['output-already-in-image warning Dockerfile:6']);
  });
  void it('stays quiet when the oracle writes the file itself (a starting point)', async () => {
    assert.deepEqual(await findings('clean-tb1', { 'counts.txt': '\n', 'tests/test_outputs.py': test, Dockerfile: T_DOCKER('COPY counts.txt /app/counts.txt\n') }, rule), []);
  });
});

void describe('tb1-terminal-tools-missing', () => {
  const rule = ['tb1-terminal-tools-missing'];
  void it('fires on a stock image without tmux and asciinema', async () => {
    assert.deepEqual(await findings('clean-tb1', { Dockerfile: 'FROM python:3.12-slim-bookworm\nWORKDIR /app\nCOPY words.txt /app/words.txt\n' }, rule), ['tb1-terminal-tools-missing info Dockerfile:1']);
  });
  void it('asks only for tmux when recording is disabled, and nothing once tmux is installed', async () => {
    const yaml = 'instruction: Count the words in /app/words.txt into /app/counts.txt.\ndisable_asciinema: true\n';
    assert.deepEqual(await findings('clean-tb1', { 'task.yaml': yaml, Dockerfile: 'FROM python:3.12-slim-bookworm\nRUN apt-get update && apt-get install -y tmux\nCOPY words.txt /app/words.txt\n' }, rule), []);
  });
  void it('trusts Terminal-Bench base images and custom bases', async () => {
    assert.deepEqual(await findings('clean-tb1', { Dockerfile: 'FROM ghcr.io/laude-institute/t-bench/python-3-13:20250620\nCOPY words.txt /app/words.txt\n' }, rule), []);
    assert.deepEqual(await findings('clean-tb1', { Dockerfile: 'FROM registry.example/team/tb-base:7\nCOPY words.txt /app/words.txt\n' }, rule), []);
  });
});

void describe('base-image-unpinned severity by image', () => {
  void it('warns for a moving public image and informs for a task-specific one', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'environment/Dockerfile': 'FROM ubuntu\nWORKDIR /app\nCOPY data/ /app/data/\n' }, ['base-image-unpinned']), ['base-image-unpinned warning environment/Dockerfile:1']);
    assert.deepEqual(await findings('clean-harbor', { 'environment/Dockerfile': 'FROM team/eval.task-1234:latest\nWORKDIR /app\nCOPY data/ /app/data/\n' }, ['base-image-unpinned']), ['base-image-unpinned info environment/Dockerfile:1']);
  });
});

void describe('multi-step Harbor tasks', () => {
  const toml = (strategy: string): string => `version = "1.1"\nmulti_step_reward_strategy = "${strategy}"\n[verifier]\ntimeout_sec = 120.0\n[agent]\ntimeout_sec = 600.0\n[[steps]]\nname = "1-plan"\n[[steps]]\nname = "2-build"\n`;
  const always = '#!/bin/bash\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n';
  const files = (strategy: string): Files => ({
    'task.toml': toml(strategy), 'instruction.md': null,
    'steps/1-plan/instruction.md': 'Write a plan for the totals to `/app/plan.md`.\n',
    'steps/1-plan/tests/test.sh': always,
    'steps/2-build/instruction.md': 'Follow `/app/plan.md` and write the totals to `/app/totals.json`.\n',
    'steps/2-build/tests/test.sh': '#!/bin/bash\nmkdir -p /logs/verifier\nvalue=$(python3 -c "import json;print(json.load(open(\'/app/totals.json\'))[\'north\'])")\nif [ "$value" = "12.5" ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  });
  void it('loads every step and audits each; an ungraded non-final step is fine under "final"', async () => {
    const dir = await makeTask('clean-harbor', files('final'));
    try {
      const t = await loadTask(dir);
      assert.deepEqual(t.steps?.map((s) => [s.name, s.instructionFile, s.verifierEntry, s.testsDir]), [
        ['1-plan', 'steps/1-plan/instruction.md', 'steps/1-plan/tests/test.sh', 'steps/1-plan/tests'],
        ['2-build', 'steps/2-build/instruction.md', 'steps/2-build/tests/test.sh', 'steps/2-build/tests'],
      ]);
    } finally {
      await removeTemp(dir);
    }
    // The plan is created by step 1's agent: step 2 naming it is not a missing input.
    assert.deepEqual(await findings('clean-harbor', files('final'), ['unconditional-reward', 'instruction-missing-file']), []);
  });
  void it('reads the task-level tests/ Harbor uploads under every step: its reward helpers count, a step file of the same name wins', async () => {
    const helpers = '# shared by every step\nwrite_reward() { echo "$1" > /logs/verifier/reward.txt; }\npass() { write_reward 1; exit 0; }\nfail() { write_reward 0; exit 0; }\n';
    const step = (check: string): string => `#!/bin/bash\nset -u\nsource /tests/helpers.sh\n${check} && pass\nfail\n`;
    const shared: Files = {
      ...files('mean'), 'tests/test.sh': null, 'tests/test_outputs.py': null, 'tests/orders.csv': null,
      'tests/helpers.sh': helpers,
      'steps/1-plan/tests/test.sh': step('[ -s /app/plan.md ]'),
      'steps/2-build/tests/test.sh': step('grep -q 12.5 /app/totals.json'),
    };
    assert.deepEqual(await findings('clean-harbor', shared, ['no-reward-written']), []);
    // Without the shared helpers nothing writes a reward: every step is reported.
    assert.deepEqual(await findings('clean-harbor', { ...shared, 'tests/helpers.sh': '# nothing here\n' }, ['no-reward-written']), [
      'no-reward-written error steps/1-plan/tests/test.sh:',
      'no-reward-written error steps/2-build/tests/test.sh:',
    ]);
  });
  void it('reports the always-pass step when every step counts', async () => {
    assert.deepEqual(await findings('clean-harbor', files('mean'), ['unconditional-reward']), ['unconditional-reward error steps/1-plan/tests/test.sh:3']);
  });
});
