import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderBandCsv, renderBandText } from '../../src/core/band/format';
import { tallyRecords } from '../../src/core/band/fromRecords';
import { bandReport } from '../../src/core/band/report';
import { remainingAttempts } from '../../src/core/results/attempts';
import { describeInfraRate, infraRate, jobKey } from '../../src/core/results/infraRate';
import { attemptSucceeded, summarizePolicies } from '../../src/core/results/timeoutPolicy';
import type { TrialOutcome, TrialRecord } from '../../src/core/results/trial';
import { classifyTrial } from '../../src/core/sandbox/outcome';
import { isBandReport } from '../../src/core/protocol/bandPanel';
import { decodeReport, encodeReport } from '../../src/core/protocol/bandWire';

function rec(task: string, attempt: number, outcome: TrialOutcome, extra: Partial<TrialRecord> = {}): TrialRecord {
  return {
    trial: `${task}-a${attempt}-t${extra.try ?? 1}`, task, agent: 'oracle', attempt, outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: '2026-12-03T00:00:00Z',
    durations: { build: 0, agent: 1, verifier: 1 }, logs: 'trials/x',
    ...(outcome === 'infra-error' ? { infra: { kind: 'engine-unreachable' as const, message: 'down' } } : {}), ...extra,
  };
}

void describe('resume plan: which attempts remain', () => {
  void it('runs missing, cancelled and infra-ended attempts, and never an attempt that reached an outcome', () => {
    const plan = remainingAttempts({ tasks: ['a', 'b', 'c'], attempts: 2, agent: 'oracle' }, [
      rec('a', 1, 'passed'), rec('a', 2, 'failed'),
      rec('b', 1, 'agent-timeout'), rec('b', 2, 'cancelled'),
      rec('c', 1, 'infra-error', { try: 1 }), rec('c', 1, 'infra-error', { try: 2 }), rec('c', 1, 'infra-error', { try: 3 }),
      // c's second attempt never got a record (its process was killed mid-trial).
    ]);
    assert.equal(plan.planned, 6);
    assert.equal(plan.done, 3);
    assert.deepEqual(plan.remaining.map((r) => [r.task, r.attempt, r.reason, r.nextTry]), [
      ['c', 1, 'infra-error', 4], ['b', 2, 'cancelled', 2], ['c', 2, 'missing', 1],
    ]);
    assert.deepEqual(plan.byReason, { missing: 1, cancelled: 1, 'infra-error': 1 });
  });

  void it('keeps an attempt whose earlier try reached a verdict, whatever came after, and counts verifier OOM and agent errors as outcomes', () => {
    const plan = remainingAttempts({ tasks: ['a', 'b', 'c'], attempts: 1 }, [
      rec('a', 1, 'infra-error', { try: 1 }), rec('a', 1, 'passed', { try: 2 }), rec('a', 1, 'cancelled', { try: 3 }),
      rec('b', 1, 'verifier-oom'), rec('c', 1, 'agent-error'),
    ]);
    assert.deepEqual([plan.done, plan.remaining.length], [3, 0]);
  });

  void it('matches tasks by normalised path and ignores another agent\'s records and attempts beyond the plan', () => {
    const plan = remainingAttempts({ tasks: ['./tasks/a/', 'tasks/b'], attempts: 1, agent: 'oracle' }, [
      rec('tasks/a', 1, 'passed'),
      rec('tasks/b', 1, 'passed', { agent: 'nop' }),
      rec('tasks/b', 2, 'passed'),
    ]);
    assert.deepEqual(plan.remaining.map((r) => [r.task, r.attempt, r.reason]), [['tasks/b', 1, 'missing']]);
  });

  void it('after the remaining attempts are made, nothing remains (resume twice is a no-op)', () => {
    const records = [rec('a', 1, 'infra-error'), rec('a', 2, 'cancelled')];
    const first = remainingAttempts({ tasks: ['a'], attempts: 2 }, records);
    const made = first.remaining.map((r) => rec(r.task, r.attempt, 'passed', { try: r.nextTry }));
    assert.equal(remainingAttempts({ tasks: ['a'], attempts: 2 }, [...records, ...made]).remaining.length, 0);
  });
});

