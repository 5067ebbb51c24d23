import { FlatNode, typeMask } from './flatTree';

/**
 * An immutable copy of a tree-sitter tree. Rules read JS data instead of calling into WebAssembly
 * for every property, and the WASM tree is freed right after the copy, so cached trees cost only JS
 * heap. Parsed trees are FlatNodes (typed columns, node objects made on first use: flatTree.ts);
 * the functions below answer their queries from the columns, and work on any SyntaxNode.
 */
export interface SyntaxNode {
  readonly type: string;
  /** Offsets into the source string (UTF-16 code units, like JS strings). */
  readonly start: number;
  readonly end: number;
  readonly named: boolean;
  /** The field name under which the parent holds this node (`name`, `body`, `condition`…). */
  readonly field: string | null;
  readonly children: readonly SyntaxNode[];
  readonly parent: SyntaxNode | null;
}

export interface SyntaxTree {
  readonly text: string;
  readonly root: SyntaxNode;
  readonly hasError: boolean;
}

export function nodeText(tree: SyntaxTree, node: SyntaxNode): string {
  return tree.text.slice(node.start, node.end);
}

export function childByField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  // On a parsed tree, only the child asked for is made (callee names ask this of every call).
  if (node instanceof FlatNode) return node.owner.childByField(node.index, field);
  return node.children.find((c) => c.field === field);
}

export function childrenByField(node: SyntaxNode, field: string): SyntaxNode[] {
  return node.children.filter((c) => c.field === field);
}

export function namedChildren(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((c) => c.named);
}

/** A skip predicate that prunes by node type: queries on parsed trees prune without making the nodes. */
export type TypePrune = ((n: SyntaxNode) => boolean) & { readonly pruneTypes: readonly string[] };

export function pruneTypes(types: readonly string[]): TypePrune {
  const set = new Set(types);
  return Object.assign((n: SyntaxNode) => set.has(n.type), { pruneTypes: types });
}

function pruneMask(node: FlatNode, skip: (n: SyntaxNode) => boolean): Uint8Array | undefined {
  const types = (skip as Partial<TypePrune>).pruneTypes;
  if (!types) return undefined;
  const table = node.owner.table;
  const key = `\u0000prune\u0000${types.join('\u0000')}`;
  let m = table.masks.get(key);
  if (!m) {
    m = new Uint8Array(table.info.length);
    for (const t of types) { const tm = typeMask(table, t); for (let s = 0; s < m.length; s++) m[s] |= tm[s] ?? 0; }
    table.masks.set(key, m);
  }
  return m;
}

/** Depth-first, pre-order. `skip` prunes a subtree (the node itself is still visited). */
export function walk(node: SyntaxNode, visit: (n: SyntaxNode) => void, skip?: (n: SyntaxNode) => boolean): void {
  if (node instanceof FlatNode) {
    // Pre-order is slot order: a pruned node's subtree is the slots up to after[j].
    const t = node.owner;
    const stop = t.after[node.index] ?? node.index + 1;
    for (let j = node.index; j < stop;) {
      const n = t.node(j);
      visit(n);
      j = j !== node.index && skip?.(n) ? t.after[j] ?? j + 1 : j + 1;
    }
    return;
  }
  const stack: SyntaxNode[] = [node];
  while (stack.length) {
    const n = stack.pop() as SyntaxNode;
    visit(n);
    if (n !== node && skip?.(n)) continue;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as SyntaxNode);
  }
}

/** The nodes under `node` (not itself) grouped by type, in document order; `skip` prunes subtrees. */
export function groupByType(node: SyntaxNode, skip?: (n: SyntaxNode) => boolean): Map<string, SyntaxNode[]> {
  const built = new Map<string, SyntaxNode[]>();
  walk(node, (n) => {
    if (n === node) return;
    const list = built.get(n.type);
    if (list) list.push(n);
    else built.set(n.type, [n]);
  }, skip);
  return built;
}

const rootIndex = new WeakMap<SyntaxNode, Map<string, SyntaxNode[]>>();

/** Every node of a tree by type (document order), built once per tree: rules query roots often. */
function indexRoot(root: SyntaxNode): Map<string, SyntaxNode[]> {
  let idx = rootIndex.get(root);
  if (!idx) {
    idx = groupByType(root);
    rootIndex.set(root, idx);
  }
  return idx;
}

export function descendants(node: SyntaxNode, types: ReadonlySet<string> | string, skip?: (n: SyntaxNode) => boolean): SyntaxNode[] {
  if (node instanceof FlatNode) {
    const flat = flatDescendants(node, types, skip);
    if (flat) return flat;
  }
  if (!skip && node.parent === null) {
    const idx = indexRoot(node);
    if (typeof types === 'string') return [...(idx.get(types) ?? [])];
    const out: SyntaxNode[] = [];
    for (const t of types) out.push(...(idx.get(t) ?? []));
    return out.sort((a, b) => a.start - b.start);
  }
  const out: SyntaxNode[] = [];
  const match = typeof types === 'string' ? (t: string) => t === types : (t: string) => types.has(t);
  walk(node, (n) => { if (n !== node && match(n.type)) out.push(n); }, skip);
  return out;
}

/**
 * descendants() from a parsed tree's columns, same nodes in the same order as the generic path below
 * (the root's index for a set of types is sorted by start, a subtree's walk is pre-order); undefined
 * for a skip predicate that does not prune by type.
 */
function flatDescendants(node: FlatNode, types: ReadonlySet<string> | string, skip?: (n: SyntaxNode) => boolean): SyntaxNode[] | undefined {
  const t = node.owner;
  const prune = skip ? pruneMask(node, skip) : undefined;
  if (skip && !prune) return undefined;
  if (!skip && node.index === 0) {
    if (typeof types === 'string') return [...t.ofType(types)];
    const out: SyntaxNode[] = [];
    for (const ty of types) out.push(...t.ofType(ty));
    return out.sort((a, b) => a.start - b.start);
  }
  if (typeof types === 'string') return t.scan(node.index, typeMask(t.table, types), prune);
  const mask = new Uint8Array(t.table.info.length);
  for (const ty of types) { const tm = typeMask(t.table, ty); for (let s = 0; s < mask.length; s++) mask[s] |= tm[s] ?? 0; }
  return t.scan(node.index, mask, prune);
}

export function ancestors(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let p = node.parent; p; p = p.parent) out.push(p);
  return out;
}

export function findAncestor(node: SyntaxNode, pred: (n: SyntaxNode) => boolean, stopAt?: (n: SyntaxNode) => boolean): SyntaxNode | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (pred(p)) return p;
    if (stopAt?.(p)) return undefined;
  }
  return undefined;
}
