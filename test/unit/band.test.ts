import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkpointSeries } from '../../src/core/band/checkpoints';
import { classifyBand, parseThresholds } from '../../src/core/band/classify';
import { bandCountsText, meanPassAtKText, renderBandCsv, renderBandText } from '../../src/core/band/format';
import { tallyRecords, type RecordSet } from '../../src/core/band/fromRecords';
import { bandReport, type TaskTally } from '../../src/core/band/report';
import { bootstrapMeanInterval, meanPassAtKInterval, passAtK, seededRandom, wilsonInterval } from '../../src/core/band/stats';
import type { ModelBandReport } from '../../src/core/band/types';
import type { TrialOutcome, TrialRecord } from '../../src/core/results/trial';

/** pass@k by definition: the share of k-subsets of the n attempts that contain at least one success. */
function bruteForcePassAtK(outcomes: readonly boolean[], k: number): number {
  const n = outcomes.length;
  let total = 0;
  let hit = 0;
  const pick = (start: number, left: number, any: boolean): void => {
    if (left === 0) { total++; if (any) hit++; return; }
    for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, any || outcomes[i]!);
  };
  pick(0, k, false);
  return hit / total;
}

void describe('band: pass@k estimator', () => {
  void it('equals brute-force enumeration over k-subsets for small n (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 12 }),
      (outcomes, k) => {
        fc.pre(k <= outcomes.length);
        const c = outcomes.filter(Boolean).length;
        const got = passAtK(outcomes.length, c, k)!;
        assert.ok(Math.abs(got - bruteForcePassAtK(outcomes, k)) < 1e-12, `n=${outcomes.length} c=${c} k=${k}: ${got}`);
      },
    ), { numRuns: 400 });
  });

  void it('is null when fewer than k attempts exist, and stable for large n', () => {
    assert.equal(passAtK(1, 1, 2), null);
    assert.equal(passAtK(0, 0, 1), null);
    assert.equal(passAtK(2, 0, 2), 0);
    assert.equal(passAtK(2, 1, 2), 1);
    assert.equal(passAtK(2, 2, 2), 1);
    assert.equal(passAtK(4, 1, 1), 0.25);
    // C(2000, 10) overflows nothing in the product form.
    const v = passAtK(2000, 3, 10)!;
    assert.ok(Number.isFinite(v) && v > 0.0149 && v < 0.0150, String(v));
    assert.throws(() => passAtK(2, 3, 1), RangeError);
  });

  void it('gives a Wilson interval that contains the rate and stays inside [0,1]', () => {
    assert.equal(wilsonInterval(0, 0), null);
    const [lo, hi] = wilsonInterval(0, 2)!;
    assert.equal(lo, 0);
    assert.ok(hi > 0.6 && hi < 0.7, String(hi));
    fc.assert(fc.property(fc.integer({ min: 1, max: 200 }), fc.nat(), (n, x) => {
      const c = x % (n + 1);
      const [a, b] = wilsonInterval(c, n)!;
      assert.ok(a >= 0 && b <= 1 && a <= c / n + 1e-12 && b >= c / n - 1e-12);
    }));
  });

  void it('bootstraps the same interval for the same seed, and brackets the mean', () => {
    const xs = [0, 1, 1, 0.5, 1, 0, 1, 1];
    const a = bootstrapMeanInterval(xs, { seed: 7 })!;
    assert.deepEqual(bootstrapMeanInterval(xs, { seed: 7 }), a);
    assert.ok(a[0] <= 0.6875 && a[1] >= 0.6875 && a[0] >= 0 && a[1] <= 1);
    assert.notDeepEqual(bootstrapMeanInterval(xs, { seed: 8 }), a);
    assert.deepEqual(bootstrapMeanInterval([1, 1, 1]), [1, 1]);
    assert.equal(bootstrapMeanInterval([]), null);
  });
});