void describe('infra rate: attempts lost to infrastructure', () => {
  void it('counts attempts whose last try is infra, not tries retried to an outcome, and leaves cancellations out', () => {
    const r = infraRate([
      rec('a', 1, 'infra-error', { try: 1 }), rec('a', 1, 'passed', { try: 2 }),
      rec('b', 1, 'infra-error', { try: 1 }), rec('b', 1, 'infra-error', { try: 2 }),
      rec('c', 1, 'failed'), rec('d', 1, 'cancelled'),
    ], 0.5);
    assert.deepEqual([r.attempts, r.infra, r.infraTries], [3, 1, 3]);
    assert.ok(Math.abs(r.rate - 1 / 3) < 1e-12);
    assert.equal(r.exceeded, false);
    assert.equal(infraRate([rec('a', 1, 'infra-error'), rec('b', 1, 'passed')], 0.5).exceeded, false, 'exactly at the threshold is within it');
    assert.equal(infraRate([rec('a', 1, 'infra-error'), rec('b', 1, 'passed')], 0.49).exceeded, true);
    assert.equal(infraRate([rec('a', 1, 'infra-error')], 0).exceeded, true, '0 fails on any loss');
    assert.equal(infraRate([], 0).exceeded, false);
  });

  void it('says the count, the rate and the threshold in one line', () => {
    const lost = describeInfraRate(infraRate([rec('a', 1, 'infra-error'), rec('b', 1, 'passed'), rec('c', 1, 'passed')], 0.05));
    assert.match(lost ?? '', /^1 of 3 attempt\(s\) \(33\.3%\) ended in infrastructure errors after retries — more than --max-infra-rate 0\.05 \(5\.0%\): exit status 1$/);
    const within = describeInfraRate(infraRate([rec('a', 1, 'infra-error'), rec('b', 1, 'passed')], 0.5));
    assert.match(within ?? '', /within --max-infra-rate 0\.5/);
    assert.match(describeInfraRate(infraRate([rec('a', 1, 'infra-error', { try: 1 }), rec('a', 1, 'passed', { try: 2 })], 0)) ?? '', /no attempt lost/);
    assert.equal(describeInfraRate(infraRate([rec('a', 1, 'passed')], 0)), undefined);
  });

  void it('groups a validation\'s tries by job (trial id without its try)', () => {
    assert.equal(jobKey({ trial: '004-hello-probe-conftest-a1-t3' }), '004-hello-probe-conftest-a1');
    const r = infraRate([
      rec('t', 1, 'infra-error', { trial: '001-t-oracle-a1' }), rec('t', 1, 'passed', { trial: '001-t-oracle-a1-t2', try: 2 }),
      rec('t', 1, 'infra-error', { trial: '002-t-probe-a1', agent: 'nop' }),
    ], 0, jobKey);
    assert.deepEqual([r.attempts, r.infra], [2, 1]);
  });
});

