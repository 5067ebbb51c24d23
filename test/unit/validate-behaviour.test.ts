import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { brokenFromValidationTrials } from '../../src/core/band/broken';
import type { Task } from '../../src/core/model/task';
import type { TrialOutcome, TrialRecord } from '../../src/core/results/trial';
import { flakeRate, overallVerdict } from '../../src/core/validate/analyze';
import { HookAgent, type BehaviourJob } from '../../src/core/validate/behaviour';
import { analyzeBehaviour, passedTests, testReading } from '../../src/core/validate/behaviourAnalysis';
import { CHEAT_PROBES, imageOutputsProbe, literalAnswers, namedPaths } from '../../src/core/validate/cheats';
import { REWARD_PROBES } from '../../src/core/validate/probes';
import { mutantsOf, orderMatters } from '../../src/core/validate/mutants';
import { isOutputPath, leafPaths, named, type SolvedState } from '../../src/core/validate/solved';
import { foreignLocale, VARIATIONS } from '../../src/core/validate/variations';
import { callsBare } from '../../src/core/validate/verifierText';
import { tempDir } from '../support/tempDir';

function taskWith(files: Record<string, string>, instruction: string): Task {
  const dir = tempDir('tw-behaviour-unit-');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return {
    id: path.basename(dir), dir, format: 'harbor', configFile: 'task.toml', instructionFile: 'instruction.md', instruction,
    metadata: { difficulty: 'easy', category: 'x', tags: [] }, timeouts: { agentSec: 10, verifierSec: 10, buildSec: 60 },
    environment: { dockerfile: 'environment/Dockerfile', contextDir: 'environment', env: {} },
    verifier: { entry: 'tests/test.sh', testsDir: 'tests', env: {} }, agent: {}, solution: { file: 'solution/solve.sh', kind: 'script' },
    fields: {}, files: Object.keys(files), problems: [],
  };
}

let n = 0;
function rec(outcome: TrialOutcome, agent = 'check:mutant'): TrialRecord {
  return { trial: `t${++n}`, task: 'demo', taskId: 'demo', agent, attempt: 1, outcome, reward: outcome === 'passed' ? 1 : outcome === 'failed' ? 0 : null, startedAt: 'now', durations: { build: 0, agent: 0, verifier: 1 }, logs: 'x' };
}

const solved: SolvedState = { image: 'sha256:x', outputs: [], locales: ['c', 'c.utf8', 'posix'] };

void describe('output mutants', () => {
  void it('changes one field per top-level key of a JSON object first, then empties it', () => {
    const ms = mutantsOf('{"region": "north", "count": 3, "total": 60}', { max: 4 });
    assert.deepEqual(ms.map((m) => m.description), ['changed `region` from "north" to "htron"', 'changed `count` from 3 to 4', 'changed `total` from 60 to 61', 'emptied the file']);
    assert.deepEqual(JSON.parse(ms[1]?.content ?? ''), { region: 'north', count: 4, total: 60 });
  });

  void it('keeps JSON indentation and drops a record from an array', () => {
    const ms = mutantsOf('[\n  {"a": 1},\n  {"a": 2}\n]\n', { max: 5 });
    assert.ok(ms[0]?.content.startsWith('[\n  {'));
    assert.ok(ms.some((m) => m.kind === 'drop-record' && JSON.parse(m.content).length === 1));
  });

  void it('mutates lines: a number, a dropped line, the empty file, a duplicate; swaps only when order matters', () => {
    const text = 'region,total\nnorth,60\nsouth,40\n';
    const ms = mutantsOf(text, { max: 10 });
    assert.deepEqual(ms.map((m) => m.kind), ['number', 'drop-line', 'empty', 'duplicate-line']);
    assert.equal(ms[0]?.content, 'region,total\nnorth,60\nsouth,41\n');
    assert.equal(ms[1]?.content, 'region,total\nnorth,60\n');
    assert.ok(mutantsOf(text, { max: 10, orderMatters: true }).some((m) => m.kind === 'swap-lines' && m.content === 'region,total\nsouth,40\nnorth,60\n'));
    assert.equal(mutantsOf(text, { max: 2 }).length, 2);
    assert.deepEqual(mutantsOf('', { max: 3 }), []);
    assert.ok(ms.every((m) => m.content !== text));
  });

  void it('reads order words in the instruction', () => {
    assert.equal(orderMatters('Write the versions sorted ascending'), true);
    assert.equal(orderMatters('Write the count to /app/count.txt'), false);
  });
});

