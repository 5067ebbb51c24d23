import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePytestSummary } from '../../src/core/sandbox/pytestSummary';

const summary = (lines: string[]): string => [
  '============================= test session starts ==============================',
  'collected 3 items',
  '',
  '=========================== short test summary info ============================',
  ...lines,
  '========================= 1 failed, 2 passed in 0.05s ==========================',
].join('\n');

void describe('pytest -rA summary with TB1 semantics', () => {
  void it('resolves when every parsed test passed', () => {
    const s = parsePytestSummary(summary(['PASSED ../tests/test_outputs.py::test_a', 'PASSED ../tests/test_outputs.py::test_b']));
    assert.equal(s.found, true);
    assert.equal(s.resolved, true);
    assert.deepEqual(s.tests.map((t) => t.name), ['test_a', 'test_b']);
  });

  void it('does not resolve when one test failed, and drops the failure reason after " - "', () => {
    const s = parsePytestSummary(summary(['PASSED t.py::test_a', 'FAILED t.py::test_b - AssertionError: x']));
    assert.equal(s.resolved, false);
    assert.equal(s.failed, 1);
    assert.deepEqual(s.tests[1], { name: 'test_b', status: 'FAILED' });
    // As in TB1, only the last ' - ' segment is dropped.
    assert.equal(parsePytestSummary(summary(['FAILED t.py::test_c - a - b'])).tests[0]?.name, 'test_c - a');
  });

  void it('counts SKIPPED and XFAIL as passed, and reports them apart', () => {
    const s = parsePytestSummary(summary(['SKIPPED [1] t.py:3: planted', 'XFAIL t.py::test_x - reason', 'PASSED t.py::test_a']));
    assert.equal(s.resolved, true);
    assert.equal(s.countedSkips, 2);
  });

  void it('counts ERROR and XPASS as failed', () => {
    assert.equal(parsePytestSummary(summary(['ERROR t.py::test_a - fixture'])).resolved, false);
    assert.equal(parsePytestSummary(summary(['XPASS t.py::test_a'])).resolved, false);
  });

  void it('is unresolved (a TB1 parse error) when there is no summary section', () => {
    const s = parsePytestSummary('collected 1 item\n<Module test_outputs.py>\n  <Function test_a>\n\n1 test collected in 0.01s');
    assert.equal(s.found, false);
    assert.equal(s.resolved, false);
  });

  void it('keys results by test name: a later line for the same name wins', () => {
    const s = parsePytestSummary(summary(['FAILED a.py::test_same', 'PASSED b.py::test_same']));
    assert.equal(s.tests.length, 1);
    assert.equal(s.resolved, true);
  });

  void it('reads only up to the next summary header, and ignores lines that are not results', () => {
    const text = `${summary(['PASSED t.py::test_a', 'some noise line', 'FAILED'])}\n=== short test summary info ===\nFAILED t.py::test_z`;
    const s = parsePytestSummary(text);
    assert.deepEqual(s.tests.map((t) => t.name), ['test_a']);
    assert.equal(s.resolved, true);
  });

  void it('keeps parametrized ids intact', () => {
    const s = parsePytestSummary(summary(['PASSED t.py::test_p[a-1]', 'FAILED t.py::test_p[b-2] - boom']));
    assert.deepEqual(s.tests.map((t) => t.name), ['test_p[a-1]', 'test_p[b-2]']);
  });
});
