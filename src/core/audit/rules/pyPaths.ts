/**
 * Which files a Python test reads, by data flow rather than by name: path expressions resolved
 * through module-level bindings (`APP = Path("/app")`, `DATA = APP / "data"`, `os.path.join(ROOT, rel)`),
 * reads through `open`, `Path.read_text`, `pd.read_csv` & co., and one level of local helpers that
 * take the path (or a part of it) as a parameter (`read_file("src/app.py")`). Shared by the rules that
 * ask where the expected value or the graded text comes from.
 */
import { callArgs, calleeLast, calleeName, keywordArg, skipNestedScopes, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { TestFile } from './pyTestFiles';

/** A path as far as the source says: `abs` when fully literal, else the literal tail (`scripts/x.js`). */
export interface PathValue {
  readonly abs?: string;
  readonly tail?: string;
}

export interface FileRead {
  readonly path: PathValue;
  /** The call that reads (anchor for findings). */
  readonly node: SyntaxNode;
  /** The function whose body holds the read (or the call of the helper that reads). */
  readonly fn?: PyFunction;
}

const PATH_CALL = /^(Path|pathlib\.Path|PurePath|PosixPath|str|os\.fspath|os\.path\.abspath|os\.path\.realpath|os\.path\.normpath)$/;
const LOADERS = /^(pd|pandas|np|numpy|polars|pl)\.(read_\w+|load|loadtxt|genfromtxt|fromfile)$|^(json|yaml|toml|tomllib|pickle)\.(load|safe_load)$|^(open|io\.open|codecs\.open)$/;

function join(a: PathValue | undefined, b: string): PathValue | undefined {
  if (!a) return { tail: b };
  if (a.abs !== undefined) return { abs: `${a.abs.replace(/\/+$/, '')}/${b.replace(/^\.?\//, '')}` };
  return { tail: a.tail ? `${a.tail.replace(/\/+$/, '')}/${b}` : b };
}

/** Module-level `NAME = <path expression>` bindings, resolved in order. */
export function moduleBindings(tree: SyntaxTree): Map<string, PathValue> {
  const out = new Map<string, PathValue>();
  for (const st of tree.root.children) {
    const asg = st.type === 'expression_statement' ? st.children.find((c) => c.type === 'assignment') : undefined;
    const left = asg ? childByField(asg, 'left') : undefined;
    const right = asg ? childByField(asg, 'right') : undefined;
    if (left?.type !== 'identifier' || !right) continue;
    const v = resolvePath(tree, right, out);
    if (v) out.set(text(tree, left), v);
  }
  return out;
}

/**
 * The path an expression names, when it is built from literals and known names; an unknown root
 * (`Path(args.root) / "src/x.js"`, `os.environ[...]`) keeps the literal tail.
 */
export function resolvePath(tree: SyntaxTree, n: SyntaxNode, names: ReadonlyMap<string, PathValue>): PathValue | undefined {
  switch (n.type) {
    case 'string': case 'concatenated_string': {
      const v = stringValue(tree, n);
      if (v === undefined || v === '' || /\n/.test(v)) return undefined;
      return v.startsWith('/') ? { abs: v } : { tail: v };
    }
    case 'identifier': return names.get(text(tree, n));
    case 'parenthesized_expression': {
      const inner = n.children.find((c) => c.named);
      return inner ? resolvePath(tree, inner, names) : undefined;
    }
    case 'binary_operator': {
      const op = n.children.find((c) => !c.named)?.type;
      const l = childByField(n, 'left');
      const r = childByField(n, 'right');
      if (op !== '/' || !l || !r) return undefined;
      const rv = resolvePath(tree, r, names);
      const rs = rv?.abs ?? rv?.tail;
      if (rs === undefined) return undefined;
      return join(resolvePath(tree, l, names) ?? { tail: '' }, rs);
    }
    case 'call': {
      const name = calleeName(tree, n);
      const args = callArgs(n).filter((a) => a.type !== 'keyword_argument');
      if (PATH_CALL.test(name)) {
        const first = args[0];
        return first ? resolvePath(tree, first, names) ?? { tail: '' } : undefined;
      }
      if (name === 'os.path.join' && args.length >= 2) {
        let acc = resolvePath(tree, args[0] as SyntaxNode, names) ?? { tail: '' };
        for (const a of args.slice(1)) {
          const v = resolvePath(tree, a, names);
          const s = v?.abs ?? v?.tail;
          if (s === undefined) return undefined;
          acc = s.startsWith('/') ? { abs: s } : (join(acc, s) ?? acc);
        }
        return acc;
      }
      return undefined;
    }
    default: return undefined;
  }
}

/** Mode argument of an `open`-like call says it writes. */
function writesMode(tree: SyntaxTree, call: SyntaxNode, modeIndex: number): boolean {
  const pos = callArgs(call).filter((a) => a.type !== 'keyword_argument')[modeIndex];
  const mode = keywordArg(tree, call, 'mode') ?? pos;
  const v = mode ? stringValue(tree, mode) : undefined;
  return v !== undefined && /[wax+]/.test(v);
}

/** The path read by one call, if it reads a file's content. */
function readTarget(tree: SyntaxTree, call: SyntaxNode): SyntaxNode | undefined {
  const name = calleeName(tree, call);
  const last = calleeLast(tree, call);
  const fnNode = childByField(call, 'function');
  if (fnNode?.type === 'attribute' && /^(read_text|read_bytes|open)$/.test(last)) {
    if (last === 'open' && writesMode(tree, call, 0)) return undefined;
    const obj = childByField(fnNode, 'object');
    // `Path(...).open()` / `P.read_text()`, not `io.open(...)` / `codecs.open(...)` (those pass the path).
    if (obj && !/^(io|codecs|os|gzip|bz2|lzma|tarfile|zipfile)$/.test(text(tree, obj))) return obj;
  }
  if (LOADERS.test(name)) {
    if (/open$/.test(name) && writesMode(tree, call, 1)) return undefined;
    const first = callArgs(call)[0];
    return first?.type === 'keyword_argument' ? undefined : first;
  }
  return undefined;
}

/** Locals of one function bound to path expressions (`p = DATA / "x.csv"`), on top of the module's. */
export function scopeNames(tree: SyntaxTree, fn: PyFunction | undefined, base: ReadonlyMap<string, PathValue>): Map<string, PathValue> {
  const out = new Map(base);
  if (!fn) return out;
  for (const asg of descendants(fn.body, 'assignment', skipNestedScopes)) {
    const left = childByField(asg, 'left');
    const right = childByField(asg, 'right');
    if (left?.type !== 'identifier' || !right) continue;
    const v = resolvePath(tree, right, out);
    if (v) out.set(text(tree, left), v);
  }
  return out;
}

const readsCache = new WeakMap<TestFile, Map<PyFunction | undefined, FileRead[]>>();

/**
 * Every file read per function of a test file (the module level under `undefined`), with calls of
 * local helpers that read a path built from their parameter expanded at the call (`read_file("a.py")`).
 */
export function fileReads(tf: TestFile): Map<PyFunction | undefined, FileRead[]> {
  const cached = readsCache.get(tf);
  if (cached) return cached;
  const tree = tf.tree;
  const mod = moduleBindings(tree);
  const out = new Map<PyFunction | undefined, FileRead[]>();
  // The innermost function holding a node, by walking up to its definition (not by scanning all functions).
  const byDef = new Map(tf.functions.map((f) => [f.node, f]));
  const ownerOf = (n: SyntaxNode): PyFunction | undefined => {
    for (let p = n.parent; p; p = p.parent) {
      const fn = p.type === 'function_definition' ? byDef.get(p) : undefined;
      if (fn) return fn;
    }
    return undefined;
  };
  // Helpers whose read takes its path from parameter `i`: `def read_file(rel): open(os.path.join(ROOT, rel))`.
  const paramReaders = new Map<string, { index: number; prefix: PathValue | undefined }>();
  for (const fn of tf.functions) {
    if (fn.isTest) continue;
    for (const call of descendants(fn.body, 'call', skipNestedScopes)) {
      const target = readTarget(tree, call);
      if (!target) continue;
      const ids = target.type === 'identifier' ? [target] : descendants(target, 'identifier');
      const i = fn.params.findIndex((p) => ids.some((id) => text(tree, id) === p));
      if (i < 0) continue;
      const p = fn.params[i] as string;
      const probe = new Map(scopeNames(tree, fn, mod));
      probe.set(p, { tail: '\u0000' });
      const v = resolvePath(tree, target, probe);
      const s = v?.abs ?? v?.tail ?? '';
      const at = s.indexOf('\u0000');
      const pre = at > 0 ? s.slice(0, at).replace(/\/+$/, '') : '';
      const prefix = at < 0 ? undefined : pre === '' ? undefined : pre.startsWith('/') ? { abs: pre } : { tail: pre };
      paramReaders.set(fn.name, { index: i - (fn.className !== undefined && fn.params[0] === 'self' ? 1 : 0), prefix });
    }
  }
  const scopes = new Map<PyFunction | undefined, Map<string, PathValue>>();
  for (const call of descendants(tree.root, 'call')) {
    const fn = ownerOf(call);
    let names = scopes.get(fn);
    if (!names) { names = scopeNames(tree, fn, mod); scopes.set(fn, names); }
    const target = readTarget(tree, call);
    let path = target ? resolvePath(tree, target, names) : undefined;
    const helper = paramReaders.get(calleeLast(tree, call));
    if (!path && helper) {
      const arg = callArgs(call)[helper.index];
      const v = arg ? resolvePath(tree, arg, names) : undefined;
      const s = v?.abs ?? v?.tail;
      if (s !== undefined) path = s.startsWith('/') ? { abs: s } : helper.prefix ? join(helper.prefix, s) : { tail: s };
    }
    if (!path || (path.abs === undefined && !path.tail)) continue;
    const list = out.get(fn) ?? [];
    list.push({ path, node: call, ...(fn ? { fn } : {}) });
    out.set(fn, list);
  }
  readsCache.set(tf, out);
  return out;
}

/** The functions a function calls by plain name, among the file's own (one module, no imports). */
export function calledHelpers(tf: TestFile, fn: PyFunction): PyFunction[] {
  const byName = new Map(tf.functions.filter((f) => !f.isTest).map((f) => [f.name, f]));
  const out: PyFunction[] = [];
  const seen = new Set<PyFunction>([fn]);
  const queue = [fn];
  while (queue.length > 0 && out.length < 20) {
    const cur = queue.shift() as PyFunction;
    for (const c of descendants(cur.body, 'call', skipNestedScopes)) {
      const h = byName.get(calleeLast(tf.tree, c));
      if (h && !seen.has(h)) { seen.add(h); out.push(h); queue.push(h); }
    }
  }
  return out;
}
