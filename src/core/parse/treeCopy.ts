import type { Language as LanguageType, Tree, TreeCursor } from 'web-tree-sitter';
import { primeTypeIndex, type SyntaxNode, type SyntaxTree } from './syntax';

/**
 * Punctuation tokens no rule reads: leaving them out of the copy saves most of the WebAssembly calls
 * (operators such as `==`, `||`, `&`, `>` and quotes are kept).
 */
const DROPPED_TOKENS = new Set(['(', ')', ',', ':', '[', ']', '{', '}', '.', ';', 'def', 'class', 'return', 'import', 'from', 'as', 'if', 'then', 'fi', 'do', 'done', 'else', 'elif', 'while', 'for', 'in', 'with', 'try', 'except', 'finally', 'assert', 'pass', '$', '${', '$(', '`']);

/** Shared by every leaf (about half the nodes): fewer allocations, less garbage collection. */
const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

/** What the copy needs to know about a node type, looked up once per type id instead of per node. */
interface TypeInfo {
  readonly type: string;
  readonly named: boolean;
  readonly dropped: boolean;
}

const typeTables = new WeakMap<LanguageType, TypeInfo[]>();

function typeInfo(language: LanguageType, id: number): TypeInfo {
  let table = typeTables.get(language);
  if (!table) { table = []; typeTables.set(language, table); }
  let info = table[id];
  if (!info) {
    // Same answers as the cursor's nodeType / nodeIsNamed: a node's namedness is its (alias) symbol's.
    const type = language.types[id] ?? 'ERROR';
    const named = language.nodeTypeIsNamed(id);
    info = { type, named, dropped: !named && DROPPED_TOKENS.has(type) };
    table[id] = info;
  }
  return info;
}

/** Fills a language's type table for every symbol, so that no copy asks WebAssembly for it. */
export function primeTypeTable(language: LanguageType): void {
  for (let id = 0; id < language.nodeTypeCount; id++) typeInfo(language, id);
}

/**
 * The cursor's WebAssembly entry points (web-tree-sitter's lib/tree-sitter.c). Each takes the tree
 * and reads the cursor from the module's transfer buffer; the moves write it back there. The public
 * TreeCursor copies its four words into that buffer before every call and out after every move (a
 * generic `setValue`/`getValue` per word): for a walk that makes no other call in between, the
 * buffer already holds the cursor, and those copies are most of the cost of reading a tree.
 */
export interface CursorBinding {
  readonly first: (tree: number) => number;
  readonly next: (tree: number) => number;
  readonly parent: (tree: number) => number;
  readonly typeId: (tree: number) => number;
  readonly fieldId: (tree: number) => number;
  readonly start: (tree: number) => number;
  readonly end: (tree: number) => number;
  readonly delete: (tree: number) => void;
}

const ENTRY_POINTS = {
  first: '_ts_tree_cursor_goto_first_child_wasm',
  next: '_ts_tree_cursor_goto_next_sibling_wasm',
  parent: '_ts_tree_cursor_goto_parent_wasm',
  typeId: '_ts_tree_cursor_current_node_type_id_wasm',
  fieldId: '_ts_tree_cursor_current_field_id_wasm',
  start: '_ts_tree_cursor_start_index_wasm',
  end: '_ts_tree_cursor_end_index_wasm',
  delete: '_ts_tree_cursor_delete_wasm',
} as const;

/**
 * The entry points from the initialised Emscripten module (the object handed to `Parser.init`, which
 * Emscripten fills in as the module), or undefined when any is missing: the copy then goes through
 * the public API.
 */
export function cursorBinding(module: Readonly<Record<string, unknown>>): CursorBinding | undefined {
  const out: Partial<Record<keyof CursorBinding, (tree: number) => number>> = {};
  for (const [key, name] of Object.entries(ENTRY_POINTS) as [keyof CursorBinding, string][]) {
    const fn = module[name];
    if (typeof fn !== 'function') return undefined;
    out[key] = fn as (tree: number) => number;
  }
  return out as CursorBinding;
}

