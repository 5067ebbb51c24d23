import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PRECISION, precisionHoverText, precisionNote, type PrecisionData } from '../../src/core/audit/precision';
import { tempDir } from '../support/tempDir';

const ROOT = path.resolve(__dirname, '../../..');

const data: PrecisionData = {
  version: 1, seed: 20261202, date: '2026-12-02', source: 'bench/ACCURACY.md',
  rules: {
    'one-sev': [{ severity: 'warning', findings: 212, tasks: 150, sampled: 20, labelled: 20, true: 19, precision: 0.95, low: 0.76, high: 0.99 }],
    'part-labelled': [{ severity: 'error', findings: 40, tasks: 30, sampled: 20, labelled: 10, true: 7, precision: 0.7, low: 0.4, high: 0.89 }],
    'two-sev': [
      { severity: 'error', findings: 11, tasks: 9, sampled: 11, labelled: 11, true: 11, precision: 1, low: 0.74, high: 1 },
      { severity: 'warning', findings: 46, tasks: 36, sampled: 20, labelled: 20, true: 10, precision: 0.5, low: 0.3, high: 0.7 },
    ],
    unlabelled: [{ severity: 'warning', findings: 5, tasks: 5, sampled: 5, labelled: 0, true: 0, precision: null, low: null, high: null }],
  },
};

void describe('measured precision text (docs pages and hovers)', () => {
  void it('states the figure, the sample, the finding count and the seed from the data', () => {
    assert.equal(precisionNote('one-sev', data), 'Measured precision: 0.95 (19/20 sampled of 212 findings on real tasks, seed 20261202; bench/ACCURACY.md)');
    assert.equal(precisionNote('part-labelled', data), 'Measured precision: 0.70 (7/10 labelled of 20 sampled of 40 findings on real tasks, seed 20261202; bench/ACCURACY.md)');
  });

  void it('gives each severity of a graded rule, or the one the diagnostic has', () => {
    assert.equal(precisionNote('two-sev', data), 'Measured precision: error 1.00 (11/11 sampled of 11 findings), warning 0.50 (10/20 sampled of 46 findings) — on real tasks, seed 20261202; bench/ACCURACY.md');
    assert.equal(precisionNote('two-sev', data, 'warning'), 'Measured precision: 0.50 (10/20 sampled of 46 findings on real tasks, seed 20261202; bench/ACCURACY.md)');
    assert.equal(precisionHoverText('two-sev', 'error', data), '`two-sev` — Measured precision: 1.00 (11/11 sampled of 11 findings on real tasks, seed 20261202; bench/ACCURACY.md)');
  });

  void it('adds the blind figure (first measurement on unseen tasks) of the severity shown, when there is one', () => {
    const withBlind: PrecisionData = {
      ...data,
      blind: {
        'one-sev': [{ severity: 'warning', labelled: 19, true: 4, sets: 2, precision: 0.211, low: 0.085, high: 0.433 }],
        'two-sev': [{ severity: 'error', labelled: 10, true: 7, sets: 1, precision: 0.7, low: 0.4, high: 0.89 }],
        unlabelled: [{ severity: 'warning', labelled: 3, true: 3, sets: 1, precision: 1, low: 0.44, high: 1 }],
      },
    };
    assert.equal(precisionNote('one-sev', withBlind), 'Measured precision: 0.95 (19/20 sampled of 212 findings on real tasks, seed 20261202; bench/ACCURACY.md); blind (unseen tasks, before the fixes they led to): 0.21 (4/19, 2 sets)');
    assert.equal(precisionNote('two-sev', withBlind), 'Measured precision: error 1.00 (11/11 sampled of 11 findings), warning 0.50 (10/20 sampled of 46 findings) — on real tasks, seed 20261202; bench/ACCURACY.md; blind (unseen tasks, before the fixes they led to): error 0.70 (7/10, 1 set)');
    assert.equal(precisionHoverText('two-sev', 'error', withBlind), '`two-sev` — Measured precision: 1.00 (11/11 sampled of 11 findings on real tasks, seed 20261202; bench/ACCURACY.md); blind (unseen tasks, before the fixes they led to): 0.70 (7/10, 1 set)');
    // The warning's hover has no blind figure of its own severity: none is borrowed from the error.
    assert.equal(precisionNote('two-sev', withBlind, 'warning'), 'Measured precision: 0.50 (10/20 sampled of 46 findings on real tasks, seed 20261202; bench/ACCURACY.md)');
    assert.equal(precisionNote('unlabelled', withBlind), 'Measured precision: not yet measured on real tasks (bench/ACCURACY.md). Blind (unseen tasks, before the fixes they led to): 1.00 (3/3, 1 set).');
  });

  void it('says "not yet measured" for a rule without labelled sample members', () => {
    assert.equal(precisionNote('unlabelled', data), 'Measured precision: not yet measured on real tasks (bench/ACCURACY.md).');
    assert.equal(precisionNote('no-such-rule', data), 'Measured precision: not yet measured on real tasks (bench/ACCURACY.md).');
  });

  void it('the generated line of a rule page is the note of src/core/audit/precision.json', () => {
    const docs = path.join(ROOT, 'docs/rules');
    const pages = fs.readdirSync(docs).filter((f) => f.endsWith('.md') && f !== 'README.md');
    assert.ok(pages.length > 10);
    let withLine = 0;
    for (const page of pages) {
      const rule = page.slice(0, -3);
      const text = fs.readFileSync(path.join(docs, page), 'utf8');
      const m = /<!-- precision:begin -->\n(.*)\n<!-- precision:end -->/.exec(text);
      // A page added since the last `run.mjs --write` may lack the line only while its rule is unmeasured.
      if (!m) {
        assert.equal(PRECISION.rules[rule], undefined, `${page}: measured in precision.json but the page has no generated line (run node bench/accuracy/run.mjs --write)`);
        continue;
      }
      withLine++;
      assert.equal(m[1], precisionNote(rule, PRECISION), `${page}: out of date with precision.json`);
    }
    assert.ok(withLine > 10, 'the rule pages carry the generated precision line');
  });
});

