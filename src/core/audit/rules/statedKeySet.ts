/**
 * The instruction fixes the output object's keys ("a JSON object with exactly these keys", "no other
 * fields"), and the tests read those keys one by one but never check the key set: an object with extra
 * keys passes, so a stated requirement is never graded. Decided from data: the instruction's sentence,
 * the keys the tests read (`data["k"]`, `data.get("k")`), and whether any test code compares the
 * object's size or key set (or the whole object) at all.
 */
import { codeText, text, type PyFunction } from '../../parse/python';
import { escapeRegExp, standaloneWord } from '../../parse/regex';
import { childByField, descendants, type SyntaxNode } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { keyRead } from './answerInInstruction';
import { assertExpr, asserts, fnRange, type TestFile } from './pyTestFiles';
import { testFunctionsOf } from './pythonTests';

const COUNT = '(?:\\d+|two|three|four|five|six|seven|eight|nine|ten)';
const KEYS = '(?:keys|fields|properties)';
/** "exactly (these|the following|three) keys", "only these keys", "no other/extra fields", "exactly N top-level keys". */
const EXACT_KEYS = new RegExp(
  `\\bexactly\\s+(?:the\\s+)?(?:following\\s+|these\\s+)?(?:${COUNT}\\s+)?(?:top[- ]level\\s+|required\\s+|json\\s+)?${KEYS}\\b` +
  `|\\b(?:contains?|containing|with|has|have)\\s+only\\s+(?:the\\s+)?(?:following\\s+|these\\s+)?(?:${COUNT}\\s+)?${KEYS}\\b` +
  `|\\bno\\s+(?:other|extra|additional)\\s+(?:top[- ]level\\s+)?${KEYS}\\b`, 'i');
const EXACT_KEYS_ALL = new RegExp(EXACT_KEYS.source, 'gi');

/**
 * Test code that checks the size or key set of the object the tests read keys from (`obj`: `data`,
 * `_load()`), or compares the whole object; or a schema that forbids extra keys. Any of these and extra
 * keys may well fail (broad on purpose: when in doubt, the key set counts as checked).
 */
