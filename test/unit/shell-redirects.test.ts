/**
 * Where a redirect belongs. tree-sitter-bash hangs a trailing redirect on a whole list or pipeline
 * (`a && b > f`); bash applies it to the last command only, and the rules read it from that command.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { analyseShell } from '../../src/core/parse/shell';
import { ensureParsers, parseSync } from '../../src/core/parse/treeSitter';
import { findingsOf, verifierScript } from './audit-helpers';

const redirects = (src: string): string[] => analyseShell(parseSync('bash', src)).commands.map((c) => `${c.name}:${c.redirects.map((r) => `${r.op}${r.target}`).join(',')}`);

void describe('shell: redirects of lists and pipelines', () => {
  before(async () => { await ensureParsers(); });
  void it('gives `a && b > f` and `a || b > f` redirect to b only', () => {
    assert.deepEqual(redirects('a && b > f\n'), ['a:', 'b:>f']);
    assert.deepEqual(redirects('a || b > f\n'), ['a:', 'b:>f']);
  });
  void it('gives the last command of a pipeline its redirect, nested lists included', () => {
    assert.deepEqual(redirects('x | y > out.txt\n'), ['x:', 'y:>out.txt']);
    assert.deepEqual(redirects('a && b && c >> log\n'), ['a:', 'b:', 'c:>>log']);
  });
  void it('keeps a command\'s own redirect and gives a group\'s redirect to no single command', () => {
    assert.deepEqual(redirects('a > one && b > two\n'), ['a:>one', 'b:>two']);
    assert.deepEqual(redirects('{ a; b; } > f\n'), ['a:', 'b:']);
  });
});

void describe('reward-path-mismatch: a fallback write after `||`', () => {
  void it('leaves `echo 0 > /logs/verifier/reward.txt || echo 0 > ./reward.txt`', async () => {
    const sh = verifierScript('pytest --noconftest -rA /tests/test_outputs.py || { echo 0 > /logs/verifier/reward.txt 2>/dev/null || echo 0 > ./reward.txt; exit 0; }');
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': sh }, ['reward-path-mismatch']), []);
  });
  void it('still reports `pytest && echo 1 > ./reward.txt` run from the tests folder', async () => {
    const sh = '#!/bin/bash\ncd /tests\npytest --noconftest -rA /tests/test_outputs.py && echo 1 > ./reward.txt || echo 0 > /logs/verifier/reward.txt\n';
    assert.deepEqual(await findingsOf('clean-harbor', { 'tests/test.sh': sh }, ['reward-path-mismatch']), ['reward-path-mismatch error 3']);
  });
});
