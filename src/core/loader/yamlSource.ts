import { isMap, isNode, isScalar, isSeq, parseDocument, visit, type Node } from 'yaml';
import { LineIndex, type Range } from '../model/positions';
import { joinPath, type SourceMap } from './sourceMap';

const MAX_FLOW_DEPTH = 64;
/**
 * Resolving an alias searches the whole document, so many aliases cost quadratic time; a task file
 * never needs more than a handful. Past this the file is refused with a problem.
 */
export const MAX_YAML_ALIASES = 256;

export interface YamlParse {
  /** The document as plain data (as far as the parser recovered it); undefined when empty or unusable. */
  readonly data: unknown;
  readonly sources: SourceMap;
  readonly errors: readonly { readonly message: string; readonly range: Range }[];
}

/** Parses YAML keeping every key's and value's range; never throws. */
export function parseYamlWithSources(text: string): YamlParse {
  const lines = new LineIndex(text);
  const deep = flowNestingBeyond(text, MAX_FLOW_DEPTH);
  if (deep !== undefined) {
    // The parser and its conversion to data grow badly with nesting (a `{{{{…` line can exhaust memory).
    return { data: undefined, sources: new Map(), errors: [{ message: `flow collections nested deeper than ${MAX_FLOW_DEPTH} levels`, range: lines.rangeOf(deep, deep + 1) }] };
  }
  let doc: ReturnType<typeof parseDocument>;
  try {
    // Duplicate keys are checked below in one pass: the parser's own check is quadratic in a map's size.
    doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, logLevel: 'error' });
  } catch (e) {
    // The parser recurses on nesting; a pathological document must not take the loader down.
    return { data: undefined, sources: new Map(), errors: [{ message: e instanceof Error ? e.message : String(e), range: lines.rangeOf(0, 0) }] };
  }
  const errors = doc.errors.map((e) => ({
    message: e.message.split('\n')[0] ?? e.message,
    range: lines.rangeOf(e.pos[0], Math.max(e.pos[0], e.pos[1])),
  }));
  let aliases = 0;
  let firstAlias = 0;
  visit(doc, {
    Alias(_k, node) {
      if (aliases++ === 0) firstAlias = node.range?.[0] ?? 0;
    },
    Map(_k, node) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const name = String(pair.key.value);
        if (seen.has(name)) {
          const r = pair.key.range ?? [0, 0];
          errors.push({ message: 'Map keys must be unique', range: lines.rangeOf(r[0], Math.max(r[0], r[1])) });
        }
        seen.add(name);
      }
    },
  });
  let data: unknown;
  if (aliases > MAX_YAML_ALIASES) {
    errors.push({ message: `${aliases} YAML aliases (*name), more than the ${MAX_YAML_ALIASES} a task file may use: refused (resolving them would take quadratic time)`, range: lines.rangeOf(firstAlias, firstAlias + 1) });
    return { data: undefined, sources: new Map(), errors };
  }
  try {
    // A small alias budget keeps "billion laughs" documents from exhausting memory.
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    errors.push({ message: e instanceof Error ? e.message : String(e), range: lines.rangeOf(0, 0) });
    data = undefined;
  }
  const sources: SourceMap = new Map();
  if (doc.contents) collect(doc.contents, [], undefined, sources, lines, text);
  return { data, sources, errors };
}

function collect(node: Node, path: string[], keyRange: Range | undefined, out: SourceMap, lines: LineIndex, text: string): void {
  if (path.length > 0 && node.range) {
    const p = joinPath(path);
    if (!out.has(p)) out.set(p, { ...(keyRange ? { keyRange } : {}), valueRange: trimmedRange(node.range[0], node.range[1], lines, text) });
  }
  if (path.length > 16) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      if (!isScalar(key) || !key.range) continue;
      const name = String(key.value);
      const kr = trimmedRange(key.range[0], key.range[1], lines, text);
      if (isNodeLike(pair.value)) collect(pair.value, [...path, name], kr, out, lines, text);
      else {
        // `key:` with no value: the value is null and sits right after the colon.
        const p = joinPath([...path, name]);
        if (!out.has(p)) out.set(p, { keyRange: kr, valueRange: { start: kr.end, end: kr.end } });
      }
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isNodeLike(item)) collect(item, [...path, String(i)], undefined, out, lines, text);
    });
  }
}

function isNodeLike(v: unknown): v is Node {
  return isNode(v);
}

/** Node ranges may include the trailing line break of block scalars; diagnostics should not. */
function trimmedRange(start: number, end: number, lines: LineIndex, text: string): Range {
  let e = Math.max(start, end);
  while (e > start && /\s/.test(text[e - 1] as string)) e--;
  return lines.rangeOf(start, e);
}

/** Offset of the first `[`/`{` nested deeper than `limit` (quoted text and comments skipped), if any. */
function flowNestingBeyond(text: string, limit: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += c === '"' && text[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === '[' || c === '{') {
      if (++depth > limit) return i;
    } else if ((c === ']' || c === '}') && depth > 0) {
      depth--;
    }
  }
  return undefined;
}