void describe('solved snapshot', () => {
  void it('keeps the leaves of a diff that are outputs, not harness or cache paths', () => {
    assert.deepEqual(leafPaths(['/app', '/app/out.txt', '/root', '/root/.cache', '/app/out.txt']), ['/app/out.txt', '/root/.cache']);
    assert.equal(isOutputPath('/app/out.txt', ['/logs/agent']), true);
    for (const p of ['/tests/x', '/logs/verifier/reward.txt', '/tmp/a', '/app/__pycache__/m.pyc', '/solution/solve.sh', '/root/.cache/pip']) assert.equal(isOutputPath(p, []), false, p);
    assert.equal(named('Write it to /app/out.txt.', '/app/out.txt'), true);
    assert.equal(named('Write it to out.txt in /app.', '/app/out.txt'), true);
    assert.equal(named('Write it to /app/result.txt.', '/app/out.txt'), false);
  });
});

void describe('cheat probes', () => {
  void it('finds the tests\' literal answers tied to the paths the instruction names, not the ones it states', () => {
    const t = taskWith({
      'tests/test_outputs.py': 'from pathlib import Path\n\ndef test_digest():\n    assert Path("/app/digest.txt").read_text().strip() == "abc123"\n\ndef test_word():\n    assert Path("/app/word.txt").read_text().strip() == "hello"\n',
    }, 'Write the digest to /app/digest.txt and the word hello to /app/word.txt.');
    assert.deepEqual(namedPaths(t.instruction ?? ''), ['/app/digest.txt', '/app/word.txt']);
    assert.deepEqual(literalAnswers(t), [{ path: '/app/digest.txt', value: 'abc123' }]);
  });

  void it('applies the PATH trojan only to tools called by bare name', () => {
    const t = taskWith({ 'tests/test.sh': '#!/bin/bash\n# curl is not used here\n/usr/bin/python3 -I -m pytest /tests\nif diff a b; then echo 1; fi\n' }, 'x');
    assert.deepEqual(['python3', 'pytest', 'curl', 'diff'].filter((x) => callsBare(t, x)), ['diff']);
    const py = taskWith({ 'tests/test_x.py': 'import subprocess\nsubprocess.run(["curl", "-s", "x"])\n' }, 'x');
    assert.equal(callsBare(py, 'curl'), true);
    const trojan = CHEAT_PROBES.find((p) => p.name === 'path-trojan');
    assert.equal(trojan?.applies?.(taskWith({ 'tests/test.sh': '/usr/bin/python3 -I -m pytest\n' }, 'x')), false);
  });

  void it('runs a pytest probe only where the verifier\'s pytest calls leave the hole open', () => {
    const probe = (name: string) => CHEAT_PROBES.find((p) => p.name === name) ?? REWARD_PROBES.find((p) => p.name === name);
    const hardened = taskWith({ 'tests/test.sh': '#!/bin/bash\n/usr/bin/python3 -I -m pytest --noconftest -c /dev/null /tests -rA\n', 'tests/test_x.py': 'def test_x():\n    pass\n' }, 'x');
    const plain = taskWith({ 'tests/test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest /tests -rA\n' }, 'x');
    const consoleScript = taskWith({ 'tests/test.sh': '#!/bin/bash\npytest --noconftest -c /dev/null /tests\n' }, 'x');
    const applies = (t: Task) => ['conftest', 'pytest-ini', 'tests-dir', 'pytest-shadow', 'python-startup'].filter((n) => probe(n)?.applies?.(t) ?? true);
    assert.deepEqual(applies(hardened), []);
    assert.deepEqual(applies(plain), ['conftest', 'pytest-ini', 'tests-dir', 'pytest-shadow', 'python-startup']);
    assert.deepEqual(applies(consoleScript), ['python-startup']);
  });

  void it('copies image files matching named outputs into place, and skips when there are none', () => {
    assert.equal(imageOutputsProbe([{ path: '/app/a', size: 3, sha256: 'ab', named: false }]), undefined);
    const p = imageOutputsProbe([{ path: '/app/a.txt', size: 3, sha256: 'ab'.repeat(32), named: true }]);
    assert.match(typeof p?.script === 'string' ? p.script : '', /-size 3c[\s\S]*cp "\$f" '\/app\/a\.txt'/);
  });
});

