/**
 * Every value the tests expect is written in the instruction. When the tests only read what the agent
 * wrote (they run nothing) and compare it with values keyed like `report["total_requests"] == 6` or an
 * `EXPECTED = {"total_requests": 6, …}` table, and the instruction states each of those key/value pairs
 * on one line ("`total_requests` is `6`"), the agent can copy them into the output without doing the
 * task. Decided from data: the pairs the tests hold, and the lines of the instruction.
 */
import { codeText, stringValue, text } from '../../parse/python';
import { escapeRegExp, standaloneWord } from '../../parse/regex';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { runsSomething } from './answerChecks';
import { testFunctionsOf } from './pythonTests';

interface ExpectedPair { readonly key: string; readonly value: string; readonly file: string; readonly node: SyntaxNode }

/** The name a dictionary literal is assigned to (`EXPECTED = {…}`), when it is. */
function assignedName(tree: SyntaxTree, dict: SyntaxNode): string | undefined {
  const parent = dict.parent;
  if (parent?.type !== 'assignment') return undefined;
  const left = childByField(parent, 'left');
  return left?.type === 'identifier' ? text(tree, left) : undefined;
}

/**
 * What an assert checks: a keyed literal (`x["k"] == 6`), a value from a named expected table compared
 * in a loop over it, the output's structure (exists, isinstance, key presence, the key set),
 * or something else — a computed value, which means the tests ask more than the stated values.
 */