/** The internal handle of a tree (its address in WebAssembly memory), when it has one. */
function treeHandle(tree: Tree): number | undefined {
  const h = (tree as unknown as { readonly 0?: unknown })[0];
  return typeof h === 'number' && h !== 0 ? h : undefined;
}

type MutableNode = { -readonly [K in keyof SyntaxNode]: SyntaxNode[K] };

/** Builds the copy; `node` records the node (and indexes it) before its children are read. */
interface Builder {
  readonly index: Map<string, SyntaxNode[]>;
  node(parent: SyntaxNode | null, info: TypeInfo, start: number, end: number, fieldId: number): MutableNode;
}

function builder(fields: readonly (string | null)[]): Builder {
  const index = new Map<string, SyntaxNode[]>();
  return {
    index,
    node(parent, info, start, end, fieldId) {
      const node: MutableNode = { type: info.type, start, end, named: info.named, field: fields[fieldId] ?? null, children: NO_CHILDREN, parent };
      if (parent) {
        // Pre-order, before the children: document order, as descendants() returns it.
        const list = index.get(info.type);
        if (list) list.push(node);
        else index.set(info.type, [node]);
      }
      return node;
    },
  };
}

/** The walk through the transfer buffer (see CursorBinding): no JS-side cursor state at all. */
function walkDirect(b: CursorBinding, t: number, language: LanguageType, out: Builder): SyntaxNode {
  const build = (parent: SyntaxNode | null, info: TypeInfo): SyntaxNode => {
    const node = out.node(parent, info, b.start(t), b.end(t), b.fieldId(t));
    if (b.first(t) !== 0) {
      const children: SyntaxNode[] = [];
      do {
        const child = typeInfo(language, b.typeId(t));
        if (child.dropped) continue;
        children.push(build(node, child));
      } while (b.next(t) !== 0);
      b.parent(t);
      if (children.length) node.children = children;
    }
    return node;
  };
  return build(null, typeInfo(language, b.typeId(t)));
}

/** The same walk through the public TreeCursor (a web-tree-sitter without the entry points). */
function walkPublic(c: TreeCursor, language: LanguageType, out: Builder): SyntaxNode {
  const build = (parent: SyntaxNode | null, info: TypeInfo): SyntaxNode => {
    const node = out.node(parent, info, c.startIndex, c.endIndex, c.currentFieldId);
    if (c.gotoFirstChild()) {
      const children: SyntaxNode[] = [];
      do {
        const child = typeInfo(language, c.nodeTypeId);
        if (child.dropped) continue;
        children.push(build(node, child));
      } while (c.gotoNextSibling());
      c.gotoParent();
      if (children.length) node.children = children;
    }
    return node;
  };
  return build(null, typeInfo(language, c.nodeTypeId));
}

/**
 * Copies a tree into plain objects, asking for as little as it can per node: the type id (type and
 * namedness come from a per-language table), the two offsets and the field id, and nothing but the
 * id for dropped tokens. With `binding` the cursor is read straight from the transfer buffer (see
 * CursorBinding); without it, through the public TreeCursor. Both give the same copy (tested).
 */
export function copyTree(tree: Tree, text: string, binding?: CursorBinding): SyntaxTree {
  const language = tree.language;
  // Asked before the walk: the root node goes through the transfer buffer too.
  const hasError = tree.rootNode.hasError;
  const handle = binding ? treeHandle(tree) : undefined;
  const cursor = tree.walk();
  const out = builder(language.fields);
  try {
    const root = binding && handle !== undefined ? walkDirect(binding, handle, language, out) : walkPublic(cursor, language, out);
    primeTypeIndex(root, out.index);
    return { text, root, hasError };
  } finally {
    // The JS cursor still holds the words of its start; the buffer holds where the walk left it
    // (its stack may have been reallocated meanwhile), and that is what must be freed.
    if (binding && handle !== undefined) binding.delete(handle);
    else cursor.delete();
  }
}
