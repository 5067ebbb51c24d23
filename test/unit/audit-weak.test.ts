/**
 * Weak and self-reported checks (issue 11): fixtures written in the style of real generated verifiers,
 * each asserting the exact finding — rule, severity, line — or its absence.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditTask } from '../../src/core/audit/index';
import { loadTask } from '../../src/core/loader/index';
import type { Files } from './audit-cases';
import { makeTask, removeTemp } from './audit-helpers';

async function found(files: Files, rules: readonly string[]): Promise<string[]> {
  const dir = await makeTask('clean-harbor', files);
  try {
    const fs = await auditTask(await loadTask(dir), { ignoreConfigFiles: true });
    return fs.filter((f) => rules.includes(f.rule)).map((f) => `${f.rule} ${f.severity} ${f.range ? f.range.start.line + 1 : '-'}`).sort();
  } finally {
    await removeTemp(dir);
  }
}

/** Line 8 is the first line of `body`. */
const PYT = (body: string): string => `import json\nimport re\nimport subprocess\nfrom pathlib import Path\n\nREPORT = Path("/app/report.json")\n\n${body}\n`;
const SELF = ['self-reported-result'];
const WEAK = ['weak-assertion'];

interface Case { readonly name: string; readonly files: Files; readonly rules: readonly string[]; readonly want: readonly string[] }

