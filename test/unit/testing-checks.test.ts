import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TrialRecord } from '../../src/core/results/trial';
import { CHECK_NAMES } from '../../src/core/validate/types';
import { attemptState, CHECK_LABEL, checkDurationMs, FINDING_CHECK, findingsOf, taskFindings, trialState } from '../../src/extension/testing/checks';

function trial(agent: string, outcome: TrialRecord['outcome'], reward: number | null, extra: Partial<TrialRecord> = {}): TrialRecord {
  return {
    trial: `t-${agent}`, task: 'tasks/a', agent, attempt: 1, outcome, reward, startedAt: '2026-01-01T00:00:00Z',
    durations: { build: 2, agent: 1.5, verifier: 0.5 }, logs: 'trials/x', ...extra,
  } as TrialRecord;
}

void describe('Testing view: how a validation reads as tests', () => {
  void it('labels every check validate reports', () => {
    for (const c of CHECK_NAMES) assert.ok(CHECK_LABEL[c], `no label for ${c}`);
  });

  void it('maps each finding rule to a check that exists, and every mapped rule is emitted by the validator', () => {
    const src = ['analyze.ts', 'behaviourAnalysis.ts', 'cheats.ts', 'probes.ts']
      .map((f) => fs.readFileSync(path.join('src', 'core', 'validate', f), 'utf8')).join('\n');
    for (const [rule, check] of Object.entries(FINDING_CHECK)) {
      assert.ok(CHECK_NAMES.includes(check), `${rule} → unknown check ${check}`);
      assert.ok(src.includes(`'${rule}'`), `the validator never emits ${rule}`);
    }
  });

  void it('puts findings on their check, and the rest on the task', () => {
    const findings = [
      { rule: 'nop-passes', class: 'misalignment', severity: 'error', message: 'a' },
      { rule: 'infra-error', class: 'infra', severity: 'warning', message: 'b' },
    ] as const;
    assert.deepEqual(findingsOf('nop', findings).map((f) => f.message), ['a']);
    assert.deepEqual(findingsOf('oracle', findings), []);
    assert.deepEqual(taskFindings(findings).map((f) => f.message), ['b']);
  });

  void it('oracle must pass and nop must fail; infra is errored, never failed', () => {
    assert.equal(trialState('oracle', trial('oracle', 'passed', 1)).state, 'passed');
    assert.equal(trialState('oracle', trial('oracle', 'failed', 0)).state, 'failed');
    assert.equal(trialState('nop', trial('nop', 'failed', 0)).state, 'passed');
    assert.equal(trialState('nop', trial('nop', 'passed', 1)).state, 'failed');
    const infra = trial('oracle', 'infra-error', null, { infra: { kind: 'build-failed', message: 'no space' } });
    assert.equal(trialState('oracle', infra).state, 'errored');
    assert.match(trialState('oracle', infra).message, /build-failed: no space/);
    assert.equal(trialState('nop', trial('nop', 'verifier-oom', null)).state, 'errored');
    assert.equal(attemptState(trial('anthropic:m', 'agent-timeout', 0)).state, 'failed');
    assert.equal(attemptState(trial('anthropic:m', 'infra-error', null)).state, 'errored');
    assert.equal(attemptState(trial('anthropic:m', 'passed', 1)).state, 'passed');
  });

  void it('times a check from the trials that ran it', () => {
    const trials = [trial('nop', 'failed', 0), trial('oracle', 'passed', 1), trial('probe:reward-file', 'failed', 0)];
    assert.equal(checkDurationMs('nop', trials), 2000);
    assert.equal(checkDurationMs('reward-isolation', trials), 2000);
    assert.equal(checkDurationMs('build', trials), 6000);
    assert.equal(checkDurationMs('agreement', trials), undefined);
    assert.equal(checkDurationMs('oracle', []), undefined);
  });
});
