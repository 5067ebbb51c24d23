import fs from 'node:fs';
import path from 'node:path';
import type { Language as LanguageType, Parser as ParserType, Tree } from 'web-tree-sitter';
// `require` so that esbuild picks the package's CommonJS build (its ES build needs import.meta.url).
// eslint-disable-next-line @typescript-eslint/no-require-imports
import TreeSitter = require('web-tree-sitter');
import { primeTypeIndex, type SyntaxNode, type SyntaxTree } from './syntax';

export type GrammarName = 'python' | 'bash';

const GRAMMAR_FILES: Readonly<Record<GrammarName, string>> = {
  python: 'tree-sitter-python.wasm',
  bash: 'tree-sitter-bash.wasm',
};

/**
 * The bundles in dist/ carry copies of the WASM in dist/grammars (scripts/build.mjs); the transpiled
 * tree and tests resolve them from node_modules.
 */
function locate(file: string, fromPackage: () => string): string {
  const bundled = path.join(__dirname, 'grammars', file);
  if (fs.existsSync(bundled)) return bundled;
  return fromPackage();
}

const { Language, Parser } = TreeSitter;

/** Resolved at run time (not bundled): only used when dist/grammars holds no copy. */
function resolvePackageFile(spec: string): string {
  return require.resolve(spec);
}

interface Loaded {
  readonly parsers: Record<GrammarName, ParserType>;
}

let loading: Promise<Loaded> | undefined;

/** Initialises tree-sitter and both grammars once per process. */
function load(): Promise<Loaded> {
  loading ??= (async () => {
    const runtime = locate('tree-sitter.wasm', () => resolvePackageFile(['web-tree-sitter', 'tree-sitter.wasm'].join('/')));
    await Parser.init({ locateFile: () => runtime });
    const make = async (g: GrammarName): Promise<ParserType> => {
      const file = locate(GRAMMAR_FILES[g], () => resolvePackageFile(`@vscode/tree-sitter-wasm/wasm/${GRAMMAR_FILES[g]}`));
      const lang = await Language.load(file);
      const p = new Parser();
      p.setLanguage(lang);
      return p;
    };
    const [python, bash] = await Promise.all([make('python'), make('bash')]);
    return { parsers: { python, bash } };
  })();
  loading.catch(() => { loading = undefined; });
  return loading;
}

let ready: Loaded | undefined;

/**
 * The parse cache holds at most this many trees and this much source text (UTF-16 units): a copied
 * tree costs some 20–40 bytes of heap per source character, so the text budget keeps the cache near
 * 50 MB per thread even when a corpus is full of big test files (a count alone let it reach
 * hundreds of MB on real datasets). Unchanged files of the task being edited stay well inside it.
 */
const CACHE_LIMIT = 1000;
let CACHE_TEXT_BUDGET = 2 * 1024 * 1024;
const cache = new Map<string, SyntaxTree>();
let cachedText = 0;

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

/**
 * Every cursor property is a call into WebAssembly that first copies the cursor into its memory, so
 * the copy asks for as few as it can: the type id (type and namedness come from a per-language
 * table), the two offsets and the field id, and nothing but the id for dropped tokens.
 */
function copyTree(tree: Tree, text: string): SyntaxTree {
  const cursor = tree.walk();
  const language = tree.language;
  const fields = language.fields;
  const index = new Map<string, SyntaxNode[]>();
  const build = (parent: SyntaxNode | null, info: TypeInfo): SyntaxNode => {
    const fieldId = cursor.currentFieldId;
    const node: { -readonly [K in keyof SyntaxNode]: SyntaxNode[K] } = {
      type: info.type,
      start: cursor.startIndex,
      end: cursor.endIndex,
      named: info.named,
      field: fields[fieldId] ?? null,
      children: NO_CHILDREN,
      parent,
    };
    if (parent) {
      // Pre-order, before the children: document order, as descendants() returns it.
      const list = index.get(info.type);
      if (list) list.push(node);
      else index.set(info.type, [node]);
    }
    if (cursor.gotoFirstChild()) {
      const children: SyntaxNode[] = [];
      do {
        const child = typeInfo(language, cursor.nodeTypeId);
        if (child.dropped) continue;
        children.push(build(node, child));
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
      if (children.length) node.children = children;
    }
    return node;
  };
  try {
    const root = build(null, typeInfo(language, cursor.nodeTypeId));
    primeTypeIndex(root, index);
    return { text, root, hasError: tree.rootNode.hasError };
  } finally {
    cursor.delete();
  }
}

/** Parses `text` (cached by content); `initParsers()` must have resolved first. */
export function parseSync(grammar: GrammarName, text: string): SyntaxTree {
  if (!ready) throw new Error('tree-sitter parsers are not initialised: await ensureParsers() first');
  const key = `${grammar}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const parser = ready.parsers[grammar];
  const tree = parser.parse(text);
  if (!tree) throw new Error(`tree-sitter returned no ${grammar} tree`);
  let copy: SyntaxTree;
  try {
    copy = copyTree(tree, text);
  } finally {
    tree.delete();
  }
  cache.set(key, copy);
  cachedText += key.length;
  while (cache.size > CACHE_LIMIT || (cachedText > CACHE_TEXT_BUDGET && cache.size > 1)) {
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
    cachedText -= oldest.length;
  }
  return copy;
}

export async function parse(grammar: GrammarName, text: string): Promise<SyntaxTree> {
  ready ??= await load();
  return parseSync(grammar, text);
}

/** Resolves once the parsers are ready; `parseSync` needs this to have happened. */
export async function ensureParsers(): Promise<void> {
  ready ??= await load();
}

/**
 * Sets the parse cache's text budget (UTF-16 units). Batch audits (the CLI's worker threads) keep it
 * small: across tasks only identical files (a shared bootstrap script) hit, and a big cache is memory
 * that every thread pays for.
 */
export function setParseCacheBudget(chars: number): void {
  CACHE_TEXT_BUDGET = Math.max(0, chars);
  while (cachedText > CACHE_TEXT_BUDGET && cache.size > 0) {
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
    cachedText -= oldest.length;
  }
}