void describe('timeout policy', () => {
  void it('fail: an agent timeout is a failed attempt; verifier: the verifier\'s verdict stands', () => {
    assert.deepEqual(classifyTrial({ agentTimedOut: true, reward: 1 }), { outcome: 'agent-timeout', reward: null });
    assert.deepEqual(classifyTrial({ agentTimedOut: true, timeoutPolicy: 'fail', reward: 1 }), { outcome: 'agent-timeout', reward: null });
    assert.deepEqual(classifyTrial({ agentTimedOut: true, timeoutPolicy: 'verifier', reward: 1 }), { outcome: 'passed', reward: 1 });
    assert.deepEqual(classifyTrial({ agentTimedOut: true, timeoutPolicy: 'verifier', reward: 0 }), { outcome: 'failed', reward: 0 });
    assert.deepEqual(classifyTrial({ agentTimedOut: true, timeoutPolicy: 'verifier', verifierTimedOut: true }), { outcome: 'verifier-timeout', reward: null });
    // Infra and cancellation still win under either policy.
    assert.equal(classifyTrial({ agentTimedOut: true, timeoutPolicy: 'verifier', cancelled: true }).outcome, 'cancelled');
  });

  void it('a record counts as a success by its own policy', () => {
    assert.equal(attemptSucceeded(rec('a', 1, 'passed', { agentTimedOut: true, timeoutPolicy: 'verifier' })), true);
    assert.equal(attemptSucceeded(rec('a', 1, 'passed', { agentTimedOut: true, timeoutPolicy: 'fail' })), false);
    assert.equal(attemptSucceeded(rec('a', 1, 'passed', { agentTimedOut: true })), false, 'a record without a policy is fail');
    assert.equal(attemptSucceeded(rec('a', 1, 'passed')), true);
    assert.equal(summarizePolicies([]), undefined);
    assert.equal(summarizePolicies(['verifier', 'verifier']), 'verifier');
    assert.equal(summarizePolicies(['fail', 'verifier']), 'mixed');
  });

  void it('the band counts each record by its policy and shows the policy, mixed when records differ', () => {
    const verifierRun = [
      rec('t/a', 1, 'passed', { agentTimedOut: true, timeoutPolicy: 'verifier' }), rec('t/a', 2, 'passed', { timeoutPolicy: 'verifier' }),
    ];
    const one = bandReport(tallyRecords([{ source: 'r1', records: verifierRun, finished: true, expectedAttempts: 2 }]), { k: 2 });
    assert.equal(one.timeoutPolicy, 'verifier');
    assert.equal(one.models[0]!.timeoutPolicy, 'verifier');
    assert.equal(one.models[0]!.tasks[0]!.successes, 2);
    assert.match(renderBandText(one), /^pass@2.*agent timeouts: graded by the verifier \(timeout policy verifier\)/);
    assert.match(renderBandText(one), /timeout policy verifier$/m);
    // The same pass, recorded under fail (a hand-edited or imported line), is no success.
    const failRun = [rec('t/b', 1, 'passed', { agentTimedOut: true, timeoutPolicy: 'fail' }), rec('t/b', 2, 'agent-timeout', { timeoutPolicy: 'fail' })];
    const mixed = bandReport(tallyRecords([
      { source: 'r1', records: verifierRun, finished: true, expectedAttempts: 2 },
      { source: 'r2', records: failRun, finished: true, expectedAttempts: 2 },
    ]), { k: 2 });
    const m = mixed.models[0]!;
    assert.equal(m.timeoutPolicy, 'mixed');
    assert.equal(mixed.timeoutPolicy, 'mixed');
    assert.deepEqual(m.tasks.map((t) => [t.path, t.successes, t.attempts]), [['t/a', 2, 2], ['t/b', 0, 2]]);
    assert.match(renderBandText(mixed), /timeout policy mixed/);
    const csv = renderBandCsv(mixed).trim().split('\n');
    assert.ok(csv[0]!.endsWith(',timeout_policy'));
    assert.ok(csv.slice(1).every((l) => l.endsWith(',mixed')));
    // Records from before the policy existed read as fail.
    assert.equal(bandReport(tallyRecords([{ source: 'old', records: [rec('x', 1, 'passed')], finished: true }])).timeoutPolicy, 'fail');
  });
});

void describe('timeout policy in the band panel', () => {
  void it('crosses the wire to the panel and is checked there', () => {
    const report = bandReport(tallyRecords([{ source: 'r', records: [rec('t/a', 1, 'passed', { timeoutPolicy: 'verifier', agentTimedOut: true })], finished: true, expectedAttempts: 1 }]), { k: 1 });
    const back = decodeReport(encodeReport(report));
    assert.equal(back?.timeoutPolicy, 'verifier');
    assert.equal(back?.models[0]?.timeoutPolicy, 'verifier');
    assert.equal(isBandReport({ ...report, timeoutPolicy: 'lenient' }), false);
    assert.equal(isBandReport({ ...report, models: [{ ...report.models[0]!, timeoutPolicy: 'lenient' }] }), false);
  });
});