/**
 * Simulated rollouts: T tasks whose true success rates follow Beta(a, b) (a, b integers), n attempts
 * each; the target is the population's mean pass@2, E[1 − (1 − p)²] = 1 − b(b+1) / ((a+b)(a+b+1)).
 * Returns the share of simulated task sets whose interval holds the target.
 */
function coverage(interval: (values: number[], rep: number) => [number, number] | null, T: number, n: number, a: number, b: number, reps = 300): number {
  const rand = seededRandom(T * 1000 + n * 10 + a);
  const gamma = (shape: number): number => { let s = 0; for (let i = 0; i < shape; i++) s -= Math.log(1 - rand()); return s; };
  const target = 1 - (b * (b + 1)) / ((a + b) * (a + b + 1));
  let hit = 0;
  for (let r = 0; r < reps; r++) {
    const values: number[] = [];
    for (let t = 0; t < T; t++) {
      const x = gamma(a), y = gamma(b);
      const p = x / (x + y);
      let c = 0;
      for (let i = 0; i < n; i++) if (rand() < p) c++;
      values.push(passAtK(n, c, 2)!);
    }
    const iv = interval(values, r)!;
    if (iv[0] <= target && target <= iv[1]) hit++;
  }
  return hit / reps;
}

void describe('band: the interval of mean pass@k', () => {
  void it('is the Wilson interval of tasks solved out of T when pass@k is 0 or 1, and never a point', () => {
    assert.equal(meanPassAtKInterval([]), null);
    // 6 of 8 tasks solved: n_eff = T·m(1−m)/s² = 7, close to the plain Wilson interval on 8.
    const iv = meanPassAtKInterval([1, 1, 1, 0, 1, 1, 0, 1])!;
    const w = wilsonInterval(6, 8)!;
    assert.ok(Math.abs(iv[0] - w[0]) < 0.03 && Math.abs(iv[1] - w[1]) < 0.03, `${iv} vs ${w}`);
    // Every task solved: the bootstrap says [1, 1]; this says what 10 tasks can say.
    assert.deepEqual(bootstrapMeanInterval(Array<number>(10).fill(1)), [1, 1]);
    const all = meanPassAtKInterval(Array<number>(10).fill(1))!;
    assert.deepEqual(all.map((x) => Math.round(x * 1000) / 1000), [0.722, 1]);
    assert.deepEqual(meanPassAtKInterval(Array<number>(10).fill(0))!.map((x) => Math.round(x * 1000) / 1000), [0, 0.278]);
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }), (xs) => {
      const [lo, hi] = meanPassAtKInterval(xs)!;
      const m = xs.reduce((s, x) => s + x, 0) / xs.length;
      assert.ok(lo >= 0 && hi <= 1 && lo <= m + 1e-9 && hi >= m - 1e-9 && hi > lo, `${lo} ${hi} mean ${m}`);
    }));
  });

  void it('is written with its interval and the tasks it is over; band counts name every band', () => {
    assert.deepEqual(meanPassAtKText({ meanPassAtK: 0.6213, interval: [0.58, 0.6634] }, 9812), { value: '62.1%', interval: '58.0–66.3%', tasks: '9,812 tasks' });
    assert.deepEqual(meanPassAtKText({ meanPassAtK: null, interval: null }, 0), { value: '—', interval: '', tasks: '0 tasks' });
    const report = bandReport([{ model: 'm', sources: [], tasks: [
      { id: 'a', path: 'a', attempts: 2, successes: 2, infraErrors: 0, possiblyInfra: 0, pending: false },
      { id: 'b', path: 'b', attempts: 1, successes: 1, infraErrors: 1, possiblyInfra: 0, pending: false },
      { id: 'c', path: 'c', attempts: 2, successes: 0, infraErrors: 0, possiblyInfra: 0, pending: false },
    ] }], { k: 2, broken: new Map([['c', 'oracle fails']]) });
    // The Run Policy summary and the model picker: broken and insufficient are counted too.
    assert.equal(bandCountsText(report.models[0]!.counts), '1 too easy, 0 in band, 0 too hard, 1 broken, 1 insufficient');
    assert.equal(bandCountsText(report.models[0]!.counts, ' · '), '1 too easy · 0 in band · 0 too hard · 1 broken · 1 insufficient');
  });

  void it('covers the population mean about 95% of the time at every size, where the bootstrap does not', () => {
    const ours = (v: number[]) => meanPassAtKInterval(v);
    const boot = (v: number[], r: number) => bootstrapMeanInterval(v, { resamples: 300, seed: r + 1 });
    // 10 easy tasks, 2 attempts: the bootstrap's interval misses most of the time.
    const easyOurs = coverage(ours, 10, 2, 5, 1), easyBoot = coverage(boot, 10, 2, 5, 1);
    assert.ok(easyOurs >= 0.9, `ours ${easyOurs}`);
    assert.ok(easyBoot < 0.6, `bootstrap ${easyBoot}`);
    for (const [T, n, a, b] of [[10, 2, 1, 1], [10, 4, 2, 2], [30, 4, 1, 1], [300, 4, 1, 1]] as const) {
      const c = coverage(ours, T, n, a, b, 200);
      assert.ok(c >= 0.9 && c <= 0.995, `T=${T} n=${n} Beta(${a},${b}): coverage ${c}`);
    }
  });
});

