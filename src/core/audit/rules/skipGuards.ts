// A pytest.skip that guards only files the task ships cannot turn a missing output into a pass.
import { calleeName, stringLiterals, text } from '../../parse/python';
import { childByField, descendants, findAncestor, type SyntaxNode } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { TestFile } from './pythonTests';

/** File names (with an extension) in a string: `/app/data/scene.bin`, `tests/data/truth.json`. */
function fileNamesIn(value: string): string[] {
  return value.split(/[\s,;:'"()[\]{}]+/).filter((t) => /^[\w./-]*[A-Za-z_-][\w-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(t)).map((t) => t.slice(t.lastIndexOf('/') + 1));
}

/**
 * The skip at `c` only guards files the task itself ships (a sample input under environment/, a
 * ground truth under tests/, the reference solver): it fires outside the task's container, never
 * in it, so it cannot turn a missing output into a pass. Read from the file names the function
 * mentions before the skip, and those of a same-file helper whose result the skip's `if` tests.
 */
export function guardsShippedFiles(ctx: AuditContext, tf: TestFile, fnNode: SyntaxNode, c: SyntaxNode): boolean {
  const names: string[] = [];
  for (const l of stringLiterals(tf.tree, fnNode)) if (l.node.start < c.end) names.push(...fileNamesIn(l.value));
  const cond = findAncestor(c, (n) => n.type === 'if_statement', (n) => n === fnNode);
  const test = cond ? childByField(cond, 'condition') : undefined;
  if (test) {
    const ids = new Set([test, ...descendants(test, 'identifier')].filter((n) => n.type === 'identifier').map((n) => text(tf.tree, n)));
    for (const asg of descendants(fnNode, 'assignment')) {
      const left = childByField(asg, 'left');
      const right = childByField(asg, 'right');
      if (left?.type !== 'identifier' || !ids.has(text(tf.tree, left)) || right?.type !== 'call') continue;
      const helper = tf.functions.find((f) => f.name === calleeName(tf.tree, right));
      if (helper) for (const l of stringLiterals(tf.tree, helper.body)) names.push(...fileNamesIn(l.value));
    }
  }
  return names.length > 0 && names.every((n) => ctx.baseNames.has(n));
}
