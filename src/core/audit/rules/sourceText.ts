/**
 * Grading by source text: a test reads a source file of the agent's work (`app.js`, `timezone.py`,
 * a file under the project the agent changes) and requires a substring or a regex on its text
 * (`"zoneinfo.ZoneInfo" in src`, `re.search(r"async claim\(", js)`). Equivalent code written another
 * way (another import form, arrow functions, other names) fails, and the required words alone pass.
 * Told apart from reading the agent's output data (normal grading) by the file being code, and from
 * a constraint check by the check being positive (`"eval(" not in src` forbids, it does not prescribe).
 * Text the instruction itself prescribes (a line it asks to add verbatim) is left alone.
 */
import { callArgs, calleeName, skipNestedScopes, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { fileReads, type FileRead } from './pyPaths';
import { tests, type TestFile } from './pyTestFiles';

const CODE = /\.(py|js|mjs|cjs|jsx|ts|tsx|go|rs|java|kt|scala|c|h|cc|cpp|hpp|cs|rb|php|swift|vue|svelte|lua|pl|ex|exs|dart)$/i;
const CODE_LITERAL = /\.(py|js|mjs|cjs|jsx|ts|tsx|go|rs|java|kt|scala|c|h|cc|cpp|hpp|cs|rb|php|swift|vue|svelte|lua|pl|ex|exs|dart)['"]/i;
const SYSTEM = /^\/(tests|logs|oracle|solution|usr|lib|lib64|etc|proc|sys|dev|bin|sbin|var\/lib)(\/|$)/;
const REGEX_CALL = /^(re\.(search|match|fullmatch|findall|finditer)|regex\.(search|match|findall))$/;

/** Names in `fn` bound to the text of a source file the agent works on (`src = read_file("a.py")`, `with open(p) as f: t = f.read()`). */
function sourceTexts(ctx: AuditContext, tf: TestFile, fn: PyFunction | undefined, reads: readonly FileRead[]): Map<string, string> {
  const out = new Map<string, string>();
  const tree = tf.tree;
  const scope = fn?.body ?? tree.root;
  const isSource = (r: FileRead): string | undefined => {
    const p = r.path.abs ?? r.path.tail ?? '';
    if (!CODE.test(p)) return undefined;
    // Source files live in the project the agent changes, wherever that is (/testbed, /repo, /app);
    // only the harness's mounts and the system's own folders are not the agent's work.
    if (r.path.abs !== undefined ? SYSTEM.test(p) : isTestsFile(ctx, p)) return undefined;
    return p;
  };
  const byNode = new Map<SyntaxNode, string>();
  for (const r of reads) {
    const p = isSource(r);
    if (p !== undefined) byNode.set(r.node, p);
  }
  if (byNode.size === 0) return out;
  const readIn = (n: SyntaxNode): string | undefined => {
    if (byNode.has(n)) return byNode.get(n);
    for (const c of descendants(n, 'call')) if (byNode.has(c)) return byNode.get(c);
    return undefined;
  };
  // `with open(P) as f:` → f is a handle on P; `x = f.read()` is its text.
  const handles = new Map<string, string>();
  for (const w of descendants(scope, 'with_item', fn ? skipNestedScopes : undefined)) {
    const asp = w.children.find((c) => c.type === 'as_pattern');
    const value = asp?.children.find((c) => c.named && c.type !== 'as_pattern_target');
    const alias = asp?.children.find((c) => c.type === 'as_pattern_target');
    const p = value ? readIn(value) : undefined;
    if (p !== undefined && alias) handles.set(text(tree, alias).trim(), p);
  }
  for (const asg of descendants(scope, 'assignment', fn ? skipNestedScopes : undefined)) {
    const left = childByField(asg, 'left');
    const right = childByField(asg, 'right');
    if (left?.type !== 'identifier' || !right) continue;
    let p = readIn(right);
    const rt = text(tree, right);
    if (p === undefined) {
      const h = /^(\w+)\.read\(\)$/.exec(rt);
      if (h) p = handles.get(h[1] as string);
    }
    // Only the text itself, not a parse of it (`json.load(f)`, `ast.parse(src)` is structure, not text).
    if (p !== undefined && !/^(json|yaml|toml|tomllib|ast|pickle|np|numpy|pd|pandas)\./.test(rt)) out.set(text(tree, left), p);
  }
  return out;
}

/** A tail that names a file the tests ship themselves (`tests/helpers.py`, `helpers.py` beside the test). */
function isTestsFile(ctx: AuditContext, tail: string): boolean {
  const t = tail.replace(/^\.?\//, '');
  const dir = ctx.task.verifier.testsDir || 'tests';
  return ctx.task.files.some((f) => f.startsWith(`${dir}/`) && (f.endsWith(`/${t}`) || f === `${dir}/${t}`));
}

/** Whether a check sits under a negation (`not re.search(...)`, `x not in src`). */
function negated(n: SyntaxNode): boolean {
  for (let p: SyntaxNode | null = n.parent; p && p.type !== 'expression_statement' && p.type !== 'block'; p = p.parent) {
    if (p.type === 'not_operator') return true;
    if (p.type === 'assert_statement' || p.type === 'assignment') break;
  }
  return false;
}

interface Check { readonly node: SyntaxNode; readonly anchor: SyntaxNode; readonly file: string; readonly literal?: string }

/** The literal a needle comes from: itself, or the list a `for needle in LIST` loop walks. */
function needleAnchor(tree: SyntaxTree, needle: SyntaxNode, scope: SyntaxNode): { anchor: SyntaxNode; literal?: string } | undefined {
  if (needle.type === 'string' || needle.type === 'concatenated_string') {
    const v = stringValue(tree, needle);
    return v === undefined ? undefined : { anchor: needle, literal: v };
  }
  if (needle.type !== 'identifier') return undefined;
  const name = text(tree, needle);
  for (let p: SyntaxNode | null = needle.parent; p; p = p.parent) {
    if (p.type !== 'for_statement') continue;
    const left = childByField(p, 'left');
    const right = childByField(p, 'right');
    if (!left || !right || ![left, ...descendants(left, 'identifier')].some((i) => i.type === 'identifier' && text(tree, i) === name)) continue;
    let list: SyntaxNode | undefined = right;
    if (right.type === 'identifier') {
      const rn = text(tree, right);
      const asg = [...descendants(scope, 'assignment'), ...descendants(tree.root, 'assignment')].find((a) => {
        const l = childByField(a, 'left');
        return l?.type === 'identifier' && text(tree, l) === rn;
      });
      list = asg ? childByField(asg, 'right') : undefined;
    }
    if (list && /^(list|tuple|set|dictionary)$/.test(list.type) && descendants(list, 'string').length > 0) return { anchor: list };
    return undefined;
  }
  return undefined;
}

function checksIn(tf: TestFile, scope: SyntaxNode, texts: ReadonlyMap<string, string>, nested: boolean): Check[] {
  const tree = tf.tree;
  const out: Check[] = [];
  const skip = nested ? undefined : skipNestedScopes;
  for (const cmp of descendants(scope, 'comparison_operator', skip)) {
    const [l, r, more] = cmp.children.filter((c) => c.named);
    // The `in` keyword is not kept as a child node: read the operator from the text between operands.
    if (!l || r?.type !== 'identifier' || more || tree.text.slice(l.end, r.start).trim() !== 'in' || negated(cmp)) continue;
    const file = texts.get(text(tree, r));
    const a = file !== undefined ? needleAnchor(tree, l, scope) : undefined;
    if (file !== undefined && a) out.push({ node: cmp, file, ...a });
  }
  for (const call of descendants(scope, 'call', skip)) {
    if (!REGEX_CALL.test(calleeName(tree, call)) || negated(call)) continue;
    const [pat, subject] = callArgs(call);
    if (!pat || subject?.type !== 'identifier') continue;
    const file = texts.get(text(tree, subject));
    const a = file !== undefined ? needleAnchor(tree, pat, scope) : undefined;
    // A regex prescribes by its shape; the instruction cannot state it verbatim.
    if (file !== undefined && a) out.push({ node: call, file, anchor: a.anchor });
  }
  return out.sort((x, y) => x.anchor.start - y.anchor.start);
}

export const sourceTextGrading: StaticRule = {
  id: 'source-text-grading', class: 'misalignment', severity: 'info',
  title: 'A test grades the agent\'s source code by its text (substring or regex), not by what it does',
  *check(ctx) {
    const prose = [ctx.instruction(), ...(ctx.task.steps ?? []).map((s) => s.instruction ?? '')].join('\n');
    for (const tf of tests(ctx)) {
      // Cheap gate: no source file name in the text, nothing read as source.
      if (!CODE_LITERAL.test(tf.tree.text)) continue;
      const reads = fileReads(tf);
      const hasTests = tf.functions.some((f) => f.isTest);
      for (const fn of tf.functions) {
        // pytest collects `test*`; a standalone scorer (verify.py with main()) grades in any function.
        if (hasTests && !fn.isTest) continue;
        const texts = sourceTexts(ctx, tf, fn, reads.get(fn) ?? []);
        if (texts.size === 0) continue;
        const checks = checksIn(tf, fn.body, texts, false)
          .filter((c) => c.literal === undefined || (c.literal.trim().length >= 3 && !prose.includes(c.literal.trim())));
        const first = checks[0];
        if (!first) continue;
        const pattern = first.literal ?? (first.anchor.type === 'string' ? stringValue(tf.tree, first.anchor) : undefined);
        const short = (v: string): string => (v.length > 40 ? `${v.slice(0, 40)}…` : v);
        const what = first.literal !== undefined ? `"${short(first.literal)}"` : pattern !== undefined ? `a match of /${short(pattern)}/` : 'a list of fixed snippets';
        yield {
          file: tf.file, range: ctx.range(tf.file, first.anchor.start, first.anchor.end),
          message: `${fn.name} requires ${what}${checks.length > 1 ? ` (and ${checks.length - 1} more text pattern${checks.length > 2 ? 's' : ''})` : ''} in the source of ${first.file}: code that does the same written another way fails, and the words alone pass. Test the behaviour (run it, import it) instead of its spelling.`,
        };
      }
    }
  },
};
