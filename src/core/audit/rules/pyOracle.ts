/**
 * A Python test that takes its expected answer from running a reference program (an oracle, a
 * reference decoder, a golden script) kept where the agent can write, typically put there by the
 * image's set-up so the test can compare the agent's program with it on generated inputs. The tests
 * run in the agent's own container: the agent replaces the oracle with its own program (or one that
 * agrees with anything), and the comparison then grades the agent against itself.
 */
import { callArgs, calleeName, text, type PyFunction } from '../../parse/python';
import { descendants, namedChildren, type SyntaxNode } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { Report } from '../rule';
import { escapeRegExp } from '../../parse/regex';
import { SCRIPT_INTERPRETER } from './commands';
import { writes } from './fileWrites';
import { moduleBindings, resolvePath, scopeNames } from './pyPaths';
import { own, tests, type TestFile } from './pyTestFiles';

/** A name or file name that says "the answer key": oracle, reference, golden, expected, baseline. */
const ORACLE = /(^|[^a-z])(oracle|reference|golden|expected|baseline)([^a-z]|$)|(^|[_./-])ref([_./-]|$)/i;
const RUNS = /^(subprocess\.(run|check_output|check_call|call|Popen)|os\.system|os\.popen)$/;
/** An interpreter word whose next word is the program it runs (`[sys.executable, ORACLE, …]`, `["bash", REF]`). */
const isInterpreter = (word: string): boolean => word === 'sys.executable' || SCRIPT_INTERPRETER.test(word.replace(/^(["'])(.*)\1$/, '$2'));

/** The program word of a run call: the list's first element (past an interpreter), or the command string. */
function programOf(tf: TestFile, call: SyntaxNode): SyntaxNode | undefined {
  const first = callArgs(call).find((a) => a.type !== 'keyword_argument');
  if (!first) return undefined;
  if (first.type !== 'list') return first;
  const items = namedChildren(first);
  return items[0] && isInterpreter(text(tf.tree, items[0])) ? items[1] : items[0];
}

export function* oracleRuns(ctx: AuditContext): Iterable<Report> {
  // A separate verifier container has its own /app: nothing the agent left there reaches it.
  if (ctx.task.verifier.separate) return;
  for (const tf of tests(ctx)) {
    const module = moduleBindings(tf.tree);
    const seen = new Set<string>();
    const scopes: (PyFunction | undefined)[] = [undefined, ...tf.functions];
    for (const fn of scopes) {
      const names = scopeNames(tf.tree, fn, module);
      const calls = fn ? own(fn, 'call') : descendants(tf.tree.root, 'call').filter((c) => !tf.functions.some((f) => c.start >= f.node.start && c.end <= f.node.end));
      for (const call of calls) {
        if (!RUNS.test(calleeName(tf.tree, call))) continue;
        const prog = programOf(tf, call);
        if (!prog) continue;
        const abs = resolvePath(tf.tree, prog, names)?.abs?.split(/\s+/)[0];
        if (!abs || seen.has(abs)) continue;
        const named = prog.type === 'identifier' ? text(tf.tree, prog) : '';
        if (!ORACLE.test(abs.slice(abs.lastIndexOf('/') + 1)) && !ORACLE.test(named)) continue;
        if (!ctx.isAgentWritable(abs) || ctx.isReadOnlyMount(abs)) continue;
        // Written, built or copied into place by the test itself (`open(ref, "w")`, `gcc /tests/ref.c -o /app/ref`,
        // a copy from /tests) after the agent is done: the verifier's own.
        const p = escapeRegExp(abs);
        if (writes(tf.tree.text, abs) || new RegExp(`-o["',\\s]+${p}\\b|/tests/\\S*["',\\s]+["']?${p}`).test(tf.tree.text)) continue;
        seen.add(abs);
        yield {
          file: tf.file, range: ctx.range(tf.file, call.start, call.end),
          message: `The test takes its expected answer from running ${abs}, a reference program kept where the agent can write (the tests run in the agent's own container): replacing it with the agent's own program, or one that agrees with anything, makes every comparison pass. Ship the oracle with the tests (tests/ is mounted at /tests after the agent finishes) or build it there, and run it from /tests.`,
        };
      }
    }
  }
}