function keySetChecks(obj: string): RegExp[] {
  const o = `${escapeRegExp(obj)}(?:\\.keys\\(\\))?`;
  const wrapped = `\\b(?:len|set|sorted|list|tuple|frozenset)\\(\\s*${o}\\s*\\)`;
  return [
    new RegExp(`${wrapped}\\s*(?:==|!=|<=|<|>=|>|\\^|-(?!\\s*\\d))|(?:==|!=)\\s*${wrapped}`),
    new RegExp(`(?:^|[^\\w.])${escapeRegExp(obj)}\\.keys\\(\\)\\s*(?:==|!=|\\^|-(?!\\s*\\d))|(?:==|!=)\\s*${escapeRegExp(obj)}\\.keys\\(\\)`),
    // The whole object against a literal or a named expected object.
    new RegExp(`\\bassert\\s+${escapeRegExp(obj)}\\s*==|==\\s*${escapeRegExp(obj)}\\s*(?:,|$)`, 'm'),
  ];
}
/** A name compared as a whole (`assert got == {…}`, `extra = got - allowed`). */
const comparedName = (name: string): RegExp => new RegExp(`(?:^|[^\\w.])${escapeRegExp(name)}\\s*(?:==|!=|\\^|-(?!\\s*\\d))|(?:==|!=)\\s*${escapeRegExp(name)}(?![\\w.(\\[])`, 'm');
/** A schema or whole-record comparison: a canonical serialisation (`json.dumps(r, sort_keys=True)`) compares records whole. */
const SCHEMA_CHECK = /\bsort_keys\s*=\s*True|\bassert(?:Dict)?Equal\(|\bjsonschema\b|additionalProperties|\bextra\s*=\s*["']forbid|\b(?:extra|unexpected|unknown|additional|allowed)_?(?:keys|fields)\b/i;

/** Nodes a key read can be (`data["k"]`, `data.get("k")`). */
const KEY_READS: ReadonlySet<string> = new Set(['subscript', 'call']);

/** A key-presence assert: `{"a", "b"} <= data.keys()`, `.issubset(`, `all(k in data …)`, `"a" in data`. */
const PRESENCE = /<=\s*[\w.()]*\.keys\(\)|\.keys\(\)\s*>=|\.issubset\(|\ball\(\s*\w+\s+in\s+[\w.]+\s+for\b|^["'][\w .-]+["']\s+in\s+[\w.()]+$/;

/** A test named for the output's format or shape. */
const FORMAT_TEST = /json|valid|schema|format|structure|shape|keys|fields/i;

interface Where { readonly file: string; readonly start: number; readonly end: number; readonly fn?: PyFunction; readonly tf: TestFile }

/**
 * Where the key-set check belongs: the key-presence assert when there is one (make it an equality),
 * else the object-type check (`isinstance(data, dict)`: its test, or the helper's assert), else the
 * test that checks the output's format, else the first read of a stated key.
 */
function placeOf(files: readonly TestFile[], objects: ReadonlySet<string>, stated: readonly string[]): Where | undefined {
  // `for field in REQUIRED: assert field in data`: a name looked up in the graded object.
  const loopPresence = new RegExp(`^\\w+ in (?:${[...objects].map(escapeRegExp).join('|') || '(?!)'})(?:\\.keys\\(\\))?$`);
  const presence = (t: string): boolean => PRESENCE.test(t) || loopPresence.test(t);
  for (const pattern of [{ test: presence }, /^isinstance\(/]) {
    for (const tf of files) {
      for (const fn of tf.functions) {
        for (const a of asserts(fn)) {
          const e = assertExpr(a);
          if (!e || !pattern.test(text(tf.tree, e).replace(/\s+/g, ' '))) continue;
          return fn.isTest && pattern instanceof RegExp ? { file: tf.file, start: fn.node.start, end: fn.node.end, fn, tf } : { file: tf.file, start: a.start, end: a.end, tf };
        }
      }
    }
  }
  // A test that checks the output's format (`test_report_is_valid_json`) and reads no key.
  for (const tf of files) {
    const fn = tf.functions.find((f) => f.isTest && FORMAT_TEST.test(f.name) && !descendants(f.body, KEY_READS).some((n) => keyRead(tf.tree, n) !== undefined));
    if (fn) return { file: tf.file, start: fn.node.start, end: fn.node.end, fn, tf };
  }
  for (const tf of files) {
    const read = descendants(tf.tree.root, KEY_READS).find((n) => stated.includes(keyRead(tf.tree, n) ?? ''));
    if (read) return { file: tf.file, start: read.start, end: read.end, tf };
  }
  return undefined;
}

const LOADS = /\bjson\.loads?\(|\.json\(\)|read_json\(/;

/** The object a key read reads from: `data` of `data["k"]` or `data.get("k")`, `_load()` of `_load()["k"]`. */
function readObject(tf: TestFile, n: SyntaxNode): string | undefined {
  const o = n.type === 'subscript' ? childByField(n, 'value') : childByField(childByField(n, 'function') ?? n, 'object');
  return o ? text(tf.tree, o) : undefined;
}

/** `name = <expression>` assignments of the test files, as the name and the expression's text. */
function* assignments(files: readonly TestFile[]): Generator<{ readonly tf: TestFile; readonly name: string; readonly value: string }> {
  for (const tf of files) {
    for (const a of descendants(tf.tree.root, 'assignment')) {
      const left = childByField(a, 'left');
      const right = childByField(a, 'right');
      if (left?.type === 'identifier' && right) yield { tf, name: text(tf.tree, left), value: text(tf.tree, right) };
    }
  }
}

/** The plain function an expression calls (`_load()` → `_load`, `run_tool(a, b)` → `run_tool`). */
const calleeOf = (expr: string): string | undefined => /^([A-Za-z_]\w*)\(/.exec(expr)?.[1];

/** Module-level helpers that return loaded JSON (`def _load(): return json.loads(...)`), by name. */
function jsonHelpers(files: readonly TestFile[]): Set<string> {
  return new Set(files.flatMap((tf) => tf.functions.filter((f) => !f.isTest && LOADS.test(codeText(tf.tree, f.body))).map((f) => f.name)));
}

/**
 * The loaded JSON the tests grade and the keys they read from it that the instruction names. The
 * objects are names bound to a JSON load or to a helper that returns one (`data = _load()`,
 * `actual = run_tool(…)`), and the helper calls themselves (`_load()["k"]`); keys read from anything
 * else (a YAML config, a loop's row) are another object's.
 */
function gradedObject(files: readonly TestFile[], instruction: string): { keys: Set<string>; objects: Set<string> } {
  const helpers = jsonHelpers(files);
  const objects = new Set<string>();
  for (const { name, value } of assignments(files)) {
    const callee = calleeOf(value);
    if (LOADS.test(value) || (callee !== undefined && helpers.has(callee))) objects.add(name);
  }
  // Records inside it: `for row in data["rows"]:`, `for i, row in enumerate(data["rows"]):`,
  // `for name, svc in data.items():` bind its sub-objects; one counts once a key is read from it (a
  // list of strings is no record).
  const records = new Set<string>();
  for (const tf of files) {
    for (const f of descendants(tf.tree.root, 'for_statement')) {
      const left = childByField(f, 'left');
      const right = childByField(f, 'right');
      const iterated = right ? text(tf.tree, right).replace(/^enumerate\((.*)\)$/s, '$1') : '';
      const from = /^([A-Za-z_]\w*)(?:\[|\.(?:get|values|items)\(|$)/.exec(iterated)?.[1];
      if (!left || from === undefined || !objects.has(from)) continue;
      const names = left.type === 'identifier' ? [left] : left.children.filter((c) => c.type === 'identifier');
      const last = names[names.length - 1];
      if (last) records.add(text(tf.tree, last));
    }
  }
  const keys = new Set<string>();
  for (const tf of files) {
    for (const n of descendants(tf.tree.root, KEY_READS)) {
      const k = keyRead(tf.tree, n);
      const o = k === undefined ? undefined : readObject(tf, n);
      if (k === undefined || o === undefined || !named(instruction, k)) continue;
      const call = calleeOf(o);
      if (!objects.has(o) && !records.has(o) && !(call !== undefined && helpers.has(call)) && !LOADS.test(o)) continue;
      keys.add(k);
      objects.add(o);
    }
  }
  return { keys, objects };
}

/** Names bound to an object's key set (`got = set(data.keys())`): comparing them is a key-set check. */
function keySetNames(files: readonly TestFile[], objects: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const { name, value } of assignments(files)) {
    const m = /^(?:(?:set|sorted|list|tuple|frozenset)\((.+?)(?:\.keys\(\))?\)|(.+?)\.keys\(\))$/.exec(value.replace(/\s+/g, ''));
    const obj = m?.[1] ?? m?.[2];
    if (obj !== undefined && objects.has(obj)) out.push(name);
  }
  return out;
}

/** A line that continues a statement's block after a blank line: a list item, a table row, a code fence, an indented line, a lead-in (`Required structure:`). */
const CONTINUES = /^\s*(?:[-*+]\s|\d+[.)]\s|\||```|\s{2,}\S)|:\s*$/;

/** The statement's paragraph and the list, table or code block that follows it (at most 40 lines). */
function blockFrom(text: string): string {
  const lines = text.split('\n').slice(0, 40);
  let end = lines.length;
  let fenced = false;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (/^\s*```/.test(l)) fenced = !fenced;
    if (fenced || l.trim() !== '') continue;
    const next = lines.slice(i + 1).find((x) => x.trim() !== '');
    if (next === undefined || !CONTINUES.test(next)) { end = i; break; }
  }
  return lines.slice(0, end).join('\n');
}

const named = (text: string, key: string): boolean => standaloneWord(key).test(text);

/**
 * The instruction's sentence that fixes the keys of the object the tests grade: an "exactly these keys"
 * with two or more of the graded keys named in its paragraph or the list or example that follows it,
 * so a statement about another file (`exactly two keys` of a YAML config) is not taken for this one.
 */
function statementOf(instruction: string, keys: ReadonlySet<string>): { line: string; keys: string[] } | undefined {
  for (const m of instruction.matchAll(EXACT_KEYS_ALL)) {
    const start = instruction.lastIndexOf('\n', m.index) + 1;
    const near = blockFrom(instruction.slice(start));
    const stated = [...keys].filter((k) => named(near, k));
    if (stated.length >= 2) return { line: instruction.slice(start).split('\n')[0] ?? '', keys: stated };
  }
  return undefined;
}

export const statedKeySetUnchecked: StaticRule = {
  id: 'stated-key-set-unchecked', class: 'misalignment', severity: 'warning',
  title: 'The instruction fixes the output\'s keys, but no test checks the key set',
  *check(ctx) {
    const instruction = ctx.instruction();
    if (!EXACT_KEYS.test(instruction)) return;
    const files = testFunctionsOf(ctx).filter((tf) => LOADS.test(codeText(tf.tree)));
    if (files.length === 0) return;
    // The tests grade the object the instruction describes: two or more of its keys are read and named near the statement.
    const { keys, objects } = gradedObject(files, instruction);
    const stated = statementOf(instruction, keys);
    if (!stated) return;
    const checks = [SCHEMA_CHECK, ...[...objects].flatMap(keySetChecks), ...keySetNames(files, objects).map(comparedName)];
    if (testFunctionsOf(ctx).some((tf) => checks.some((re) => re.test(codeText(tf.tree))))) return;
    const at = placeOf(files, objects, stated.keys);
    if (!at) return;
    // The keys the statement names, not every key the tests read (a nested record's, another output's).
    const shown = stated.keys.slice(0, 4).join(', ');
    yield {
      file: at.file, range: at.fn ? fnRange(ctx, at.tf, at.fn) : ctx.range(at.file, at.start, at.end),
      message: `The instruction fixes the output's keys ("${stated.line.trim().slice(0, 100)}"), but the tests only read keys one by one (${shown}${stated.keys.length > 4 ? ', …' : ''}) and never check the key set: an object with extra keys passes. Assert the set, e.g. \`assert set(data) == {…}\`, or drop "exactly" from the instruction.`,
    };
  },
};
