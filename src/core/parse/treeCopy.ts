import type { Language as LanguageType, Tree, TreeCursor } from 'web-tree-sitter';
import { FlatBuilder, type LanguageTable, type TypeInfo } from './flatTree';
import type { SyntaxTree } from './syntax';

/**
 * Punctuation tokens no rule reads: leaving them out of the copy saves most of the WebAssembly calls
 * (operators such as `==`, `||`, `&`, `>` and quotes are kept).
 */
const DROPPED_TOKENS = new Set(['(', ')', ',', ':', '[', ']', '{', '}', '.', ';', 'def', 'class', 'return', 'import', 'from', 'as', 'if', 'then', 'fi', 'do', 'done', 'else', 'elif', 'while', 'for', 'in', 'with', 'try', 'except', 'finally', 'assert', 'pass', '$', '${', '$(', '`']);

/** A language's table, plus the slots given to symbol ids beyond its symbol table. */
type Table = LanguageTable & { readonly extra: Map<number, number> };

const tables = new WeakMap<LanguageType, Table>();

function table(language: LanguageType): Table {
  let t = tables.get(language);
  if (!t) {
    t = { info: [], fields: language.fields, masks: new Map(), fieldIds: new Map(), extra: new Map() };
    for (let id = 0; id < language.nodeTypeCount; id++) t.info.push(typeInfo(language, id));
    tables.set(language, t);
  }
  return t;
}

/**
 * Same answers as the cursor's nodeType / nodeIsNamed: a node's namedness is its (alias) symbol's;
 * an id outside the symbol table (the ERROR symbol, 65535) is named ERROR.
 */
function typeInfo(language: LanguageType, id: number): TypeInfo {
  const type = language.types[id] ?? 'ERROR';
  const named = language.nodeTypeIsNamed(id);
  return { type, named, dropped: !named && DROPPED_TOKENS.has(type) };
}

/** The table slot of a symbol id: the id itself inside the symbol table, an appended slot beyond it. */
function slotOf(t: Table, language: LanguageType, id: number): number {
  if (id < language.nodeTypeCount) return id;
  let s = t.extra.get(id);
  if (s === undefined) {
    s = t.info.length;
    t.info.push(typeInfo(language, id));
    t.extra.set(id, s);
    t.masks.clear(); // masks are as long as the table was when made
  }
  return s;
}

/** Fills a language's type table for every symbol, so that no copy asks WebAssembly for it. */
export function primeTypeTable(language: LanguageType): void {
  table(language);
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

/** The walk through the transfer buffer (see CursorBinding): no JS-side cursor state at all. */
function walkDirect(b: CursorBinding, t: number, language: LanguageType, tab: Table, out: FlatBuilder): void {
  const build = (parent: number, slot: number): void => {
    const i = out.open(parent, slot, b.start(t), b.end(t), b.fieldId(t));
    if (b.first(t) !== 0) {
      do {
        const child = slotOf(tab, language, b.typeId(t));
        if ((tab.info[child] as TypeInfo).dropped) continue;
        build(i, child);
      } while (b.next(t) !== 0);
      b.parent(t);
    }
    out.close(i);
  };
  build(-1, slotOf(tab, language, b.typeId(t)));
}

/** The same walk through the public TreeCursor (a web-tree-sitter without the entry points). */
function walkPublic(c: TreeCursor, language: LanguageType, tab: Table, out: FlatBuilder): void {
  const build = (parent: number, slot: number): void => {
    const i = out.open(parent, slot, c.startIndex, c.endIndex, c.currentFieldId);
    if (c.gotoFirstChild()) {
      do {
        const child = slotOf(tab, language, c.nodeTypeId);
        if ((tab.info[child] as TypeInfo).dropped) continue;
        build(i, child);
      } while (c.gotoNextSibling());
      c.gotoParent();
    }
    out.close(i);
  };
  build(-1, slotOf(tab, language, c.nodeTypeId));
}

/**
 * Copies a tree into typed columns (flatTree.ts), asking for as little as it can per node: the type
 * id (type and namedness come from a per-language table), the two offsets and the field id, and
 * nothing but the id for dropped tokens; node objects are made later, when a rule reaches them. With `binding` the cursor is read straight from the transfer buffer (see
 * CursorBinding); without it, through the public TreeCursor. Both give the same copy (tested).
 */
export function copyTree(tree: Tree, text: string, binding?: CursorBinding): SyntaxTree {
  const language = tree.language;
  // Asked before the walk: the root node goes through the transfer buffer too.
  const hasError = tree.rootNode.hasError;
  const handle = binding ? treeHandle(tree) : undefined;
  const cursor = tree.walk();
  const tab = table(language);
  // About one kept node per 4–5 characters of Python or Bash: most trees never grow the columns.
  const out = new FlatBuilder(tab, (text.length >> 2) + 16);
  try {
    if (binding && handle !== undefined) walkDirect(binding, handle, language, tab, out);
    else walkPublic(cursor, language, tab, out);
    return { text, root: out.finish().node(0), hasError };
  } finally {
    // The JS cursor still holds the words of its start; the buffer holds where the walk left it
    // (its stack may have been reallocated meanwhile), and that is what must be freed.
    if (binding && handle !== undefined) binding.delete(handle);
    else cursor.delete();
  }
}