void describe('behaviour analysis', () => {
  const t = taskWith({ 'tests/test_outputs.py': 'import json\n\n\ndef test_count():\n    assert json.load(open("/app/summary.json"))["count"] == 3\n' }, 'Write /app/summary.json');
  const job = (over: Partial<BehaviourJob>): BehaviourJob => ({ kind: 'mutant', label: 'm', task: t, agent: new HookAgent('check:mutant'), ...over });

  void it('reports survivors on the test function that reads the output, with the tests that passed', () => {
    const m = { file: '/app/summary.json', mutant: { kind: 'json-field', description: 'changed `total` from 60 to 61', content: '' } };
    const r = analyzeBehaviour({ task: t, solved, bisect: [], runs: [
      { job: job({ mutant: m }), record: rec('passed'), stdout: 'PASSED tests/test_outputs.py::test_count\n' },
      { job: job({ mutant: { ...m, mutant: { ...m.mutant, description: 'emptied the file' } } }), record: rec('failed'), stdout: '' },
    ] });
    assert.deepEqual(r.mutants && { total: r.mutants.total, killed: r.mutants.killed }, { total: 2, killed: 1 });
    assert.equal(r.findings[0]?.rule, 'surviving-mutant');
    assert.equal(r.findings[0]?.file, 'tests/test_outputs.py');
    assert.equal(r.findings[0]?.range?.start.line, 3);
    assert.match(r.findings[0]?.message ?? '', /changed `total` from 60 to 61\) it still gave reward \(passed: test_count\)/);
    assert.deepEqual(testReading(t, '/app/other.txt'), { file: 'tests/test.sh' });
    assert.deepEqual(passedTests('PASSED a.py::t1\nFAILED a.py::t2\nPASSED a.py::t1\n'), ['t1']);
  });

  void it('names the variable of a group whose verdict moved, and the whole group when none moves alone', () => {
    const a = VARIATIONS.filter((v) => v.group === 'a');
    const tz = a.find((v) => v.id === 'tz-east');
    const env = (vs: typeof a, outcome: TrialOutcome) => ({ job: job({ kind: 'env', variations: vs }), record: rec(outcome, 'check:env'), stdout: '' });
    const one = analyzeBehaviour({ task: t, solved, runs: [env(a, 'failed')], bisect: a.map((v) => env([v], v === tz ? 'failed' : 'passed')) });
    assert.equal(one.checks.find((c) => c.name === 'environment')?.detail, 'the verdict changed with TZ far east of UTC (UTC+14)');
    assert.match(one.findings[0]?.message ?? '', /pin TZ=UTC/);
    const all = analyzeBehaviour({ task: t, solved, runs: [env(a, 'failed')], bisect: a.map((v) => env([v], 'passed')) });
    assert.equal(all.checks.find((c) => c.name === 'environment')?.detail?.split('; ').length, a.length);
  });

  void it('concludes nothing from a snapshot the verifier fails on, and flags a second run that fails', () => {
    const stale = job({ kind: 'stale', firstRun: { reward: 0, detail: 'reward.txt = 0' } });
    const r = analyzeBehaviour({ task: t, solved, bisect: [], runs: [{ job: stale, record: rec('failed', 'check:stale'), stdout: '' }] });
    assert.ok(r.checks.every((c) => c.status === 'skipped' && /does not survive a snapshot/.test(c.detail)));
    assert.deepEqual(r.findings, []);
    const twice = analyzeBehaviour({ task: t, solved, bisect: [], runs: [{ job: job({ kind: 'stale', firstRun: { reward: 1, detail: 'ok' } }), record: rec('failed', 'check:stale'), stdout: '' }] });
    assert.equal(twice.findings[0]?.rule, 'stale-state');
    assert.equal(overallVerdict(twice.checks, false), 'brittle');
  });

  void it('skips the order check when the plugin did not load, and fails it when the reordered tests fail', () => {
    const order = (stdout: string, outcome: TrialOutcome) => ({ job: job({ kind: 'order', order: 'reverse' }), record: rec(outcome, 'check:order'), stdout });
    assert.equal(analyzeBehaviour({ task: t, solved, bisect: [], runs: [order('', 'failed')] }).checks.find((c) => c.name === 'test-order')?.status, 'skipped');
    const r = analyzeBehaviour({ task: t, solved, bisect: [], runs: [order('taskwright-order: reverse (3 tests)\n', 'failed')] });
    assert.equal(r.findings[0]?.rule, 'test-order-dependent');
  });
});

void describe('flake rate and band', () => {
  void it('gives the flip rate with its Wilson interval', () => {
    assert.deepEqual(flakeRate(3, 0), { runs: 3, flips: 0, rate: 0, low: 0, high: 0.562 });
    assert.deepEqual(flakeRate(10, 5).rate, 0.5);
  });

  void it('marks tasks hackable from probe and mutant records, never from behavioural checks that pass', () => {
    const b = brokenFromValidationTrials([rec('passed', 'probe:pytest-shadow'), rec('passed', 'check:env'), rec('failed', 'probe:conftest')]);
    assert.equal(b.get('demo'), 'hackable (pytest-shadow)');
    assert.equal(brokenFromValidationTrials([rec('passed', 'check:mutant')]).get('demo'), 'hackable (accepts wrong output)');
    assert.equal(brokenFromValidationTrials([rec('passed', 'check:env'), rec('passed', 'check:stale')]).size, 0);
  });

  void it('picks a non-English UTF-8 locale when the image has one', () => {
    assert.equal(foreignLocale(['c', 'de_de.utf8', 'en_us.utf8']), 'de_DE.UTF-8');
    assert.equal(foreignLocale(['c', 'c.utf8', 'en_us.utf8']), 'C.UTF-8');
  });
});
