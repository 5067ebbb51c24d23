import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyTrial, isVerdict, retryDelayMs } from '../../src/core/sandbox/outcome';
import { parseHarborReward } from '../../src/core/sandbox/formats';

void describe('trial outcome classification', () => {
  void it('gives exactly one outcome, cancellation and infra first', () => {
    assert.equal(classifyTrial({ cancelled: true, reward: 1 }).outcome, 'cancelled');
    assert.equal(classifyTrial({ infra: { kind: 'build-failed', message: 'x' }, agentTimedOut: true }).outcome, 'infra-error');
    assert.equal(classifyTrial({ agentTimedOut: true, reward: 1 }).outcome, 'agent-timeout');
    assert.equal(classifyTrial({ verifierTimedOut: true }).outcome, 'verifier-timeout');
  });

  void it('passes at reward 1, fails below it, keeping partial rewards', () => {
    assert.deepEqual(classifyTrial({ reward: 1 }), { outcome: 'passed', reward: 1 });
    assert.deepEqual(classifyTrial({ reward: 0 }), { outcome: 'failed', reward: 0 });
    assert.deepEqual(classifyTrial({ reward: 0.5 }), { outcome: 'failed', reward: 0.5 });
  });

  void it('is a verifier error when no reward was produced', () => {
    assert.deepEqual(classifyTrial({ reward: null }), { outcome: 'verifier-error', reward: null });
    assert.deepEqual(classifyTrial({}), { outcome: 'verifier-error', reward: null });
    assert.equal(classifyTrial({ reward: Number.NaN }).outcome, 'verifier-error');
  });

  void it('never counts infra errors or cancellations as verdicts', () => {
    assert.equal(isVerdict('infra-error'), false);
    assert.equal(isVerdict('cancelled'), false);
    assert.equal(isVerdict('failed'), true);
    assert.equal(isVerdict('agent-timeout'), true);
  });

  void it('backs off exponentially with a cap', () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => retryDelayMs(n, 500)), [500, 1000, 2000, 4000]);
    assert.equal(retryDelayMs(20, 500, 30_000), 30_000);
  });
});

void describe('Harbor reward files', () => {
  void it('reads reward.txt first', () => {
    assert.equal(parseHarborReward({ 'reward.txt': '1\n', 'reward.json': '{"reward":0}' }).reward, 1);
  });
  void it('reads reward.json as {"reward": x} or a single numeric field', () => {
    assert.equal(parseHarborReward({ 'reward.json': '{"reward": 0.25}' }).reward, 0.25);
    assert.equal(parseHarborReward({ 'reward.json': '{"accuracy": 1}' }).reward, 1);
    assert.equal(parseHarborReward({ 'reward.json': '{"a": 1, "b": 0}' }).reward, null);
  });
  void it('is null (a verifier error) when missing or unparsable', () => {
    assert.equal(parseHarborReward({}).reward, null);
    assert.equal(parseHarborReward({ 'reward.txt': 'yes' }).reward, null);
    assert.equal(parseHarborReward({ 'reward.json': '{' }).reward, null);
  });
});
