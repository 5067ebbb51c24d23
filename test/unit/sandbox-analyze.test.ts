import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Task } from '../../src/core/model/task';
import type { TrialOutcome, TrialRecord } from '../../src/core/results/trial';
import { analyzeTask, type TaskTrials } from '../../src/core/validate/analyze';

const task: Task = {
  id: 'demo', dir: '/tmp/demo', format: 'harbor', configFile: 'task.toml', instructionFile: 'instruction.md',
  metadata: { difficulty: 'easy', category: 'x', tags: [] },
  timeouts: { agentSec: 10, verifierSec: 10, buildSec: 60 },
  environment: { dockerfile: 'environment/Dockerfile', contextDir: 'environment', env: {} },
  verifier: { entry: 'tests/test.sh', testsDir: 'tests', env: {} },
  agent: {}, solution: { file: 'solution/solve.sh', kind: 'script' },
  fields: { 'verifier.timeout_sec': { file: 'task.toml', range: { start: { line: 4, character: 0 }, end: { line: 4, character: 15 } } } },
  files: [], problems: [],
};

let n = 0;
function t(outcome: TrialOutcome, agent = 'oracle', d: { agent?: number; verifier?: number } = {}): TrialRecord {
  const reward = outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null;
  return {
    trial: `t${++n}`, task: 'demo', agent, attempt: 1, outcome, reward, startedAt: 'now',
    durations: { build: 0, agent: d.agent ?? 1, verifier: d.verifier ?? 1 }, logs: 'x',
    ...(outcome === 'infra-error' ? { infra: { kind: 'container-start' as const, message: 'boom' } } : {}),
  };
}

function run(over: Partial<TaskTrials>) {
  return analyzeTask({
    task, path: 'demo',
    nop: [t('failed', 'nop'), t('failed', 'nop')],
    oracle: [t('passed'), t('passed')],
    probes: { conftest: [t('failed', 'nop')] },
    ...over,
  });
}

const check = (v: ReturnType<typeof run>, name: string) => v.checks.find((c) => c.name === name);

void describe('validation analysis', () => {
  void it('is valid when the oracle passes, nop fails, runs agree and probes earn nothing', () => {
    const v = run({});
    assert.equal(v.verdict, 'valid');
    assert.deepEqual(v.findings, []);
    assert.ok(v.checks.every((c) => c.status === 'pass'));
  });

  void it('flags a verifier OOM on the task as its own finding', () => {
    const v = run({ oracle: [t('passed'), t('verifier-oom')] });
    assert.ok(v.findings.some((f) => f.rule === 'verifier-oom' && f.severity === 'error'));
  });

  void it('is invalid when the oracle never passes, with the finding on the solution', () => {
    const v = run({ oracle: [t('failed'), t('failed')] });
    assert.equal(v.verdict, 'invalid');
    assert.equal(v.findings[0]?.rule, 'oracle-fails');
    assert.equal(v.findings[0]?.file, 'solution/solve.sh');
  });

  void it('is misaligned when doing nothing earns reward, with the finding on the tests', () => {
    const v = run({ nop: [t('passed', 'nop'), t('passed', 'nop')] });
    assert.equal(v.verdict, 'misaligned');
    assert.equal(v.findings[0]?.rule, 'nop-passes');
    assert.equal(v.findings[0]?.file, 'tests/test.sh');
    assert.equal(check(v, 'reward-isolation')?.status, 'skipped');
  });

  void it('is misaligned when a planted file earns reward', () => {
    const v = run({ probes: { conftest: [t('passed', 'nop')] } });
    assert.equal(v.verdict, 'misaligned');
    assert.ok(v.findings.some((f) => f.rule === 'reward-not-isolated' && f.class === 'misalignment'));
  });

  void it('puts a solution found in the image on the Dockerfile, apart from planted files', () => {
    const v = run({ probes: { conftest: [t('failed', 'nop')], 'solution-in-image': [t('passed', 'nop')] } });
    assert.equal(v.verdict, 'misaligned');
    assert.deepEqual(v.findings.map((f) => [f.rule, f.file]), [['answer-or-solution-in-image', 'environment/Dockerfile']]);
  });

  void it('is brittle when identical runs disagree', () => {
    const v = run({ oracle: [t('passed'), t('failed'), t('passed')] });
    assert.equal(v.verdict, 'brittle');
    assert.ok(v.findings.some((f) => f.rule === 'flaky-verdict' && f.class === 'brittleness'));
  });

  void it('warns when the oracle runs within 20% of a timeout, on the timeout field', () => {
    const v = run({ oracle: [t('passed', 'oracle', { verifier: 8.5 }), t('passed')] });
    assert.equal(check(v, 'timeout-margin')?.status, 'fail');
    const f = v.findings.find((x) => x.rule === 'timeout-margin');
    assert.equal(f?.file, 'task.toml');
    assert.equal(f?.range?.start.line, 4);
  });

  void it('never counts infra errors against the task', () => {
    const v = run({ oracle: [t('infra-error'), t('infra-error')] });
    assert.equal(check(v, 'oracle')?.status, 'error');
    assert.equal(v.verdict, 'infra-error');
    assert.ok(!v.findings.some((f) => f.rule === 'oracle-fails'));
    assert.ok(v.findings.some((f) => f.rule === 'infra-error' && f.class === 'infra'));
    const partial = run({ oracle: [t('infra-error'), t('passed'), t('passed')] });
    assert.equal(partial.verdict, 'valid');
  });

  void it('reports a build failure on the Dockerfile and skips the rest', () => {
    const v = run({ buildError: { kind: 'build-failed', message: 'RUN false returned 1' }, nop: [], oracle: [], probes: {} });
    assert.equal(v.verdict, 'infra-error');
    assert.equal(v.findings[0]?.rule, 'build-fails');
    assert.equal(v.findings[0]?.file, 'environment/Dockerfile');
    assert.deepEqual(v.checks.filter((c) => c.status === 'skipped').length, 5);
  });
});
