import fs from 'node:fs';
import path from 'node:path';
import type { Parser as ParserType } from 'web-tree-sitter';
// `require` so that esbuild picks the package's CommonJS build (its ES build needs import.meta.url).
// eslint-disable-next-line @typescript-eslint/no-require-imports
import TreeSitter = require('web-tree-sitter');
import type { SyntaxTree } from './syntax';
import { copyTree, cursorBinding, primeTypeTable, type CursorBinding } from './treeCopy';

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
    // Emscripten fills the options object in as the module itself: kept for the cursor walk below.
    const moduleObject: Record<string, unknown> = { locateFile: () => runtime };
    await Parser.init(moduleObject);
    binding = cursorBinding(moduleObject);
    const make = async (g: GrammarName): Promise<ParserType> => {
      const file = locate(GRAMMAR_FILES[g], () => resolvePackageFile(`@vscode/tree-sitter-wasm/wasm/${GRAMMAR_FILES[g]}`));
      const lang = await Language.load(file);
      primeTypeTable(lang);
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
/** The WebAssembly entry points of the cursor, when this build of web-tree-sitter exposes them. */
let binding: CursorBinding | undefined;

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
    copy = copyTree(tree, text, binding);
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

/** Whether copies read the cursor straight from WebAssembly (treeCopy.ts), after ensureParsers(). */
export function readsCursorDirectly(): boolean {
  return binding !== undefined;
}

/**
 * Parses and copies `text` through web-tree-sitter's public TreeCursor, bypassing the cache: the
 * reference the direct copy is tested against.
 */
export function parseWithPublicCursor(grammar: GrammarName, text: string): SyntaxTree {
  if (!ready) throw new Error('tree-sitter parsers are not initialised: await ensureParsers() first');
  const tree = ready.parsers[grammar].parse(text);
  if (!tree) throw new Error(`tree-sitter returned no ${grammar} tree`);
  try {
    return copyTree(tree, text);
  } finally {
    tree.delete();
  }
}