void describe('bench/accuracy sampling', () => {
  void it('orders findings by the seeded hash, 20 per (rule, severity), errors and warnings only', async () => {
    const lib = await import(path.join(ROOT, 'bench/accuracy/lib.mjs')) as {
      precisionSample: (f: object[], seed: number) => Map<string, { task: string }[]>;
      perCorpusQuota: (n: number, total: number) => number;
      wilson: (k: number, n: number) => { low: number; high: number } | null;
      sha256: (s: string) => string;
    };
    const findings = Array.from({ length: 30 }, (_, i) => ({ corpus: 'c', task: `t${i}`, rule: 'r', severity: 'warning', file: 'tests/test.sh', line: i + 1 }));
    findings.push({ corpus: 'c', task: 'x', rule: 'r', severity: 'info', file: 'a', line: 1 });
    const s = lib.precisionSample(findings, 20261202);
    assert.deepEqual([...s.keys()], ['r\u0000warning']);
    const got = s.get('r\u0000warning')?.map((f) => f.task) ?? [];
    const want = findings.filter((f) => f.severity === 'warning')
      .map((f) => ({ t: f.task, h: lib.sha256(`20261202:c/${f.task}/tests/test.sh:${f.line}:r`) }))
      .sort((a, b) => (a.h < b.h ? -1 : 1)).slice(0, 20).map((x) => x.t);
    assert.deepEqual(got, want);
    assert.equal(lib.perCorpusQuota(3566, 5513), 39);
    assert.equal(lib.perCorpusQuota(23, 5513), 3);
    assert.equal(lib.perCorpusQuota(2, 5513), 2);
    const w = lib.wilson(19, 20);
    assert.ok(w && Math.abs(w.low - 0.7639) < 1e-3 && Math.abs(w.high - 0.9911) < 1e-3);
  });
});

