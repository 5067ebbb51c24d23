/**
 * A plain, immutable copy of a tree-sitter tree. Rules walk JS objects instead of calling into
 * WebAssembly for every property, and the WASM tree is freed right after the copy, so cached trees
 * cost only JS heap.
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
  return node.children.find((c) => c.field === field);
}

export function childrenByField(node: SyntaxNode, field: string): SyntaxNode[] {
  return node.children.filter((c) => c.field === field);
}

export function namedChildren(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((c) => c.named);
}

/** Depth-first, pre-order. `skip` prunes a subtree (the node itself is still visited). */
export function walk(node: SyntaxNode, visit: (n: SyntaxNode) => void, skip?: (n: SyntaxNode) => boolean): void {
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

/**
 * Hands over an index built while the tree was copied (same content and order as indexRoot's: every
 * node but the root, by type, in document order), which saves walking each tree a second time.
 */
export function primeTypeIndex(root: SyntaxNode, index: Map<string, SyntaxNode[]>): void {
  rootIndex.set(root, index);
}

export function descendants(node: SyntaxNode, types: ReadonlySet<string> | string, skip?: (n: SyntaxNode) => boolean): SyntaxNode[] {
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