void describe('band: classification edges', () => {
  void it('with n = k = 2 and default thresholds: 0/2 too hard, 1/2 in band, 2/2 too easy', () => {
    assert.equal(classifyBand({ attempts: 2, successes: 0 }, 2), 'too-hard');
    assert.equal(classifyBand({ attempts: 2, successes: 1 }, 2), 'in-band');
    assert.equal(classifyBand({ attempts: 2, successes: 2 }, 2), 'too-easy');
  });

  void it('insufficient below k valid attempts or while attempts are pending; broken wins', () => {
    assert.equal(classifyBand({ attempts: 1, successes: 1 }, 2), 'insufficient');
    assert.equal(classifyBand({ attempts: 0, successes: 0 }, 1), 'insufficient');
    assert.equal(classifyBand({ attempts: 2, successes: 2, pending: true }, 2), 'insufficient');
    assert.equal(classifyBand({ attempts: 2, successes: 2, broken: true }, 2), 'broken');
    assert.equal(classifyBand({ attempts: 0, successes: 0, broken: true }, 2), 'broken');
  });

  void it('applies configured thresholds at their edges (low exclusive of in-band, high inclusive of too-easy)', () => {
    const th = parseThresholds('0.25,75%');
    assert.deepEqual(th, { low: 0.25, high: 0.75 });
    assert.equal(classifyBand({ attempts: 4, successes: 1 }, 2, th), 'too-hard');
    assert.equal(classifyBand({ attempts: 4, successes: 2 }, 2, th), 'in-band');
    assert.equal(classifyBand({ attempts: 4, successes: 3 }, 2, th), 'too-easy');
    assert.throws(() => parseThresholds('0.8,0.2'), RangeError);
    assert.throws(() => parseThresholds('1'), RangeError);
  });
});

let seq = 0;
function rec(task: string, attempt: number, outcome: TrialOutcome, extra: Partial<TrialRecord> = {}): TrialRecord {
  return {
    trial: `t${++seq}`, task: `/tasks/${task}`, taskId: task, agent: 'openai:qwen@http://x', model: 'qwen', attempt, outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: '2026-01-01T00:00:00Z',
    durations: { build: 1, agent: 1, verifier: 1 }, logs: 'trials/x', ...extra,
  };
}