const CASES: readonly Case[] = [
  { name: 'a pass flag the agent writes, checked `is True`', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_fixed():\n    data = json.loads(REPORT.read_text())\n    assert data["tests_passed"] is True\n') },
    want: ['self-reported-result warning 10'] },
  { name: 'a self-reported score read into a local and held to a threshold', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_score():\n    data = json.loads(REPORT.read_text())\n    avg_score = float(data.get("average_score"))\n    assert avg_score >= 75.0\n') },
    want: ['self-reported-result warning 11'] },
  { name: 'a PASS line of a text report, read through a regex group', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_result():\n    m = re.search(r"test_result:\\s*(.+)", Path("/app/fix.txt").read_text())\n    assert m\n    result = m.group(1).strip()\n    assert result == "PASS"\n') },
    want: ['self-reported-result warning 12'] },
  { name: 'a pass flag beside a test that runs the program itself is redundant, not a hole', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_runs():\n    out = subprocess.run(["node", "/app/test.js"], capture_output=True, text=True)\n    assert out.returncode == 0\n\n\ndef test_flag():\n    assert json.loads(REPORT.read_text())["test_status"] == "PASS"\n') },
    want: [] },
  { name: 'a pass flag beside a test that recomputes with a library (a cipher, numpy) is quiet', rules: SELF,
    files: { 'tests/test_outputs.py': `from Crypto.Cipher import AES\n${PYT('def test_flag():\n    assert json.loads(REPORT.read_text())["validation_passed"] is True\n')}` },
    want: [] },
  { name: 'a reported score beside a test that re-evaluates it is quiet', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_score():\n    assert json.loads(REPORT.read_text())["score"] >= 0.85\n\n\ndef test_score_real():\n    from scoring import evaluate_config\n    data = json.loads(REPORT.read_text())\n    assert abs(evaluate_config(data) - data["score"]) < 1e-6\n') },
    want: [] },
  { name: 'a reported time beside a run of the program with a timeout is redundant', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_runs():\n    subprocess.run(["python3", "/app/fixed.py"], timeout=60, check=True)\n\n\ndef test_time():\n    assert json.loads(REPORT.read_text())["execution_time"] <= 60\n') },
    want: [] },
  { name: 'a score that is data (a severity score, a normalised score) is not the work\'s quality', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_high():\n    for f in json.loads(REPORT.read_text())["findings"]:\n        assert f["score"] >= 7.0\n    assert json.loads(REPORT.read_text())["mean_normalized_score"] <= 1.0\n') },
    want: [] },
  { name: 'a sign check on a self-reported time is plausibility, not a graded claim', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_time():\n    assert json.loads(REPORT.read_text())["elapsed_seconds"] >= 0\n') },
    want: [] },
  { name: 'answers compared by equality stay quiet (a QoS level, a port)', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_qos():\n    data = json.loads(REPORT.read_text())\n    assert data["critical_qos"] == 2\n    assert data["status"] == "fixed"\n') },
    want: [] },
  { name: 'the test times the program itself: the report is not the only evidence', rules: SELF,
    files: { 'tests/test_outputs.py': `import time\n${PYT('def test_fast():\n    t = time.perf_counter()\n    subprocess.run(["python3", "/app/run.py"], check=True)\n    data = json.loads(REPORT.read_text())\n    assert data["runtime_ms"] < 500\n')}` },
    want: [] },
  { name: 'numbers from a verifier-owned evaluator are not the agent\'s claim', rules: SELF,
    files: { 'tests/test_outputs.py': PYT('def test_eval():\n    subprocess.run(["python3", "/tests/evaluate.py"], check=True)\n    data = json.loads(Path("/tmp/eval.json").read_text())\n    assert data["accuracy"] >= 0.9\n') },
    want: [] },
  { name: 'shape, dtype, finite-ness and spread only: every test is flagged', rules: WEAK,
    files: { 'tests/test_outputs.py': `import numpy as np\n${PYT('def test_shape():\n    x = np.load("/app/out.npy")\n    assert x.shape == (100, 2)\n    assert x.dtype == np.float32\n\n\ndef test_spread():\n    x = np.load("/app/out.npy")\n    nan_count = int(np.isnan(x).sum())\n    assert nan_count == 0\n    spread = float(np.var(x[:, 1]))\n    assert spread > 0.01\n')}` },
    want: ['weak-assertion warning 9', 'weak-assertion warning 15'] },
  { name: 'a bound on an error against the truth is a value check', rules: WEAK,
    files: { 'tests/test_outputs.py': `import numpy as np\n${PYT('def test_fit():\n    expected = np.load("/tests/truth.npy")\n    x = np.load("/app/out.npy")\n    rmse = float(np.sqrt(((x - expected) ** 2).mean()))\n    assert rmse < 0.1\n')}` },
    want: [] },
  { name: 'a field present and a value from an allowed list, beside an exact check, are quiet', rules: WEAK,
    files: { 'tests/test_outputs.py': PYT('def test_fields():\n    data = json.loads(REPORT.read_text())\n    assert "verdict" in data\n    assert data["verdict"] in ["sat", "unsat"]\n\n\ndef test_verdict():\n    assert json.loads(REPORT.read_text())["verdict"] == "unsat"\n') },
    want: [] },
  { name: 'an upper-case marker in a log the harness writes is a verdict, not a field present', rules: WEAK,
    files: { 'tests/test_outputs.py': PYT('def test_unit_tests_passed():\n    log = "/app/unit_test.log"\n    assert Path(log).exists()\n    assert "ALL_PASSED" in open(log).read()\n') },
    want: [] },
  { name: 'field names present and a sign are all the tests check', rules: WEAK,
    files: { 'tests/test_outputs.py': PYT('def test_fields():\n    data = json.loads(REPORT.read_text())\n    assert "total" in data\n    assert data["total"] >= 0\n') },
    want: ['weak-assertion warning 8'] },
  { name: 'a bound on a time the test measures is a timing check, not plausibility', rules: WEAK,
    files: { 'tests/test_outputs.py': `import time\n${PYT('def test_budget():\n    t0 = time.monotonic()\n    subprocess.run(["python3", "/app/pipeline.py"])\n    elapsed = time.monotonic() - t0\n    assert elapsed < 2.0\n')}` },
    want: [] },
];

void describe('weak and self-reported checks: one fixture per real pattern', () => {
  for (const c of CASES) {
    void it(c.name, async () => {
      assert.deepEqual(await found(c.files, c.rules), [...c.want].sort());
    });
  }
});
