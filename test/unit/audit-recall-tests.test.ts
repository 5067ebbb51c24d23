import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';
import { makeTask, removeTemp, type CaseBase } from './audit-helpers';
import { RC_TEST, ST_FILES, ST_INSTRUCTION, ST_TEST, ST_TEXT_BODY } from './audit-cases-recall-tests';

/** `rule severity file:line` (1-based) of every finding of the given rules. */
async function findings(base: CaseBase, files: Files, rules: readonly string[], withMessage = false): Promise<string[]> {
  const dir = await makeTask(base, files);
  try {
    const all = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return all.filter((f) => rules.includes(f.rule))
      .map((f) => `${f.rule} ${f.severity} ${f.file ?? ''}:${f.range ? f.range.start.line + 1 : ''}${withMessage ? ` ${f.message}` : ''}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

void describe('source-text-grading', () => {
  const rule = ['source-text-grading'];
  void it('reports a test that requires a substring and a regex in the agent\'s source file', async () => {
    const got = await findings('clean-harbor', ST_FILES(ST_TEST(ST_TEXT_BODY)), rule, true);
    assert.equal(got.length, 1);
    assert.match(got[0] ?? '', /^source-text-grading info tests\/test_outputs\.py:10 test_uses_unicodedata requires "unicodedata\.normalize" \(and 1 more text pattern\) in the source of \/app\/src\/slugify\.py/);
  });
  void it('follows a read helper and a list of snippets a scorer loops over', async () => {
    const scorer = 'import os\nimport sys\n\nROOT = os.environ.get("REPO", "/app")\n\n\ndef read(rel):\n    with open(os.path.join(ROOT, rel)) as f:\n        return f.read()\n\n\ndef main():\n    text = read("src/slugify.py")\n    needles = [\n        "unicodedata.normalize(",\n        "encode(\\"ascii\\", \\"ignore\\")",\n    ]\n    hits = 0\n    for needle in needles:\n        if needle in text:\n            hits += 1\n    print(hits / len(needles))\n\n\nif __name__ == "__main__":\n    main()\n';
    assert.deepEqual(await findings('clean-harbor', { ...ST_FILES(ST_TEST('')), 'tests/verify.py': scorer }, rule), ['source-text-grading info tests/verify.py:14']);
  });
  void it('leaves a check that forbids a construct (a negated match)', async () => {
    const body = 'def test_no_eval():\n    src = SRC.read_text()\n    assert "eval(" not in src\n    assert not re.search(r"exec\\s*\\(", src)\n';
    assert.deepEqual(await findings('clean-harbor', ST_FILES(ST_TEST(body)), rule), []);
  });
  void it('leaves text the instruction prescribes verbatim', async () => {
    const files = { ...ST_FILES(ST_TEST('def test_exports():\n    src = SRC.read_text()\n    assert \'__all__ = ["slugify"]\' in src\n')), 'instruction.md': `${ST_INSTRUCTION}Also add the line \`__all__ = ["slugify"]\` at the top of the module.\n` };
    assert.deepEqual(await findings('clean-harbor', files, rule), []);
  });
  void it('leaves the agent\'s output data read as text', async () => {
    const body = 'def test_report_mentions_total():\n    report = Path("/app/out/report.txt").read_text()\n    assert "total: 42" in report\n';
    assert.deepEqual(await findings('clean-harbor', ST_FILES(ST_TEST(body)), rule), []);
  });
  void it('leaves a helper module the tests ship themselves', async () => {
    const body = 'def test_helper_is_current():\n    src = Path("/tests/helpers.py").read_text()\n    assert "VERSION = 2" in src\n';
    assert.deepEqual(await findings('clean-harbor', { ...ST_FILES(ST_TEST(body)), 'tests/helpers.py': 'VERSION = 2\n' }, rule), []);
  });
});

