import { stringValue, text } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { Report } from '../rule';
import { madeByImage } from './imageLayout';
import { asserts, boundName, readByTest, tests, writtenByTest } from './pyTestFiles';
import { escapeRegExp } from '../../parse/regex';

/** Data a test compares against; code the tests run is verifier-runs-agent-writable-code's business. */
const DATA = /\.(json|jsonl|csv|tsv|txt|ya?ml|xml|npy|npz|pt|pth|pkl|pickle|parquet|h5|db|sqlite)$/i;
/** A write of the file in the solution: then it is the agent's output, not the task's material. */
const WRITES = /(>|\btee\b|\bcp\b|\bmv\b|['"]w['"]|write|dump|save|to_csv|to_json|to_parquet)/;

/** Module-level names bound to an absolute path literal (`OUTPUT = "/app/out.json"`, `P = Path("/app/x")`). */
function pathNames(tree: SyntaxTree): Map<string, string> {
  const out = new Map<string, string>();
  for (const asg of descendants(tree.root, 'assignment')) {
    if (asg.parent?.parent?.type !== 'module' && asg.parent?.type !== 'module') continue;
    const left = childByField(asg, 'left');
    const right = childByField(asg, 'right');
    if (left?.type !== 'identifier' || !right) continue;
    const lit = right.type === 'string' ? right : descendants(right, 'string')[0];
    const v = lit ? stringValue(tree, lit) : undefined;
    if (v?.startsWith('/')) out.set(text(tree, left), v);
  }
  return out;
}

/**
 * A file with a name that says nothing ("metadata.json", "dataset.pt") that the image puts where the
 * agent writes, and that a test reads beside a file the agent produced and then asserts on: the test
 * takes its truth from it (the categories of the ids returned, the held-out split the accuracy is
 * measured on), and the agent, root in that folder, can rewrite it to match any output. Decided by
 * data flow: made by the build, never written by the solution or the test, read in a test that also
 * reads an output the build does not make.
 */
export function neutralExpected(ctx: AuditContext, s: { file: string; node: SyntaxNode; value: string; tree: SyntaxTree }): Report | undefined {
  const v = s.value;
  if (!DATA.test(v) || !ctx.isAgentWritable(v) || ctx.isReadOnlyMount(v) || !madeByImage(ctx, v)) return undefined;
  if (writtenByTest(s.tree, s.node) || !readByTest(s.tree, s.node)) return undefined;
  const base = v.split('/').pop() ?? v;
  const sol = ctx.text(ctx.task.solution.file) ?? '';
  if (sol.split('\n').some((l) => l.includes(base) && WRITES.test(l))) return undefined;
  const tf = tests(ctx).find((t) => t.file === s.file);
  if (!tf) return undefined;
  const names = pathNames(s.tree);
  const name = boundName(s.tree, s.node);
  const agentOutput = (fnBody: SyntaxNode): boolean => {
    const paths = [
      ...descendants(fnBody, 'string').map((n) => stringValue(s.tree, n) ?? ''),
      ...descendants(fnBody, 'identifier').map((n) => names.get(text(s.tree, n)) ?? ''),
    ];
    return paths.some((p) => p.startsWith('/') && p !== v && DATA.test(p) && !/^\/(tests|proc|sys|dev)\//.test(p) && !madeByImage(ctx, p));
  };
  const grading = tf.functions.find((fn) => fn.isTest && asserts(fn).length > 0
    && (fn.body.start <= s.node.start && s.node.end <= fn.body.end || (name !== undefined && descendants(fn.body, 'identifier').some((n) => text(s.tree, n) === name)))
    && agentOutput(fn.body));
  if (!grading) return undefined;
  // Input the instruction hands the agent (the replicas to merge, the embeddings to search), from
  // which the test recomputes the truth: rewritable, but also the material the work is done on, so
  // a hardening note. Material the instruction never mentions exists only for grading: a hole.
  const prose = [ctx.instruction(), ...(ctx.task.steps ?? []).map((st) => st.instruction ?? '')].join('\n');
  const handedOver = prose.trim() === '' || prose.includes(base) || new RegExp(`${escapeRegExp(v.slice(0, v.length - base.length - 1))}(?![\\w.-])`).test(prose);
  return {
    file: s.file, range: ctx.range(s.file, s.node.start, s.node.end), severity: 'info',
    message: `${grading.name} takes what it compares the agent's output with from ${v}, which the image puts where the agent writes${handedOver ? ' (the instruction hands it over as input)' : ' and the instruction never mentions'}: the agent can rewrite it to agree with any output. Ship the data the tests trust under tests/ (or check a copy the agent cannot reach).`,
  };
}
