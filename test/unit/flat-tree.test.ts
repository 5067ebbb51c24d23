import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FlatNode } from '../../src/core/parse/flatTree';
import { skipNestedScopes, stringLiterals, stringValue } from '../../src/core/parse/python';
import { childByField, descendants, walk, type SyntaxNode, type SyntaxTree } from '../../src/core/parse/syntax';
import { ensureParsers, parseSync } from '../../src/core/parse/treeSitter';

/** The same tree as plain objects: the functions of syntax.ts then take their generic paths. */
function plain(n: SyntaxNode, parent: SyntaxNode | null = null): SyntaxNode {
  const node = { type: n.type, start: n.start, end: n.end, named: n.named, field: n.field, children: [] as SyntaxNode[], parent };
  node.children = n.children.map((c) => plain(c, node));
  return node;
}

const span = (n: SyntaxNode): string => `${n.type}@${n.start}-${n.end}`;
/** The plain skip predicate with no type list: forces the generic walk. */
const skipByPredicate = (n: SyntaxNode): boolean => skipNestedScopes(n);

function assertSameAnswers(text: string): void {
  const flat: SyntaxTree = parseSync('python', text);
  assert.ok(flat.root instanceof FlatNode);
  const ref: SyntaxTree = { text, root: plain(flat.root), hasError: flat.hasError };
  const nodes = (t: SyntaxTree): SyntaxNode[] => { const out: SyntaxNode[] = []; walk(t.root, (n) => out.push(n)); return out; };
  const flatNodes = nodes(flat);
  const refNodes = nodes(ref);
  assert.deepEqual(flatNodes.map(span), refNodes.map(span));
  const sets = [new Set(['call', 'identifier']), new Set(['assert_statement', 'raise_statement', 'string'])];
  flatNodes.forEach((fn, k) => {
    const rn = refNodes[k] as SyntaxNode;
    for (const types of ['call', 'string', 'identifier', ...sets]) {
      assert.deepEqual(descendants(fn, types).map(span), descendants(rn, types).map(span), `descendants of ${span(fn)}`);
      assert.deepEqual(descendants(fn, types, skipNestedScopes).map(span), descendants(rn, types, skipByPredicate).map(span), `pruned descendants of ${span(fn)}`);
    }
    const pruned: string[] = [];
    const prunedRef: string[] = [];
    walk(fn, (n) => pruned.push(span(n)), skipNestedScopes);
    walk(rn, (n) => prunedRef.push(span(n)), skipByPredicate);
    assert.deepEqual(pruned, prunedRef);
    for (const field of ['function', 'arguments', 'name', 'body', 'left', 'nosuchfield']) {
      const a = childByField(fn, field);
      const b = childByField(rn, field);
      assert.equal(a && span(a), b && span(b));
    }
    assert.equal(stringValue(flat, fn), stringValue(ref, rn), `stringValue of ${span(fn)}`);
  });
  assert.deepEqual(stringLiterals(flat).map((s) => s.value), stringLiterals(ref).map((s) => s.value));
  // Identity: a node reached twice is the same object (rules key maps and sets by nodes).
  const first = descendants(flat.root, 'call')[0];
  if (first) assert.equal(first.parent?.children.find((c) => c.start === first.start && c.type === 'call'), first);
}

const PY = `import os\nA = "/app/out.txt"\n\ndef helper(p):\n    assert os.path.exists(p), "missing"\n\nclass TestX:\n    def test_a(self):\n        x = r"\\d+" "tail" 'x\\n'\n        y = f"{A}/z" + b"raw"\n        def inner():\n            raise ValueError("inner")\n        lam = lambda: call_me("in lambda")\n        assert helper(A) is None and x\n`;

void describe('flat trees: queries from the columns answer as the generic walk over node objects does', () => {
  void it('on a test file with nested scopes, prefixes, escapes and concatenations', async () => {
    await ensureParsers();
    assertSameAnswers(PY);
    assertSameAnswers('def f(:\n  return ]]\n"\\q" + ""\n');
    assertSameAnswers('');
  });

  void it('on every Python file of the examples', async () => {
    await ensureParsers();
    const root = path.resolve(__dirname, '../../../examples');
    const files: string[] = [];
    const visit = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) visit(p);
        else if (e.name.endsWith('.py')) files.push(p);
      }
    };
    visit(root);
    assert.ok(files.length > 0);
    for (const f of files) assertSameAnswers(fs.readFileSync(f, 'utf8'));
  });
});