void describe('expected-from-agent-writable-path: expected values recomputed from rewritable inputs', () => {
  const rule = ['expected-from-agent-writable-path'];
  void it('reports a test that recomputes the answer from the image\'s copy of the input beside the agent', async () => {
    const got = await findings('clean-harbor', { 'tests/test_outputs.py': RC_TEST }, rule, true);
    assert.equal(got.length, 1);
    assert.match(got[0] ?? '', /^expected-from-agent-writable-path info tests\/test_outputs\.py:11 test_totals_match recomputes its expected value from \/app\/data\/orders\.csv, .* compares it with \/app\/totals\.json/);
  });
  void it('leaves inputs the verifier makes afresh before grading (a tests-folder generator it runs)', async () => {
    const gen = 'import pandas as pd\n\npd.DataFrame({"id": [1], "region": ["north"], "amount": [2.5]}).to_csv("/app/data/orders.csv", index=False)\n';
    const sh = '#!/bin/bash\nmkdir -p /logs/verifier\npython3 /tests/generate_orders.py\npytest --noconftest -c /dev/null /tests/test_outputs.py -rA && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n';
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': RC_TEST, 'tests/generate_orders.py': gen, 'tests/test.sh': sh }, rule), []);
    // …but a generator the verifier never runs changes nothing.
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': RC_TEST, 'tests/generate_orders.py': gen }, rule), ['expected-from-agent-writable-path info tests/test_outputs.py:11']);
  });
  void it('reports inputs the instruction lists when no Dockerfile line names them', async () => {
    const instruction = '# Totals\n\n## Inputs\n\n- `/app/data/orders.csv`\n\n## Output\n\n- `/app/totals.json`: the total `amount` per region.\n';
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': RC_TEST, 'instruction.md': instruction, 'environment/Dockerfile': 'FROM python:3.12-slim-bookworm\nRUN pip install --no-cache-dir pytest==8.3.3\nWORKDIR /app\n' }, rule), ['expected-from-agent-writable-path info tests/test_outputs.py:11']);
  });
  void it('leaves the clean task, which recomputes from its own copy under /tests', async () => {
    assert.deepEqual(await findings('clean-harbor', {}, rule), []);
  });
  void it('leaves two outputs the instruction asks for, compared with each other', async () => {
    const test = 'import csv\nimport json\nfrom pathlib import Path\n\nOUT = Path("/app/output")\n\n\ndef _rows():\n    with (OUT / "summary.csv").open() as fh:\n        return list(csv.DictReader(fh))\n\n\ndef test_report_agrees_with_summary():\n    report = json.loads((OUT / "report.json").read_text())\n    assert report["rows"] == len(_rows())\n';
    const instruction = 'Read `/app/data/orders.csv`.\n\n## Required outputs\n\n- `/app/output/summary.csv`\n- `/app/output/report.json`\n';
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': test, 'instruction.md': instruction }, rule), []);
  });
  void it('leaves an input the test writes itself before running the agent\'s program', async () => {
    const test = RC_TEST.replace('def _expected():', 'def _write_orders():\n    ORDERS.write_text("id,region,amount\\n1,north,2.5\\n")\n\n\ndef _expected():').replace('def test_totals_match():\n', 'def test_totals_match():\n    _write_orders()\n');
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': test }, rule), []);
  });
  void it('leaves a test file that checks the inputs\' hashes (the hole is closed)', async () => {
    const test = RC_TEST.replace('import csv\n', 'import csv\nimport hashlib\n').replace('def test_totals_match():\n', 'def test_totals_match():\n    assert hashlib.sha256(ORDERS.read_bytes()).hexdigest() == "0" * 64\n');
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': test }, rule), []);
  });
  void it('leaves an input file the solution itself writes (then it is the agent\'s output)', async () => {
    const sol = '#!/bin/bash\npython3 /app/make.py > /app/data/orders.csv\npython3 /app/sum.py\n';
    assert.deepEqual(await findings('clean-harbor', { 'tests/test_outputs.py': RC_TEST, 'solution/solve.sh': sol }, rule), []);
  });
});

void describe('no-reward-written: anchored at the test run whose verdict is lost', () => {
  void it('points at the pytest line of tests/test.sh', async () => {
    const got = await findings('clean-harbor', { 'tests/test.sh': '#!/bin/bash\nset -euo pipefail\ncd /app\npython -m pytest /tests/test_outputs.py -rA\n' }, ['no-reward-written'], true);
    assert.deepEqual(got.map((g) => g.split(' ').slice(0, 3).join(' ')), ['no-reward-written error tests/test.sh:4']);
    assert.match(got[0] ?? '', /this pytest run decides pass or fail, but its status never becomes a reward/);
  });
  void it('stays a file-level finding when the script runs no test command', async () => {
    assert.deepEqual(await findings('clean-harbor', { 'tests/test.sh': '#!/bin/bash\necho "nothing to check"\n' }, ['no-reward-written']), ['no-reward-written error tests/test.sh:']);
  });
});
