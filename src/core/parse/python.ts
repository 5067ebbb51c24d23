import { FlatNode, type FlatTree } from './flatTree';
import { childByField, descendants, pruneTypes, type SyntaxNode, type SyntaxTree } from './syntax';

export interface PyFunction {
  readonly node: SyntaxNode;
  readonly name: string;
  readonly nameNode: SyntaxNode;
  readonly body: SyntaxNode;
  readonly className?: string;
  readonly params: readonly string[];
  readonly decorators: readonly string[];
  /** Collected by pytest: `test*` functions at module level or in `Test*` classes. */
  readonly isTest: boolean;
}

/** Prune nested functions, classes and lambdas: their statements belong to another scope. */
export const skipNestedScopes = pruneTypes(['function_definition', 'class_definition', 'lambda']);

export function text(tree: SyntaxTree, n: SyntaxNode): string {
  return tree.text.slice(n.start, n.end);
}

const codeTexts = new WeakMap<SyntaxNode, string>();
const QUOTED_OR_COMMENT: ReadonlySet<string> = new Set(['string', 'comment']);

/**
 * The code of `within` with every string literal and comment blanked to spaces (offsets and newlines
 * kept): what a check for names the code uses reads, so a docstring or message that says "requests" or
 * "subprocess" is not taken for a call. Cached per node (parse trees are shared by content).
 */
export function codeText(tree: SyntaxTree, within: SyntaxNode = tree.root): string {
  const cached = codeTexts.get(within);
  if (cached !== undefined) return cached;
  const parts: string[] = [];
  let at = within.start;
  // Sorted by start; an f-string's nested strings lie inside their parent's span and are skipped.
  for (const n of descendants(within, QUOTED_OR_COMMENT)) {
    if (n.end <= at) continue;
    parts.push(tree.text.slice(at, n.start), tree.text.slice(n.start, n.end).replace(/[^\n]/g, ' '));
    at = n.end;
  }
  parts.push(tree.text.slice(at, within.end));
  const code = parts.join('');
  codeTexts.set(within, code);
  return code;
}

export function pythonFunctions(tree: SyntaxTree): PyFunction[] {
  const out: PyFunction[] = [];
  for (const fn of descendants(tree.root, 'function_definition')) {
    const nameNode = childByField(fn, 'name');
    const body = childByField(fn, 'body');
    if (!nameNode || !body) continue;
    const name = text(tree, nameNode);
    let className: string | undefined;
    let nestedInFunction = false;
    for (let p = fn.parent; p; p = p.parent) {
      if (p.type === 'function_definition') { nestedInFunction = true; break; }
      if (p.type === 'class_definition') {
        const cn = childByField(p, 'name');
        className = cn ? text(tree, cn) : undefined;
        break;
      }
    }
    const decorated = fn.parent?.type === 'decorated_definition' ? fn.parent : undefined;
    const decorators = decorated ? decorated.children.filter((c) => c.type === 'decorator').map((d) => text(tree, d).slice(1).trim()) : [];
    const paramsNode = childByField(fn, 'parameters');
    const params = paramsNode
      ? paramsNode.children.filter((c) => c.named).map((c) => {
        const id = c.type === 'identifier' ? c : (childByField(c, 'name') ?? c.children.find((x) => x.type === 'identifier'));
        return id ? text(tree, id) : text(tree, c);
      })
      : [];
    const isTest = !nestedInFunction && name.startsWith('test') && (className === undefined || className.startsWith('Test'));
    out.push({ node: fn, name, nameNode, body, params, decorators, isTest, ...(className !== undefined ? { className } : {}) });
  }
  return out;
}

/** Dotted callee text without whitespace: `os.path.exists`, `subprocess.run`, `Path(x).exists`. */
export function calleeName(tree: SyntaxTree, call: SyntaxNode): string {
  const fn = childByField(call, 'function');
  return fn ? text(tree, fn).replace(/\s+/g, '') : '';
}

/** The last dotted component of a callee: `exists` for `os.path.exists` and `Path(x).exists`. */
export function calleeLast(tree: SyntaxTree, call: SyntaxNode): string {
  const fn = childByField(call, 'function');
  if (!fn) return '';
  if (fn.type === 'attribute') {
    const attr = childByField(fn, 'attribute');
    return attr ? text(tree, attr) : '';
  }
  return text(tree, fn);
}