function assertKind(tree: SyntaxTree, a: SyntaxNode, tables: ReadonlySet<string>): 'pair' | 'structure' | 'other' {
  const e = a.children.find((c) => c.named && c.type !== 'comment');
  if (!e) return 'other';
  const t = text(tree, e).replace(/\s+/g, ' ');
  if (/^(not )?(os\.path\.(exists|isfile|isdir)\(|(Path\([^()]*\)|\w+(\.\w+)*)\.(exists|is_file|is_dir)\(\)$|isinstance\(|False$)/.test(t)) return 'structure';
  if (/^["'][\w .-]+["'] (not )?in \w+(\.\w+\(\))?$/.test(t)) return 'structure';
  if (/^(set\(\w+(\.keys\(\))?\)|\w+\.keys\(\)) == (\{|set\(|\w+$)/.test(t)) return 'structure';
  if (e.type === 'comparison_operator') {
    const [l, r] = e.children.filter((x) => x.named);
    if (l && r && ((keyRead(tree, l) !== undefined && scalar(tree, r) !== undefined) || (keyRead(tree, r) !== undefined && scalar(tree, l) !== undefined))) return 'pair';
    // `report.get(key) == value` inside `for key, value in EXPECTED.items():`
    for (let p = a.parent; p; p = p.parent) {
      if (p.type !== 'for_statement') continue;
      const iter = childByField(p, 'right');
      if (iter && [...tables].some((n) => new RegExp(`^${n}(\\.items\\(\\))?$`).test(text(tree, iter)))) return 'pair';
    }
  }
  return 'other';
}

const NUMBER = new Set(['integer', 'float']);

/** A scalar literal's value as the instruction would show it; undefined for booleans, empty strings and non-literals. */
function scalar(tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (NUMBER.has(n.type)) return text(tree, n);
  if (n.type !== 'string') return undefined;
  const v = stringValue(tree, n);
  return v !== undefined && v.trim().length >= 2 ? v : undefined;
}

/** The key a side of a comparison reads: `x["key"]`, or `x.get("key")`. */
export function keyRead(tree: SyntaxTree, n: SyntaxNode): string | undefined {
  if (n.type === 'subscript') {
    const index = childByField(n, 'subscript');
    return index?.type === 'string' ? stringValue(tree, index) : undefined;
  }
  if (n.type === 'call' && /\.get$/.test(text(tree, childByField(n, 'function') ?? n))) {
    const first = childByField(n, 'arguments')?.children.find((c) => c.named);
    return first?.type === 'string' ? stringValue(tree, first) : undefined;
  }
  return undefined;
}

/** `{"key": 6, …}` entries and `x["key"] == 6` (or `x.get("key") == 6`) comparisons of one test file. */
function pairsOf(file: string, tree: SyntaxTree): ExpectedPair[] {
  const out: ExpectedPair[] = [];
  for (const p of descendants(tree.root, 'pair')) {
    const k = childByField(p, 'key');
    const v = childByField(p, 'value');
    const key = k?.type === 'string' ? stringValue(tree, k) : undefined;
    const value = v ? scalar(tree, v) : undefined;
    if (key && value !== undefined) out.push({ key, value, file, node: p });
  }
  for (const c of descendants(tree.root, 'comparison_operator')) {
    const ops = c.children.filter((x) => !x.named).map((x) => x.type);
    if (ops.length !== 1 || ops[0] !== '==') continue;
    const [l, r] = c.children.filter((x) => x.named);
    if (!l || !r) continue;
    const lk = keyRead(tree, l);
    const key = lk ?? keyRead(tree, r);
    const lit = lk !== undefined ? r : l;
    const value = key !== undefined ? scalar(tree, lit) : undefined;
    if (key && value !== undefined) out.push({ key, value, file, node: c });
  }
  return out;
}

/** Modules a test reads the agent's output with; any other import may be the agent's own code. */
const READERS = new Set(['json', 'os', 're', 'pathlib', 'pytest', 'csv', 'math', 'sys', 'typing', 'collections', 'yaml', 'pandas', 'numpy', 'sqlite3', 'hashlib', 'datetime', 'glob', '__future__']);

function importsBeyondReaders(source: string): boolean {
  for (const m of source.matchAll(/^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))/gm)) {
    const mods = m[1] !== undefined ? [m[1]] : (m[2] ?? '').split(',');
    if (mods.some((x) => !READERS.has(x.trim().split('.')[0] ?? ''))) return true;
  }
  return false;
}

/** The first line of the instruction that names the key and its value (a number as a whole number), or -1. */
function statedAt(lines: readonly string[], p: ExpectedPair): number {
  const key = standaloneWord(p.key);
  const value = /^-?\d+(\.\d+)?$/.test(p.value) ? new RegExp(`(^|[^\\w.])${escapeRegExp(p.value)}([^\\w]|\\.(?!\\d)|$)`) : new RegExp(escapeRegExp(p.value));
  return lines.findIndex((l) => key.test(l) && value.test(l.replace(key, ' ')));
}

export const answerInInstruction: StaticRule = {
  id: 'answer-in-instruction', class: 'misalignment', severity: 'warning',
  title: 'The instruction states every value the tests expect',
  *check(ctx) {
    const files = testFunctionsOf(ctx);
    if (files.length === 0) return;
    // Tests that run the agent's program (or anything), or import its code, check behaviour on their
    // own inputs, not a copied value.
    if (files.some((tf) => runsSomething(tf.tree) || /\burllib\b/.test(codeText(tf.tree)) || importsBeyondReaders(codeText(tf.tree)))) return;
    // Every assert of every test checks a stated value or the output's shape: nothing else is asked.
    for (const tf of files) {
      const tables = new Set(descendants(tf.tree.root, 'dictionary').map((d) => assignedName(tf.tree, d)).filter((n): n is string => n !== undefined));
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const a of descendants(fn.body, 'assert_statement')) if (assertKind(tf.tree, a, tables) === 'other') return;
      }
    }
    const pairs = files.flatMap((tf) => pairsOf(tf.file, tf.tree));
    // Several values for one key are options the instruction lists (`winner`: a, b or tie), not the answer.
    const perKey = new Map<string, Set<string>>();
    for (const p of pairs) perKey.set(p.key, (perKey.get(p.key) ?? new Set()).add(p.value));
    if ([...perKey.values()].some((v) => v.size > 1)) return;
    const distinct = new Map(pairs.map((p) => [`${p.key}\u0000${p.value}`, p]));
    if (distinct.size < 2) return;
    const lines = ctx.instruction().split(/\r?\n/);
    if (![...distinct.values()].every((p) => statedAt(lines, p) >= 0)) return;
    const first = pairs[0];
    if (!first) return;
    const shown = [...distinct.values()].slice(0, 4).map((p) => `${p.key} = ${p.value}`).join(', ');
    // Reported where the fix goes: the instruction's line that gives the first value (the file holding
    // the instruction, task.yaml for Terminal-Bench 1); else the test that compares it.
    const instrFile = ctx.task.instructionFile;
    const fileLines = (ctx.text(instrFile) ?? '').split('\n');
    const at = statedAt(fileLines, first);
    const where = at >= 0 && instrFile
      ? { file: instrFile, range: { start: { line: at, character: 0 }, end: { line: at, character: (fileLines[at] ?? '').replace(/\r$/, '').length } } }
      : { file: first.file, range: ctx.range(first.file, first.node.start, first.node.end) };
    yield {
      ...where,
      message: `Every value the tests expect is written in the instruction (${shown}${distinct.size > 4 ? ', …' : ''}), and the tests only read what the agent wrote: an agent copies them into the output without doing the task. Keep the expected values out of the instruction, or check the agent's program on inputs it has not seen.`,
    };
  },
};
