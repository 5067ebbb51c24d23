import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SyntaxNode, SyntaxTree } from '../../src/core/parse/syntax';
import { descendants } from '../../src/core/parse/syntax';
import { ensureParsers, parseSync, parseWithPublicCursor, readsCursorDirectly, type GrammarName } from '../../src/core/parse/treeSitter';

/** A tree as plain nested data (parents left out: they are implied by the nesting). */
function shape(n: SyntaxNode): unknown {
  return [n.type, n.start, n.end, n.named, n.field, n.children.map(shape)];
}

function assertSameCopy(grammar: GrammarName, text: string): void {
  const direct: SyntaxTree = parseSync(grammar, text);
  const reference = parseWithPublicCursor(grammar, text);
  assert.deepEqual(shape(direct.root), shape(reference.root));
  assert.equal(direct.hasError, reference.hasError);
  // The type index built during the copy holds the same nodes in the same order.
  for (const type of ['identifier', 'call', 'string', 'command', 'word', 'ERROR']) {
    assert.deepEqual(descendants(direct.root, type).map(shape), descendants(reference.root, type).map(shape));
  }
}

const PYTHON = `import os, subprocess\n\ndef test_output():\n    """doc"""\n    out = subprocess.run(["ls", "-l"], capture_output=True)\n    assert out.returncode == 0, f"failed {out.stderr!r}"\n    with open("/app/out.txt") as f:\n        data = [l.strip() for l in f if l]\n    assert sorted(data) == ["a", "b"]\n\nclass TestX:\n    @staticmethod\n    def test_y(x=lambda: {1: (2, 3)}):\n        try:\n            pass\n        except (ValueError, KeyError) as e:\n            raise RuntimeError() from e\n`;
const BASH = `#!/bin/bash\nset -euo pipefail\napt-get update && apt-get install -y curl=7.* || exit 1\nfor f in /tests/*.py; do\n  if [ -f "$f" ]; then echo "\${f%.py}" | tee -a /logs/x; fi\ndone\ncat <<EOF > /tmp/a\nhello $(date)\nEOF\npytest -rA /tests/test_outputs.py; echo $? > /logs/verifier/reward.txt\n`;

void describe('tree copy: reading the cursor straight from WebAssembly', () => {
  void it('is in use with the bundled web-tree-sitter', async () => {
    await ensureParsers();
    assert.equal(readsCursorDirectly(), true);
  });

  void it('gives the same tree as the public TreeCursor (Python and Bash, deep nesting, syntax errors)', async () => {
    await ensureParsers();
    assertSameCopy('python', PYTHON);
    assertSameCopy('bash', BASH);
    // Deep nesting makes the cursor's stack grow (and move) during the walk.
    assertSameCopy('python', `x = ${'['.repeat(300)}1${']'.repeat(300)}\n`);
    assertSameCopy('bash', `${'$('.repeat(120)}echo${')'.repeat(120)}\n`);
    assertSameCopy('python', 'def f(:\n  return ]]\n\u00e9t\u00e9 = "\u{1F600}"\n');
    assertSameCopy('python', '');
  });

  void it('gives the same tree on every test file of the examples', async () => {
    await ensureParsers();
    const root = path.resolve(__dirname, '../../../examples');
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(py|sh)$/.test(e.name)) files.push(p);
      }
    };
    if (fs.existsSync(root)) walk(root);
    assert.ok(files.length > 0, `no example scripts under ${root}`);
    for (const f of files) assertSameCopy(f.endsWith('.py') ? 'python' : 'bash', fs.readFileSync(f, 'utf8'));
  });

  void it('gives the same tree on arbitrary text', async () => {
    await ensureParsers();
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.constantFrom<GrammarName>('python', 'bash'), (text, grammar) => {
      assertSameCopy(grammar, text);
    }), { numRuns: 150 });
  });
});