export function callArgs(call: SyntaxNode): SyntaxNode[] {
  const args = childByField(call, 'arguments');
  return args ? args.children.filter((c) => c.named && c.type !== 'comment') : [];
}

export function keywordArg(tree: SyntaxTree, call: SyntaxNode, name: string): SyntaxNode | undefined {
  for (const a of callArgs(call)) {
    if (a.type !== 'keyword_argument') continue;
    const n = childByField(a, 'name');
    if (n && text(tree, n) === name) return childByField(a, 'value');
  }
  return undefined;
}

/** The literal value of a plain (non-f, non-interpolated) string; undefined otherwise. */
export function stringValue(tree: SyntaxTree, n: SyntaxNode): string | undefined {
  // Rules ask this of every string: on a parsed tree it reads the columns and makes no child nodes.
  if (n instanceof FlatNode) return flatStringValue(tree.text, n.owner, n.index);
  if (n.type === 'concatenated_string') {
    let out = '';
    for (const c of n.children.filter((x) => x.named)) {
      const v = stringValue(tree, c);
      if (v === undefined) return undefined;
      out += v;
    }
    return out;
  }
  if (n.type !== 'string') return undefined;
  if (n.children.some((c) => c.type === 'interpolation')) return undefined;
  const start = n.children.find((c) => c.type === 'string_start');
  const raw = start ? /r/i.test(text(tree, start)) : false;
  let out = '';
  for (const c of n.children) {
    if (c.type === 'string_content') out += text(tree, c);
    else if (c.type === 'escape_sequence') out += raw ? text(tree, c) : unescape(text(tree, c));
  }
  return out;
}

/** stringValue() over a parsed tree's columns: the same steps on slot i's children. */
function flatStringValue(src: string, t: FlatTree, i: number): string | undefined {
  const info = t.table.info;
  const type = info[t.slot[i]].type;
  const stop = t.after[i];
  if (type === 'concatenated_string') {
    let out = '';
    for (let j = i + 1; j < stop; j = t.after[j]) {
      if (!info[t.slot[j]].named) continue;
      const v = flatStringValue(src, t, j);
      if (v === undefined) return undefined;
      out += v;
    }
    return out;
  }
  if (type !== 'string') return undefined;
  let raw: boolean | undefined;
  for (let j = i + 1; j < stop; j = t.after[j]) {
    const ty = info[t.slot[j]].type;
    if (ty === 'interpolation') return undefined;
    if (raw === undefined && ty === 'string_start') raw = /r/i.test(src.slice(t.start[j], t.end[j]));
  }
  let out = '';
  for (let j = i + 1; j < stop; j = t.after[j]) {
    const ty = info[t.slot[j]].type;
    if (ty === 'string_content') out += src.slice(t.start[j], t.end[j]);
    else if (ty === 'escape_sequence') out += raw ? src.slice(t.start[j], t.end[j]) : unescape(src.slice(t.start[j], t.end[j]));
  }
  return out;
}

function unescape(seq: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"', r: '\r', '0': '\0' };
  return map[seq.slice(1)] ?? seq;
}

/** All plain string literals, with their values. */
export function stringLiterals(tree: SyntaxTree, within: SyntaxNode = tree.root): { node: SyntaxNode; value: string }[] {
  const out: { node: SyntaxNode; value: string }[] = [];
  for (const s of descendants(within, 'string')) {
    if (s.parent?.type === 'concatenated_string') continue;
    const value = stringValue(tree, s);
    if (value !== undefined) out.push({ node: s, value });
  }
  for (const s of descendants(within, 'concatenated_string')) {
    const value = stringValue(tree, s);
    if (value !== undefined) out.push({ node: s, value });
  }
  return out;
}

/** Statements that assert: `assert`, `pytest.raises`/`fail`, `self.assert*`, `np.testing.assert_*`, `raise`. */
export function isAssertingCall(name: string): boolean {
  return /(^|\.)(assert\w*|fail|raises|warns|approx)$/i.test(name) || /(^|\.)assert_\w+$/.test(name) || /^self\.assert/.test(name);
}