void describe('band: trials to tallies', () => {
  void it('counts agent timeouts and agent errors as failed attempts, leaves infra errors and cancels out', () => {
    const set: RecordSet = {
      source: '/runs/a', finished: true, expectedAttempts: 2, retries: 1, records: [
        rec('t1', 1, 'agent-timeout'), rec('t1', 2, 'failed', { error: 'provider error storm' }),
        rec('t2', 1, 'infra-error', { try: 1, infra: { kind: 'engine-unreachable', message: 'x' } }), rec('t2', 1, 'passed', { try: 2 }), rec('t2', 2, 'passed'),
        rec('t3', 1, 'passed'), rec('t3', 2, 'cancelled'),
        rec('t4', 1, 'infra-error', { try: 1, infra: { kind: 'build-failed', message: 'x' } }), rec('t4', 1, 'infra-error', { try: 2, infra: { kind: 'build-failed', message: 'x' } }), rec('t4', 2, 'passed'),
      ],
    };
    const [m] = tallyRecords([set]);
    const by = new Map(m!.tasks.map((t) => [t.id, t]));
    assert.deepEqual(pick(by.get('t1')!), { attempts: 2, successes: 0, infraErrors: 0, pending: false });
    assert.deepEqual(pick(by.get('t2')!), { attempts: 2, successes: 2, infraErrors: 1, pending: false });
    // A cancelled attempt is no attempt, and pass@k waits for every attempt: t3 stays pending.
    assert.deepEqual(pick(by.get('t3')!), { attempts: 1, successes: 1, infraErrors: 0, pending: true });
    // Retries spent on infra: that attempt is in (and out of the denominator).
    assert.deepEqual(pick(by.get('t4')!), { attempts: 1, successes: 1, infraErrors: 2, pending: false });
    const report = bandReport([m!], { k: 2 });
    const rows = new Map(report.models[0]!.tasks.map((t) => [t.id, t]));
    assert.equal(rows.get('t1')!.band, 'too-hard');
    assert.equal(rows.get('t2')!.band, 'too-easy');
    assert.equal(rows.get('t3')!.band, 'insufficient');
    assert.equal(rows.get('t3')!.passAtK, null);
    assert.equal(rows.get('t4')!.band, 'insufficient');
    assert.equal(report.models[0]!.infraErrors, 3);
    assert.equal(report.models[0]!.meanPassAtK, 0.5);
  });

  void it('keeps a task pending while a running run may still retry or add attempts', () => {
    const running: RecordSet = {
      source: '/runs/b', finished: false, expectedAttempts: 2, retries: 2, records: [
        rec('t1', 1, 'passed'), rec('t1', 2, 'infra-error', { try: 1, infra: { kind: 'container-start', message: 'x' } }),
        rec('t2', 1, 'failed'),
        rec('t3', 1, 'passed'), rec('t3', 2, 'failed'),
      ],
    };
    const by = new Map(tallyRecords([running])[0]!.tasks.map((t) => [t.id, t]));
    assert.equal(by.get('t1')!.pending, true);
    assert.equal(by.get('t2')!.pending, true);
    assert.equal(by.get('t3')!.pending, false);
  });

  void it('groups by model and checkpoint, filters by model, and orders checkpoints naturally', () => {
    const records: TrialRecord[] = [];
    const steps = ['step-900', 'step-1200', 'step-300'];
    for (const cp of steps) {
      for (const t of ['a', 'b', 'c', 'd', 'e']) {
        const solved = cp === 'step-300' ? (t === 'a' ? 1 : 0) : 2;
        records.push(rec(t, 1, solved >= 1 ? 'passed' : 'failed', { checkpoint: cp }), rec(t, 2, solved >= 2 ? 'passed' : 'failed', { checkpoint: cp }));
      }
    }
    records.push(rec('a', 1, 'passed', { model: 'claude', agent: 'anthropic:claude' }), rec('a', 2, 'passed', { model: 'claude', agent: 'anthropic:claude' }));
    const set: RecordSet = { source: '/runs/c', finished: true, records };
    const report = bandReport(tallyRecords([set]), { k: 2 });
    assert.deepEqual(report.models.map((m) => `${m.model}@${m.checkpoint ?? ''}`), ['claude@', 'qwen@step-300', 'qwen@step-900', 'qwen@step-1200']);
    assert.deepEqual(bandReport(tallyRecords([set], { model: 'claude' })).models.map((m) => m.model), ['claude']);
    const [series] = checkpointSeries(report.models, { meanAbove: 0.8, inBandBelow: 0.2, window: 2 });
    assert.deepEqual(series!.points.map((p) => p.checkpoint), ['step-300', 'step-900', 'step-1200']);
    assert.equal(series!.saturated, true);
    assert.match(series!.reason!, /step-900.*step-1200/);
    const text = renderBandText({ ...report, series: [series!] });
    assert.match(text, /qwen over checkpoints: step-300 20\.0% → step-900 100\.0% → step-1200 100\.0%\n {2}SATURATED — last 2 checkpoints/);
    const strict = checkpointSeries(report.models, { meanAbove: 0.8, inBandBelow: 0.2, window: 3 })[0]!;
    assert.equal(strict.saturated, false, 'step-300 (mean 0.2, in-band share 0.2) is not saturated');
  });

  void it('flags saturation by a low in-band share as well as by a high mean', () => {
    const m = (checkpoint: string, mean: number, inBand: number): ModelBandReport => ({
      model: 'x', checkpoint, meanPassAtK: mean, interval: null, inBandShare: inBand, infraErrors: 0, tasks: [],
      counts: { 'too-easy': 0, 'in-band': 0, 'too-hard': 0, broken: 0, insufficient: 0 },
    });
    const s = checkpointSeries([m('1', 0.5, 0.1), m('2', 0.5, 0.05)], { meanAbove: 0.8, inBandBelow: 0.2, window: 2 })[0]!;
    assert.equal(s.saturated, true);
    assert.match(s.reason!, /in-band share/);
    assert.equal(checkpointSeries([m('1', 0.5, 0.5), m('2', 0.9, 0.5)], { meanAbove: 0.8, inBandBelow: 0.2, window: 2 })[0]!.saturated, false);
  });

  void it('marks broken tasks from validation and renders text and csv', () => {
    const tallies: TaskTally[] = [
      { id: 'ok', path: '/t/ok', attempts: 2, successes: 1, infraErrors: 0, possiblyInfra: 0, pending: false },
      { id: 'bad', path: '/t/bad', attempts: 2, successes: 2, infraErrors: 1, possiblyInfra: 1, pending: false },
    ];
    const report = bandReport([{ model: 'm', sources: ['/r'], tasks: tallies }], { broken: new Map([['/t/bad', 'nop passes']]) });
    const bad = report.models[0]!.tasks.find((t) => t.id === 'bad')!;
    assert.equal(bad.band, 'broken');
    assert.equal(bad.brokenReason, 'nop passes');
    assert.deepEqual(report.models[0]!.counts, { 'too-easy': 0, 'in-band': 1, 'too-hard': 0, broken: 1, insufficient: 0 });
    const text = renderBandText(report);
    assert.match(text, /broken .* bad .*1 infra; 1 possibly infra; nop passes/);
    const csv = renderBandCsv(report).trim().split('\n');
    assert.equal(csv.length, 3);
    assert.match(csv[0]!, /^model,checkpoint,task,path,attempts,successes,infra_errors/);
    // The last column is the tally's timeout policy: none given here (tallies made by hand carry none).
    assert.match(csv[1]!, /^m,,bad,\/t\/bad,2,2,1,1,1\.0000,1\.0000,.*,broken,,0,$/);
  });
});

function pick(t: TaskTally): Pick<TaskTally, 'attempts' | 'successes' | 'infraErrors' | 'pending'> {
  return { attempts: t.attempts, successes: t.successes, infraErrors: t.infraErrors, pending: t.pending };
}
