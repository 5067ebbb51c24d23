import { calleeName, codeText, skipNestedScopes, stringValue, text } from '../../parse/python';
import { descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { testFunctionsOf } from './pythonTests';

const LITERAL = new Set(['string', 'integer', 'float', 'true', 'false', 'concatenated_string']);

/** `x == "42"` / `"42" == x` / `x.strip() == "done"`: the literal side, when exactly one side is a scalar literal. */
function literalCompared(tree: SyntaxTree, e: SyntaxNode): string | undefined {
  if (e.type !== 'comparison_operator') return undefined;
  const ops = e.children.filter((c) => !c.named).map((c) => c.type);
  if (ops.length !== 1 || ops[0] !== '==') return undefined;
  const [l, r] = e.children.filter((c) => c.named);
  if (!l || !r) return undefined;
  const lit = LITERAL.has(l.type) ? l : LITERAL.has(r.type) ? r : undefined;
  const other = lit === l ? r : l;
  if (!lit || LITERAL.has(other.type)) return undefined;
  if (lit.type === 'string' && stringValue(tree, lit) === undefined) return undefined;
  return text(tree, lit);
}

/** Test code that runs a program, calls a service or loads code: it checks behaviour, not only values read from files. */
export function runsSomething(tree: SyntaxTree): boolean {
  // The code only: a message that says "total requests" is not a call.
  return /\b(subprocess|os\.system|os\.popen|pexpect|importlib|requests|socket)\b/.test(codeText(tree));
}

export const hardcodableAnswer: StaticRule = {
  id: 'hardcodable-answer', class: 'misalignment', severity: 'info',
  title: 'The whole verdict is one or two literal answers the agent can write without doing the work',
  *check(ctx) {
    const files = testFunctionsOf(ctx);
    if (files.length === 0) return;
    // A verifier that runs anything (the agent's program, a checker) tests behaviour, not a literal.
    if (files.some((tf) => runsSomething(tf.tree))) return;
    const literals = new Set<string>();
    let first: { file: string; node: SyntaxNode } | undefined;
    for (const tf of files) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const a of descendants(fn.body, 'assert_statement', skipNestedScopes)) {
          const e = a.children.find((c) => c.named && c.type !== 'comment');
          const lit = e ? literalCompared(tf.tree, e) : undefined;
          // Any other kind of check (a computed value, a loop over records) means more than a literal is asked.
          if (lit === undefined) {
            const t = e ? text(tf.tree, e) : '';
            if (!/^(os\.path\.(exists|isfile)|\w+\.exists)\(/.test(t) && !/\.exists\(\)$/.test(t)) return;
            continue;
          }
          literals.add(lit);
          first ??= { file: tf.file, node: a };
        }
        if (descendants(fn.body, 'call', skipNestedScopes).some((c) => /^(self\.assert\w+|np\.testing\.\w+|pytest\.approx)$/.test(calleeName(tf.tree, c)))) return;
      }
    }
    if (!first || literals.size > 2) return;
    yield {
      file: first.file, range: ctx.range(first.file, first.node.start, first.node.end),
      message: `Every check compares the agent's output with a fixed literal (${[...literals].join(', ')}): an agent that has seen the answer once (or guesses it) writes it without doing the task, and in RL training the policy can memorise it. Also check how it was obtained (intermediate files, the program's behaviour on other inputs).`,
    };
  },
};
