/**
 * Vendored third-party source inside a task (a pristine copy of a library the grader diffs against, an
 * installed-packages folder): not the task's tests, not read, and no longer able to exhaust an audit
 * worker. Fixtures in the style of the science-integration tasks read for the ninth blind set.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vendoredFolders } from '../../src/core/model/vendored';
import { findingsOf as found } from './audit-helpers';
import type { Files } from './audit-cases';

/** A library copy: a top-level package of `n` modules with its own test suite inside. */
function library(root: string, n: number, suiteTest: string): Files {
  const files: Record<string, string> = { [`${root}/libx/__init__.py`]: '"""libx."""\n', [`${root}/libx/core/__init__.py`]: '' };
  for (let i = 0; i < n; i++) files[`${root}/libx/core/mod${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
  files[`${root}/libx/core/tests/__init__.py`] = '';
  files[`${root}/libx/core/tests/test_core.py`] = suiteTest;
  return files;
}

const NO_ASSERT = 'from libx.core.mod1 import f1\n\n\ndef test_runs():\n    f1(2)\n';

void describe('vendoredFolders', () => {
  const names = (files: Files): string[] => Object.keys(files);
  void it('finds a library copy by its size and its own test suite, outermost folder only', () => {
    assert.deepEqual(vendoredFolders(names(library('tests/pristine', 45, NO_ASSERT)), ['tests']), ['tests/pristine/libx']);
  });
  void it('leaves a task\'s small helper package with a tests folder alone', () => {
    assert.deepEqual(vendoredFolders(names(library('tests/helpers', 5, NO_ASSERT)), ['tests']), []);
  });
  void it('never takes a root (the tests folder being a package) as vendored', () => {
    const files = names(library('x', 45, NO_ASSERT)).map((f) => f.replace(/^x\/libx\//, 'tests/'));
    assert.deepEqual(vendoredFolders(files, ['tests']), []);
  });
  void it('finds a project checkout by its manifest and its size (tests beside the package, not in it)', () => {
    const files = ['tests/reference/lib-source/pyproject.toml', 'tests/reference/runner.py'];
    for (let i = 0; i < 30; i++) files.push(`tests/reference/lib-source/lib/m${i}.py`);
    for (let i = 0; i < 15; i++) files.push(`tests/reference/lib-source/test/m${i}_test.py`);
    assert.deepEqual(vendoredFolders(files, ['tests']), ['tests/reference/lib-source']);
  });
  void it('finds a smaller published project by its manifest and licence together', () => {
    const files = ['tests/reference/donor/pyproject.toml', 'tests/reference/donor/LICENSE'];
    for (let i = 0; i < 12; i++) files.push(`tests/reference/donor/py/m${i}.py`);
    assert.deepEqual(vendoredFolders(files, ['tests']), ['tests/reference/donor']);
    assert.deepEqual(vendoredFolders(files.filter((f) => !f.endsWith('LICENSE')), ['tests']), []);
  });
  void it('leaves the small app the agent edits (a manifest, a few modules) alone', () => {
    assert.deepEqual(vendoredFolders(['environment/app/pyproject.toml', 'environment/app/LICENSE', 'environment/app/app/main.py', 'environment/app/tests/test_main.py'], ['environment']), []);
  });
  void it('finds installed-package folders by name or by their metadata', () => {
    assert.deepEqual(vendoredFolders([
      'environment/venv/lib/python3.12/site-packages/a/__init__.py',
      'environment/deps/b-1.0.dist-info/METADATA', 'environment/deps/b/__init__.py',
      'environment/app/main.py',
    ], ['environment']), ['environment/deps', 'environment/venv']);
  });
});

void describe('audit over vendored source', () => {
  void it('a library copy\'s own tests under tests/ are not the verifier\'s: no test-code findings there', async () => {
    assert.deepEqual(await found('clean-harbor', library('tests/pristine', 45, NO_ASSERT), ['assertion-free-test']), []);
  });
  void it('… while the same test in the task\'s own tests is reported', async () => {
    assert.deepEqual(await found('clean-harbor', { 'tests/test_more.py': NO_ASSERT }, ['assertion-free-test']), ['assertion-free-test warning 4']);
  });
  void it('a code listing kept as text (test_x.py.txt) is not data posing as Python', async () => {
    const src = 'import numpy as np\n\n\ndef test_spline():\n    assert np.allclose(1, 1)\n';
    assert.deepEqual(await found('clean-harbor', { 'environment/archive/test_spline.py.txt': src }, ['malformed-data-file']), []);
  });
  void it('… while a .csv that holds the generator script still is', async () => {
    const src = 'import csv\n\nrows = [(1, 2)]\n';
    assert.deepEqual(await found('clean-harbor', { 'environment/data/points.csv': src }, ['malformed-data-file']), ['malformed-data-file warning 1']);
  });
});
