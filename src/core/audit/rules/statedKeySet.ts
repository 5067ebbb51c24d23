/**
 * The instruction fixes the output object's keys ("a JSON object with exactly these keys", "no other
 * fields"), and the tests read those keys one by one but never check the key set: an object with extra
 * keys passes, so a stated requirement is never graded. Decided from data: the instruction's sentence,
 * the keys the tests read (`data["k"]`, `data.get("k")`), and whether any test code compares the
 * object's size or key set (or the whole object) at all.
 */
import { codeText, text, type PyFunction } from '../../parse/python';
import { escapeRegExp } from '../../parse/regex';
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
const SCHEMA_CHECK = /\bassert(?:Dict)?Equal\(|\bjsonschema\b|additionalProperties|\bextra\s*=\s*["']forbid|\b(?:extra|unexpected|unknown|additional|allowed)_?(?:keys|fields)\b/i;

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
 * test that checks the output's format, else the first keyed read.
 */
function placeOf(files: readonly TestFile[]): Where | undefined {
  for (const pattern of [PRESENCE, /^isinstance\(/]) {
    for (const tf of files) {
      for (const fn of tf.functions) {
        for (const a of asserts(fn)) {
          const e = assertExpr(a);
          if (!e || !pattern.test(text(tf.tree, e).replace(/\s+/g, ' '))) continue;
          return fn.isTest && pattern !== PRESENCE ? { file: tf.file, start: fn.node.start, end: fn.node.end, fn, tf } : { file: tf.file, start: a.start, end: a.end, tf };
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
    const read = descendants(tf.tree.root, KEY_READS).find((n) => keyRead(tf.tree, n) !== undefined);
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

/**
 * The stated keys the tests read, and every expression that holds the graded object: what the keys are
 * read from, and names bound to a JSON load or to one of those expressions (`data = _load()`).
 */
function gradedObject(files: readonly TestFile[], instruction: string): { keys: Set<string>; objects: Set<string> } {
  const keys = new Set<string>();
  const objects = new Set<string>();
  for (const tf of files) {
    for (const n of descendants(tf.tree.root, KEY_READS)) {
      const k = keyRead(tf.tree, n);
      if (k === undefined || !new RegExp(`(^|[^\\w])${escapeRegExp(k)}([^\\w]|$)`).test(instruction)) continue;
      keys.add(k);
      const o = readObject(tf, n);
      if (o !== undefined) objects.add(o);
    }
  }
  for (const tf of files) {
    for (const a of descendants(tf.tree.root, 'assignment')) {
      const left = childByField(a, 'left');
      const right = childByField(a, 'right');
      if (left?.type !== 'identifier' || !right) continue;
      const r = text(tf.tree, right);
      if (LOADS.test(r) || objects.has(r)) objects.add(text(tf.tree, left));
    }
  }
  return { keys, objects };
}
export const statedKeySetUnchecked: StaticRule = {
  id: 'stated-key-set-unchecked', class: 'misalignment', severity: 'warning',
  title: 'The instruction fixes the output\'s keys, but no test checks the key set',
  *check(ctx) {
    const instruction = ctx.instruction();
    const stated = EXACT_KEYS.exec(instruction);
    if (!stated) return;
    const files = testFunctionsOf(ctx).filter((tf) => LOADS.test(codeText(tf.tree)));
    if (files.length === 0) return;
    // The tests grade the object the instruction describes: two or more of its keys are read and named there.
    const { keys, objects } = gradedObject(files, instruction);
    if (keys.size < 2) return;
    const checks = [SCHEMA_CHECK, ...[...objects].flatMap(keySetChecks)];
    if (testFunctionsOf(ctx).some((tf) => checks.some((re) => re.test(codeText(tf.tree))))) return;
    const at = placeOf(files);
    if (!at) return;
    const line = instruction.slice(instruction.lastIndexOf('\n', stated.index) + 1).split('\n')[0] ?? '';
    const shown = [...keys].slice(0, 4).join(', ');
    yield {
      file: at.file, range: at.fn ? fnRange(ctx, at.tf, at.fn) : ctx.range(at.file, at.start, at.end),
      message: `The instruction fixes the output's keys ("${line.trim().slice(0, 100)}"), but the tests only read keys one by one (${shown}${keys.size > 4 ? ', …' : ''}) and never check the key set: an object with extra keys passes. Assert the set, e.g. \`assert set(data) == {…}\`, or drop "exactly" from the instruction.`,
    };
  },
};
