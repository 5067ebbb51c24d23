/** Test files of a task parsed once per audit, and the per-function helpers every Python-test rule shares. */
import { calleeLast, calleeName, isAssertingCall, pythonFunctions, skipNestedScopes, stringLiterals, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import { escapeRegExp } from '../../parse/regex';

export interface TestFile {
  readonly file: string;
  readonly tree: SyntaxTree;
  readonly functions: readonly PyFunction[];
}

function testFiles(ctx: AuditContext): TestFile[] {
  const out: TestFile[] = [];
  for (const file of ctx.testPython) {
    const tree = ctx.python(file);
    if (!tree) continue;
    out.push({ file, tree, functions: pythonFunctions(tree) });
  }
  return out;
}

const cache = new WeakMap<AuditContext, TestFile[]>();
export function tests(ctx: AuditContext): TestFile[] {
  let t = cache.get(ctx);
  if (!t) { t = testFiles(ctx); cache.set(ctx, t); }
  return t;
}

/**
 * Nodes of one function body by type, outside nested scopes: each type listed once per body (on first
 * ask, from the tree's columns: a whole-body index would make every node), shared by every rule.
 */
const bodyIndex = new WeakMap<SyntaxNode, Map<string, SyntaxNode[]>>();

function ownOfType(body: SyntaxNode, type: string): SyntaxNode[] {
  let idx = bodyIndex.get(body);
  if (!idx) { idx = new Map(); bodyIndex.set(body, idx); }
  let list = idx.get(type);
  if (!list) { list = descendants(body, type, skipNestedScopes); idx.set(type, list); }
  return list;
}

export function own(fn: PyFunction, types: string | ReadonlySet<string>): SyntaxNode[] {
  if (typeof types === 'string') return ownOfType(fn.body, types);
  const out: SyntaxNode[] = [];
  for (const t of types) out.push(...ownOfType(fn.body, t));
  return out.sort((a, b) => a.start - b.start);
}

export function asserts(fn: PyFunction): SyntaxNode[] {
  return own(fn, 'assert_statement');
}

/** The asserted expression (without the message). */
export function assertExpr(a: SyntaxNode): SyntaxNode | undefined {
  return a.children.find((c) => c.named && c.type !== 'comment');
}

const helperCache = new WeakMap<TestFile, Set<string>>();

/** Local helper functions (module-level, non-test) that themselves assert or raise. */
export function assertingHelpers(tf: TestFile): Set<string> {
  let h = helperCache.get(tf);
  if (!h) { h = computeAssertingHelpers(tf); helperCache.set(tf, h); }
  return h;
}

function computeAssertingHelpers(tf: TestFile): Set<string> {
  const names = new Set<string>();
  for (const fn of tf.functions) {
    if (fn.isTest) continue;
    const raises = own(fn, new Set(['assert_statement', 'raise_statement'])).length > 0;
    const calls = own(fn, 'call').some((c) => isAssertingCall(calleeName(tf.tree, c)));
    if (raises || calls) names.add(fn.name);
  }
  // One more round: helpers calling asserting helpers.
  for (const fn of tf.functions) {
    if (fn.isTest || names.has(fn.name)) continue;
    if (own(fn, 'call').some((c) => names.has(calleeLast(tf.tree, c)))) names.add(fn.name);
  }
  return names;
}

/** Whether the test can fail other than through its own `assert` statements. */
export function failsOtherwise(tf: TestFile, fn: PyFunction, helpers: ReadonlySet<string>): boolean {
  if (own(fn, 'raise_statement').length > 0) return true;
  for (const c of own(fn, 'call')) {
    const name = calleeName(tf.tree, c);
    const last = calleeLast(tf.tree, c);
    if (isAssertingCall(name) || helpers.has(last) || /^(check|verify|validate|expect|ensure|require|compare|run_and_check)/i.test(last)) return true;
    if (/check_call|check_output/.test(name)) return true;
    if (/^subprocess\.run$|^run$/.test(name) && /check\s*=\s*True/.test(text(tf.tree, c))) return true;
    if (/^(json\.loads?|int|float|open|ast\.literal_eval|yaml\.safe_load|importlib\.import_module|__import__)$/.test(name)) continue;
  }
  // Fixtures (parameters) may assert; tests with fixtures other than tmp_path & co. are not judged.
  if (fn.params.some((p) => !/^(self|tmp_path|tmpdir|capsys|monkeypatch|request|caplog)$/.test(p))) return true;
  return fn.decorators.some((d) => /raises|xfail/.test(d));
}

export function fnRange(ctx: AuditContext, tf: TestFile, fn: PyFunction) {
  return ctx.range(tf.file, fn.nameNode.start, fn.nameNode.end);
}

/** The name a literal is bound to in its statement (`X = "/app/data/m.json"`, `X = Path("/…")` → X), if any. */
export function boundName(tree: SyntaxTree, lit: SyntaxNode): string | undefined {
  let p: SyntaxNode | null = lit.parent;
  while (p && p.type !== 'assignment' && p.type !== 'expression_statement' && p.type !== 'block') p = p.parent;
  const left = p?.type === 'assignment' ? childByField(p, 'left') : undefined;
  return left?.type === 'identifier' ? text(tree, left) : undefined;
}

/** The test reads the file's content (not only passes the path to the agent's program or checks it exists). */
export function readByTest(tree: SyntaxTree, lit: SyntaxNode): boolean {
  const src = tree.text;
  const reads = (expr: string): boolean => {
    const e = escapeRegExp(expr);
    return new RegExp(`open\\(\\s*${e}\\s*(\\)|,\\s*(mode\\s*=\\s*)?['"]r)|${e}\\)?\\.(read_text|read_bytes|open)\\(|(read_csv|read_json|load|loadtxt|genfromtxt|read_table|read_parquet)\\(\\s*(open\\()?${e}|filecmp\\.cmp\\([^)]*${e}`).test(src);
  };
  const name = boundName(tree, lit);
  return reads(text(tree, lit)) || (name !== undefined && reads(name));
}

/** The test writes the file at this literal itself (`open(p, 'w')`, `Path(p).write_text`, via a name bound to it). */
export function writtenByTest(tree: SyntaxTree, lit: SyntaxNode): boolean {
  const src = tree.text;
  const writes = (expr: string): boolean => {
    const e = escapeRegExp(expr);
    return new RegExp(`open\\(\\s*${e}\\s*,\\s*(mode\\s*=\\s*)?['"][wax]|${e}\\)?\\.(write_text|write_bytes|touch)\\(|(copy\\w*|move|rename|dump|savetxt|save|to_csv|to_json)\\([^)]*${e}`).test(src);
  };
  // `NAME = Path("/…")` or `NAME = "/…"`, then a write through NAME.
  const name = boundName(tree, lit);
  return writes(text(tree, lit)) || (name !== undefined && writes(name));
}

/** For the cross-file rules: plain string literals of every test file. */
const stringsCache = new WeakMap<AuditContext, { file: string; node: SyntaxNode; value: string; tree: SyntaxTree }[]>();

export function testStrings(ctx: AuditContext): { file: string; node: SyntaxNode; value: string; tree: SyntaxTree }[] {
  let out = stringsCache.get(ctx);
  if (!out) {
    out = [];
    for (const tf of tests(ctx)) for (const s of stringLiterals(tf.tree)) out.push({ file: tf.file, node: s.node, value: s.value, tree: tf.tree });
    stringsCache.set(ctx, out);
  }
  return out;
}

export function testFunctionsOf(ctx: AuditContext): readonly TestFile[] {
  return tests(ctx);
}