void describe('bench/accuracy label join', () => {
  type Labels = { findings: object[]; defects: object[]; clean: object[] };
  type Finding = { corpus: string; task: string; rule: string; class: string; file: string | null; line: number | null };
  const load = async () => await import(path.join(ROOT, 'bench/accuracy/labels.mjs')) as {
    loadLabels: (dir: string) => Labels;
    finds: (f: Finding, d: object, logical?: (x: { file: string | null }, line: number) => number) => boolean;
    joinFindingLabels: (labels: object[], byKey: Map<string, Finding>, fpOf: (f: Finding) => string | null) => { verdicts: Map<string, unknown>; stale: object[]; gone: object[] };
  };

  void it('finds a defect at its line ±1 with the right class, anywhere in the file when file-level', async () => {
    const { finds } = await load();
    const f: Finding = { corpus: 'c', task: 't', rule: 'r', class: 'misalignment', file: 'tests/test.sh', line: 5 };
    const d = { corpus: 'c', task: 't', class: 'misalignment', file: 'tests/test.sh', line: 4 };
    assert.equal(finds(f, d), true);
    assert.equal(finds(f, { ...d, line: 7 }), false);
    assert.equal(finds(f, { ...d, class: 'brittleness' }), false);
    assert.equal(finds(f, { ...d, line: null }), true);
    assert.equal(finds(f, { ...d, file: 'tests/other.py', line: null }), false);
    assert.equal(finds(f, { ...d, file: null, line: null }), true);
    // A file-level finding (no line) matches a reader's "line 1" of that file, and no other line.
    const whole: Finding = { ...f, line: null };
    assert.equal(finds(whole, { ...d, line: 1 }), true);
    assert.equal(finds(whole, { ...d, line: 4 }), false);
  });

  void it('takes two lines of one command continued with a backslash for the same place (logicalLineStart)', async () => {
    const { finds } = await load();
    const { logicalLineStart } = await import(path.join(ROOT, 'bench/accuracy/lib.mjs')) as { logicalLineStart: () => (abs: string, line: number) => number };
    const dir = tempDir('tw-logical-');
    try {
      const file = path.join(dir, 'test.sh');
      fs.writeFileSync(file, '#!/bin/bash\nset -u\nuvx \\\n  -p 3.13 \\\n  -w pytest==8.4.1 \\\n  pytest /tests/test_outputs.py -rA\necho done\n');
      const at = logicalLineStart();
      assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => at(file, n)), [1, 2, 3, 3, 3, 3, 7]);
      const logical = (_x: { file: string | null }, line: number): number => at(file, line);
      const f: Finding = { corpus: 'c', task: 't', rule: 'pytest-collection-hijack', class: 'misalignment', file: 'tests/test.sh', line: 6 };
      const d = { corpus: 'c', task: 't', class: 'misalignment', file: 'tests/test.sh', line: 3 };
      assert.equal(finds(f, d), false);
      assert.equal(finds(f, d, logical), true);
      assert.equal(finds(f, { ...d, line: 7 }, logical), true);
      assert.equal(finds(f, { ...d, line: 2 }, logical), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('reports a label whose line text changed as stale and one with no finding as gone', async () => {
    const { joinFindingLabels } = await load();
    const f: Finding = { corpus: 'c', task: 't', rule: 'r', class: 'invalidity', file: 'a', line: 2 };
    const key = ['c', 't', 'r', 'a', '2'].join('\u0000');
    const byKey = new Map([[key, f]]);
    const base = { corpus: 'c', task: 't', rule: 'r', file: 'a', line: 2, verdict: 'true', why: 'x' };
    const j = joinFindingLabels([{ ...base, fp: 'aaaa' }, { ...base, line: 9, fp: 'bbbb' }], byKey, () => 'cccc');
    assert.equal(j.verdicts.size, 0);
    assert.equal(j.stale.length, 1);
    assert.equal(j.gone.length, 1);
    const ok = joinFindingLabels([{ ...base, fp: 'cccc' }], byKey, () => 'cccc');
    assert.equal(ok.verdicts.size, 1);
  });

  void it('rejects a malformed label file, naming the file and the entry', async () => {
    const { loadLabels } = await load();
    const dir = tempDir('tw-labels-');
    try {
      fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify({ version: 1, defects: [{ corpus: 'c', task: 't', file: null, line: null, class: 'nope', rule: null, why: 'w' }] }));
      assert.throws(() => loadLabels(dir), /x\.json: defects\[0\]: "class" must be one of/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

void describe('bench/accuracy corpus sets', () => {
  type SetDef = { id: string; source: string; frozen: string | null };
  const lib = async () => await import(path.join(ROOT, 'bench/accuracy/lib.mjs')) as {
    SETS: SetDef[];
    setOf: (c: { set?: string; heldOut?: boolean }) => string;
  };

  void it('maps a corpus to its set: "set", else the old heldOut flag, else dev', async () => {
    const { setOf } = await lib();
    assert.equal(setOf({ set: 'blind2' }), 'blind2');
    assert.equal(setOf({ set: 'blind3' }), 'blind3');
    assert.equal(setOf({ set: 'blind4' }), 'blind4');
    assert.equal(setOf({ heldOut: true }), 'heldout');
    assert.equal(setOf({ set: 'heldout', heldOut: false }), 'heldout');
    assert.equal(setOf({}), 'dev');
  });

  void it('every corpus of corpora.json is in a known set, each set has its own label file and frozen file', async () => {
    const { SETS, setOf } = await lib();
    const ids = SETS.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(SETS.map((s) => s.source)).size, SETS.length);
    const frozen = SETS.map((s) => s.frozen).filter((f): f is string => f !== null);
    assert.equal(new Set(frozen).size, frozen.length);
    const corpora = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/accuracy/corpora.json'), 'utf8')) as { name: string; set?: string; heldOut?: boolean }[];
    for (const c of corpora) assert.ok(ids.includes(setOf(c)), `${c.name}: unknown set ${setOf(c)}`);
    assert.ok(corpora.some((c) => setOf(c) === 'blind2'));
    assert.equal(corpora.filter((c) => setOf(c) === 'blind3').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind4').length, 17);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind5').length, 11);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind6').length, 12);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind7').length, 12);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind8').length, 12);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind9').length, 12);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind10').length, 14);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind11').length, 8);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind12').length, 2);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind13').length, 4);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind14').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind15').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind16').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind17').length, 5);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind18').length, 4);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind19').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind20').length, 6);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind21').length, 5);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind22').length, 7);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind23').length, 1);
    assert.equal(corpora.filter((c) => setOf(c) === 'blind24').length, 1);
    // The first blind measurement stays where ACCURACY.md links it.
    assert.ok(fs.existsSync(path.join(ROOT, 'bench/accuracy', SETS.find((s) => s.id === 'heldout')?.frozen ?? '')));
  });

  for (const [id, prev, constant] of [['blind3', 'blind2', 'BLIND3_TASK_SAMPLE'], ['blind4', 'blind3', 'BLIND4_TASK_SAMPLE'], ['blind5', 'blind4', 'BLIND5_TASK_SAMPLE'], ['blind6', 'blind5', 'BLIND6_TASK_SAMPLE'], ['blind7', 'blind6', 'BLIND7_TASK_SAMPLE'], ['blind8', 'blind7', 'BLIND8_TASK_SAMPLE'], ['blind9', 'blind8', 'BLIND9_TASK_SAMPLE'], ['blind10', 'blind9', 'BLIND10_TASK_SAMPLE'], ['blind11', 'blind10', 'BLIND11_TASK_SAMPLE'], ['blind12', 'blind11', 'BLIND12_TASK_SAMPLE'], ['blind13', 'blind12', 'BLIND13_TASK_SAMPLE'], ['blind14', 'blind13', 'BLIND14_TASK_SAMPLE'], ['blind15', 'blind14', 'BLIND15_TASK_SAMPLE'], ['blind16', 'blind15', 'BLIND16_TASK_SAMPLE'], ['blind17', 'blind16', 'BLIND17_TASK_SAMPLE'], ['blind18', 'blind17', 'BLIND18_TASK_SAMPLE'], ['blind19', 'blind18', 'BLIND19_TASK_SAMPLE'], ['blind20', 'blind19', 'BLIND20_TASK_SAMPLE'], ['blind21', 'blind20', 'BLIND21_TASK_SAMPLE'], ['blind22', 'blind21', 'BLIND22_TASK_SAMPLE'], ['blind23', 'blind22', 'BLIND23_TASK_SAMPLE'], ['blind24', 'blind23', 'BLIND24_TASK_SAMPLE']] as const) {
    void it(`${id} is read like ${prev}: 10 per stratum, ceil(10 × share) tasks, its own label and frozen file`, async () => {
      const m = await import(path.join(ROOT, 'bench/accuracy/lib.mjs')) as { SETS: (SetDef & { size: number; target: number; cleanAnywhere: boolean })[]; HELDOUT_PRECISION_SAMPLE: number } & Record<typeof constant, number>;
      const set = m.SETS.find((s) => s.id === id);
      assert.ok(set);
      assert.deepEqual({ source: set.source, frozen: set.frozen, size: set.size, target: set.target, cleanAnywhere: set.cleanAnywhere }, { source: `${id}.json`, frozen: `${id}-blind.json`, size: m.HELDOUT_PRECISION_SAMPLE, target: m[constant], cleanAnywhere: true });
      assert.equal(m[constant], 10);
      assert.ok(m.SETS.findIndex((s) => s.id === id) > m.SETS.findIndex((s) => s.id === prev));
    });
  }

  void it('tests severity caps from blind evidence by leaving one set out: caps come only from the other sets', async () => {
    const m = await import(path.join(ROOT, 'bench/accuracy/blindSummary.mjs')) as {
      cappedSeverity: (s: string, t: number, n: number) => string;
      leaveOneSetOut: (b: Record<string, { rules: { rule: string; severity: string; true: number; labelled: number }[] }>) => { rows: { id: string; before: Record<string, number[]>; after: Record<string, number[]> }[]; pooled: { before: Record<string, number[]>; after: Record<string, number[]> } };
    };
    assert.equal(m.cappedSeverity('error', 20, 20), 'error');
    assert.equal(m.cappedSeverity('error', 12, 15), 'warning');
    assert.equal(m.cappedSeverity('warning', 5, 20), 'info');
    assert.equal(m.cappedSeverity('warning', 2, 3), 'warning');
    const blinds = {
      a: { rules: [{ rule: 'bad', severity: 'warning', true: 0, labelled: 10 }, { rule: 'good', severity: 'error', true: 10, labelled: 10 }] },
      b: { rules: [{ rule: 'bad', severity: 'warning', true: 1, labelled: 4 }, { rule: 'new', severity: 'error', true: 0, labelled: 3 }] },
    };
    const { rows, pooled } = m.leaveOneSetOut(blinds);
    // Set b keeps its own `bad` findings out of the evidence: a's 0/10 demotes them; `new` has no evidence and stays.
    assert.deepEqual(rows.find((r) => r.id === 'b'), { id: 'b', before: { error: [0, 3], warning: [1, 4] }, after: { error: [0, 3], warning: [0, 0] } });
    // Set a: b's 1/4 for `bad` (upper bound 0.70) demotes a's too; `good` has no evidence in b.
    assert.deepEqual(rows.find((r) => r.id === 'a'), { id: 'a', before: { error: [10, 10], warning: [0, 10] }, after: { error: [10, 10], warning: [0, 0] } });
    assert.deepEqual(pooled.after, { error: [10, 13], warning: [0, 0] });
  });

  void it('puts a blind section before the development section once, then replaces it in place', async () => {
    const report = await import(path.join(ROOT, 'bench/accuracy/report.mjs')) as {
      withBlindSection: (md: string, id: string, lines: string[]) => string;
    };
    const md = '# Accuracy\n\n## Held-out (blind)\n\nold\n\n## Development corpora (in-sample)\n\ndev\n';
    const once = report.withBlindSection(md, 'blind2', ['## Second held-out (blind)', '', 'v1']);
    assert.equal(once, '# Accuracy\n\n## Held-out (blind)\n\nold\n\n<!-- blind:blind2:begin -->\n## Second held-out (blind)\n\nv1\n<!-- blind:blind2:end -->\n\n## Development corpora (in-sample)\n\ndev\n');
    const twice = report.withBlindSection(once, 'blind2', ['## Second held-out (blind)', '', 'v2']);
    assert.equal(twice, once.replace('v1', 'v2'));
    assert.equal(report.withBlindSection('# A\n', 'x', ['s']), '# A\n\n<!-- blind:x:begin -->\ns\n<!-- blind:x:end -->\n');
  });
  for (const [id, heading] of [['blind2', 'Second held-out'], ['blind3', 'Third held-out'], ['blind4', 'Fourth held-out'], ['blind5', 'Fifth held-out'], ['blind6', 'Sixth held-out'], ['blind7', 'Seventh held-out'], ['blind8', 'Eighth held-out'], ['blind9', 'Ninth held-out'], ['blind10', 'Tenth held-out'], ['blind11', 'Eleventh held-out'], ['blind12', 'Twelfth held-out'], ['blind13', 'Thirteenth held-out'], ['blind14', 'Fourteenth held-out'], ['blind15', 'Fifteenth held-out'], ['blind16', 'Sixteenth held-out'], ['blind17', 'Seventeenth held-out'], ['blind18', 'Eighteenth held-out'], ['blind19', 'Nineteenth held-out'], ['blind20', 'Twentieth held-out'], ['blind21', 'Twenty-first held-out'], ['blind22', 'Twenty-second held-out'], ['blind23', 'Twenty-third held-out'], ['blind24', 'Twenty-fourth held-out']] as const) {
    void it(`freezes ${id} once: its file and its ACCURACY.md section, then refuses to overwrite`, async () => {
      const report = await import(path.join(ROOT, 'bench/accuracy/report.mjs')) as {
        writeBlind: (s: object, root: string, notes?: string[]) => void;
      };
      const root = tempDir('tw-blind-');
      try {
        fs.mkdirSync(path.join(root, 'bench/accuracy'), { recursive: true });
        fs.writeFileSync(path.join(root, 'bench/ACCURACY.md'), '# Accuracy\n\n## Development corpora (in-sample)\n\ndev\n');
        const sev = { findings: 2, rules: 1, rulesMeasured: 1, findingsCovered: 2, true: 1, labelled: 2, pooled: 0.5, ci: { p: 0.5, low: 0.09, high: 0.91 }, weighted: 0.5 };
        const stats = {
          date: '2026-12-04', set: { id, title: id, size: 10, target: 10, source: `${id}.json`, frozen: `${id}-blind.json` },
          corpora: [{ repo: 'o/r', commit: 'a'.repeat(40), paths: ['.'], tasks: 3, audited: 3, findings: 2, loudTasks: 1, sampled: 3 }],
          totals: { error: sev, warning: sev },
          rows: [{ rule: 'r', severity: 'warning', findings: 2, tasks: 1, sampled: 2, labelled: 2, true: 1, precision: 0.5, ci: sev.ci }],
          recall: { sampleTasks: [{}, {}, {}], read: 3, random: { defects: 4, found: 1, foundWithInfo: 2, recall: 0.25, ci: sev.ci, byClass: {} }, clean: { tasks: 1, loud: 0, share: 0, ci: sev.ci, loudTasks: [] } },
        };
        report.writeBlind(stats, root, ['a note']);
        const frozen = JSON.parse(fs.readFileSync(path.join(root, `bench/accuracy/${id}-blind.json`), 'utf8')) as { set: string; notes: string[]; recall: { found: number } };
        assert.equal(frozen.set, id);
        assert.deepEqual(frozen.notes, ['a note']);
        assert.equal(frozen.recall.found, 1);
        const md = fs.readFileSync(path.join(root, 'bench/ACCURACY.md'), 'utf8');
        assert.ok(md.includes(`<!-- blind:${id}:begin -->\n## ${heading} (blind)\n`), md);
        assert.match(md, /\| recall \(random task sample, 3 tasks read\) \| 1\/4 = \*\*0\.25\*\* \|/);
        assert.match(md, /- a note\n/);
        assert.ok(md.indexOf(`blind:${id}:end`) < md.indexOf('## Development corpora'));
        assert.throws(() => report.writeBlind(stats, root), new RegExp(`${id}-blind\\.json exists: a blind measurement is frozen once`));
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
