import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { range } from '../../src/core/model/positions';
import { scanTomlPositions } from '../../src/core/loader/tomlScanner';

void describe('loader: TOML position scanner', () => {
  void it('places quoted, literal and dotted keys, and values after them', () => {
    const m = scanTomlPositions([
      '"quoted key" = 1',
      "'lit.eral' = 'x'",
      'a . b.c = true # comment',
      '[ "env vars" . inner ]',
      'k = 1979-05-27 07:32:00Z  # a date with a space',
    ].join('\n'));
    assert.deepEqual(m.get('quoted key'), { keyRange: range(0, 0, 0, 12), valueRange: range(0, 15, 0, 16) });
    assert.deepEqual(m.get('lit.eral'), { keyRange: range(1, 0, 1, 10), valueRange: range(1, 13, 1, 16) });
    assert.deepEqual(m.get('a.b.c'), { keyRange: range(2, 0, 2, 7), valueRange: range(2, 10, 2, 14) });
    assert.deepEqual(m.get('env vars.inner'), { keyRange: range(3, 2, 3, 20), valueRange: range(3, 0, 3, 22) });
    assert.deepEqual(m.get('env vars.inner.k'), { keyRange: range(4, 0, 4, 1), valueRange: range(4, 4, 4, 24) });
  });

  void it('follows inline tables, multi-line arrays and multi-line strings', () => {
    const m = scanTomlPositions([
      'env = { A = "1", B = { C = [1, 2] } }',
      'list = [',
      '  "one", # first',
      '  { name = "two" },',
      ']',
      'text = """',
      'line "quoted" \\""" still inside',
      'end"""',
      'after = 2',
    ].join('\n'));
    assert.deepEqual(m.get('env.A'), { keyRange: range(0, 8, 0, 9), valueRange: range(0, 12, 0, 15) });
    assert.deepEqual(m.get('env.B.C.1'), { valueRange: range(0, 31, 0, 32) });
    assert.deepEqual(m.get('list'), { keyRange: range(1, 0, 1, 4), valueRange: range(1, 7, 4, 1) });
    assert.deepEqual(m.get('list.0'), { valueRange: range(2, 2, 2, 7) });
    assert.deepEqual(m.get('list.1.name'), { keyRange: range(3, 4, 3, 8), valueRange: range(3, 11, 3, 16) });
    assert.deepEqual(m.get('text'), { keyRange: range(5, 0, 5, 4), valueRange: range(5, 7, 7, 6) });
    assert.deepEqual(m.get('after'), { keyRange: range(8, 0, 8, 5), valueRange: range(8, 8, 8, 9) });
  });

  void it('numbers array tables and keeps keys inside them apart', () => {
    const m = scanTomlPositions('[[steps]]\nname = "a"\n[[steps]]\nname = "b"\n[other]\nx = 1\n');
    assert.deepEqual(m.get('steps.0'), { keyRange: range(0, 2, 0, 7), valueRange: range(0, 0, 0, 9) });
    assert.deepEqual(m.get('steps.1.name'), { keyRange: range(3, 0, 3, 4), valueRange: range(3, 7, 3, 10) });
    assert.deepEqual(m.get('other.x'), { keyRange: range(5, 0, 5, 1), valueRange: range(5, 4, 5, 5) });
  });

  void it('never throws and always ends on broken input', () => {
    for (const text of ['[', '[[', 'a = [1, 2', 'a = {', 'a = """', "a = '''x", '"unterminated = 1', '= 5', 'a.', '[a.]\nb=1', 'x = "\\', '\u0000\uFFFF', 'a = [ = ]']) {
      assert.doesNotThrow(() => scanTomlPositions(text), text);
    }
  });
});
