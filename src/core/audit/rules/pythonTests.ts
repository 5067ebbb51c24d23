import { callArgs, calleeLast, calleeName, isAssertingCall, pythonFunctions, skipNestedScopes, stringLiterals, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, findAncestor, groupByType, walk, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { otherRunnerSkips } from './runnerSkips';
import { guardsShippedFiles } from './skipGuards';

export interface TestFile {
  readonly file: string;
  readonly tree: SyntaxTree;
  readonly functions: readonly PyFunction[];
}

function testFiles(ctx: AuditContext): TestFile[] {
  const out: TestFile[] = [];
  for (const file of ctx.testPython) {
    const tree = ctx.python(file);
    if (!tree) continue;
    out.push({ file, tree, functions: pythonFunctions(tree) });
  }
  return out;
}

const cache = new WeakMap<AuditContext, TestFile[]>();
function tests(ctx: AuditContext): TestFile[] {
  let t = cache.get(ctx);
  if (!t) { t = testFiles(ctx); cache.set(ctx, t); }
  return t;
}

/** Nodes of one function body by type, outside nested scopes: indexed once per body, shared by every rule. */
const bodyIndex = new WeakMap<SyntaxNode, Map<string, SyntaxNode[]>>();

function indexOf(body: SyntaxNode): Map<string, SyntaxNode[]> {
  let idx = bodyIndex.get(body);
  if (!idx) {
    idx = groupByType(body, skipNestedScopes);
    bodyIndex.set(body, idx);
  }
  return idx;
}

function own(fn: PyFunction, types: string | ReadonlySet<string>): SyntaxNode[] {
  const idx = indexOf(fn.body);
  if (typeof types === 'string') return idx.get(types) ?? [];
  const out: SyntaxNode[] = [];
  for (const t of types) out.push(...(idx.get(t) ?? []));
  return out.sort((a, b) => a.start - b.start);
}

function asserts(fn: PyFunction): SyntaxNode[] {
  return own(fn, 'assert_statement');
}

/** The asserted expression (without the message). */
function assertExpr(a: SyntaxNode): SyntaxNode | undefined {
  return a.children.find((c) => c.named && c.type !== 'comment');
}

const helperCache = new WeakMap<TestFile, Set<string>>();

/** Local helper functions (module-level, non-test) that themselves assert or raise. */
function assertingHelpers(tf: TestFile): Set<string> {
  let h = helperCache.get(tf);
  if (!h) { h = computeAssertingHelpers(tf); helperCache.set(tf, h); }
  return h;
}

function computeAssertingHelpers(tf: TestFile): Set<string> {
  const names = new Set<string>();
  for (const fn of tf.functions) {
    if (fn.isTest) continue;
    const raises = own(fn, new Set(['assert_statement', 'raise_statement'])).length > 0;
    const calls = own(fn, 'call').some((c) => isAssertingCall(calleeName(tf.tree, c)));
    if (raises || calls) names.add(fn.name);
  }
  // One more round: helpers calling asserting helpers.
  for (const fn of tf.functions) {
    if (fn.isTest || names.has(fn.name)) continue;
    if (own(fn, 'call').some((c) => names.has(calleeLast(tf.tree, c)))) names.add(fn.name);
  }
  return names;
}

/** Whether the test can fail other than through its own `assert` statements. */
function failsOtherwise(tf: TestFile, fn: PyFunction, helpers: ReadonlySet<string>): boolean {
  if (own(fn, 'raise_statement').length > 0) return true;
  for (const c of own(fn, 'call')) {
    const name = calleeName(tf.tree, c);
    const last = calleeLast(tf.tree, c);
    if (isAssertingCall(name) || helpers.has(last) || /^(check|verify|validate|expect|ensure|require|compare|run_and_check)/i.test(last)) return true;
    if (/check_call|check_output/.test(name)) return true;
    if (/^subprocess\.run$|^run$/.test(name) && /check\s*=\s*True/.test(text(tf.tree, c))) return true;
    if (/^(json\.loads?|int|float|open|ast\.literal_eval|yaml\.safe_load|importlib\.import_module|__import__)$/.test(name)) continue;
  }
  // Fixtures (parameters) may assert; tests with fixtures other than tmp_path & co. are not judged.
  if (fn.params.some((p) => !/^(self|tmp_path|tmpdir|capsys|monkeypatch|request|caplog)$/.test(p))) return true;
  return fn.decorators.some((d) => /raises|xfail/.test(d));
}

function fnRange(ctx: AuditContext, tf: TestFile, fn: PyFunction) {
  return ctx.range(tf.file, fn.nameNode.start, fn.nameNode.end);
}

const EXISTENCE = /(^|\.)(exists|isfile|isdir|is_file|is_dir|access|lexists)$/;

function isExistenceCheck(tree: SyntaxTree, expr: SyntaxNode): boolean {
  const e = expr.type === 'parenthesized_expression' ? (expr.children.find((c) => c.named) ?? expr) : expr;
  if (e.type === 'call') return EXISTENCE.test(calleeName(tree, e));
  if (e.type === 'boolean_operator') return e.children.filter((c) => c.named).every((c) => isExistenceCheck(tree, c));
  if (e.type === 'comparison_operator') {
    const t = text(tree, e).replace(/\s+/g, '');
    return /(st_size|getsize\(.*\)|len\(.*\))(>0|>=1|!=0)$/.test(t) && !/==/.test(t);
  }
  return false;
}

/** A name, attribute or string-keyed subscript: a value read, not one computed in the assertion. */
const READ = String.raw`[\w.]+(\[(?:"[^"]*"|'[^']*'|\d+)\])*`;
/** Plausibility, not correctness: signs, finite-ness, a two-sided range between literals, one of a list of literals, a field present. */
const PLAUSIBLE = [
  new RegExp(String.raw`^${READ} (>|>=|!=) 0(\.0)?$`),
  new RegExp(String.raw`^-?[\d.e]+ <=? ${READ} <=? -?[\d.e]+$`),
  new RegExp(String.raw`^(not )?(np|numpy|math)\.(isnan|isfinite|isinf)\(${READ}\)$`),
  new RegExp(String.raw`^(np|numpy)\.all\((np|numpy)\.isfinite\(${READ}\)\)$`),
  new RegExp(String.raw`^${READ} in [[({](\s*("[^"]*"|'[^']*'|-?\d+|True|False|None)\s*,?)+[\])}]$`),
  // A field name present (`"total" in data`): lower-case keys only, since an upper-case marker
  // (`"ALL_PASSED" in log`) is a verdict the harness wrote, not a shape.
  new RegExp(String.raw`^("|')(?!(pass|passed|ok|success|true|yes)("|'))[a-z][a-z0-9_]*("|') in ${READ}$`),
  // Shape and type, not values: `.shape == (n, 2)`, `.dtype == np.float32`, `type(x) is int`.
  new RegExp(String.raw`^${READ}\.(shape|dtype|ndim) == `),
  new RegExp(String.raw`^type\(${READ}\) (==|is|in) `),
  // Counts of bad values (`nan_count == 0`): finite-ness again.
  new RegExp(String.raw`^\w*(nan|inf|null|none|missing|empty)\w* == 0$`, 'i'),
  // A one-sided bound on a value read or derived (`x_variance > 0.01`, `max_abs < 1e6`); a bound on
  // an error against the truth is a value check, told apart by the function (see comparesWithTruth).
  // (A bound on a time is a timing check, wall-clock-threshold's business, not plausibility.)
  // A bound on a quality metric (`acc > 0.90`, `rmse < 0.05`) is the task's bar, not plausibility.
  new RegExp(String.raw`^(?!\w*(time|elapsed|duration|latency)\w*\b)(?![\w.]*(acc|accuracy|f1|auc|precision|recall|r2|score|loss|error|err|mse|rmse|mae|iou|dice|bleu|rouge|psnr|ssim|perplexity|ppl)\w*\b)${READ} (<|<=|>|>=) -?[\d.]+(e[+-]?\d+)?$`, 'i'),
];

/** The function's code (strings left out) names a truth to compare with: its bounds check values. */
const TRUTH_NAME = /\b\w*(expected|truth|reference|golden|correct|answer|oracle|baseline|target|gt)\w*\b/i;
function comparesWithTruth(tree: SyntaxTree, fn: PyFunction): boolean {
  let code = text(tree, fn.body);
  const base = fn.body.start;
  for (const s of descendants(fn.body, 'string').sort((a, b) => b.start - a.start)) code = code.slice(0, s.start - base) + code.slice(s.end - base);
  return TRUTH_NAME.test(code);
}

function isWeakCheck(tree: SyntaxTree, expr: SyntaxNode): boolean {
  const t = text(tree, expr).replace(/\s+/g, ' ').trim();
  // A bare name (`assert found`) is usually a verdict computed above, not a shape check.
  return /\bis not None$/.test(t) || /^isinstance\(/.test(t) || /^len\(.*\) (>|>=|!=) [01]$/.test(t) || /^bool\(\w+(\.\w+)*\)$/.test(t)
    || PLAUSIBLE.some((re) => re.test(t));
}

function isTrivial(tree: SyntaxTree, expr: SyntaxNode): boolean {
  if (expr.type === 'true' || expr.type === 'integer' && text(tree, expr) !== '0') return true;
  if (expr.type === 'string' && (stringValue(tree, expr) ?? '').length > 0) return true;
  if (expr.type === 'tuple' && expr.children.some((c) => c.named)) return true;
  if (expr.type === 'boolean_operator') {
    const op = expr.children.find((c) => !c.named)?.type;
    const parts = expr.children.filter((c) => c.named);
    if (op === 'or' && parts.some((p) => isTrivial(tree, p))) return true;
  }
  if (expr.type === 'comparison_operator') {
    const parts = expr.children.filter((c) => c.named);
    const op = expr.children.find((c) => !c.named)?.type;
    if (parts.length === 2 && (op === '==' || op === 'is') && text(tree, parts[0] as SyntaxNode) === text(tree, parts[1] as SyntaxNode) && !/\(/.test(text(tree, parts[0] as SyntaxNode))) return true;
  }
  return false;
}

export const assertionFreeTest: StaticRule = {
  id: 'assertion-free-test', class: 'misalignment', severity: 'warning',
  title: 'A test function asserts nothing',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      const helpers = assertingHelpers(tf);
      for (const fn of tf.functions) {
        if (!fn.isTest || asserts(fn).length > 0 || failsOtherwise(tf, fn, helpers)) continue;
        // `return True/False` is a driver's convention (a script's own main loop counts the results),
        // not a pytest test: judging it as one misreads the file.
        if (own(fn, 'return_statement').some((r) => r.children.some((c) => c.named))) continue;
        const body = text(tf.tree, fn.body).trim();
        if (/^(pass|\.\.\.)$/.test(body) || /^("""|''')[\s\S]*("""|''')\s*(pass)?$/.test(body)) {
          yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} is empty: it passes for any agent.` };
          continue;
        }
        yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} contains no assertion and calls nothing that checks: it passes unless something crashes.` };
      }
    }
  },
};

const ADVISORY = /\b(advisory|recommended|not required|best[- ]effort|optional|informational)\b/i;

export const trivialAssertion: StaticRule = {
  id: 'trivial-assertion', class: 'misalignment', severity: 'warning',
  title: 'An assertion that can never fail (`assert True`, `assert x or True`, `assert (a, b)`)',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const a of asserts(fn)) {
          const e = assertExpr(a);
          if (!e || !isTrivial(tf.tree, e)) continue;
          // Beside real checks, a trailing `assert True` is noise, not a hole: a note. Alone, the test is vacuous.
          const onlyOne = asserts(fn).every((x) => { const xe = assertExpr(x); return xe !== undefined && isTrivial(tf.tree, xe); });
          // A test that says it is advisory (prints "Advisory: …", "recommended but not required")
          // passes by design; it gates nothing, so it is a note, not a hole in the verifier.
          const advisory = own(fn, 'call').some((x) => /^(print|warnings\.warn|logging\.\w+|\w+\.warning)$/.test(calleeName(tf.tree, x))
            && stringLiterals(tf.tree, x).some((l) => ADVISORY.test(l.value)));
          yield {
            file: tf.file, range: ctx.range(tf.file, a.start, a.end), severity: onlyOne && !advisory && !failsOtherwise(tf, fn, assertingHelpers(tf)) ? 'error' as const : 'info' as const,
            message: `\`${text(tf.tree, a).split('\n')[0]}\` always holds${e.type === 'tuple' ? ' (a non-empty tuple is true)' : ''}: it checks nothing about the agent's work.`,
          };
        }
      }
    }
  },
};

export const existenceOnlyTest: StaticRule = {
  id: 'existence-only-test', class: 'misalignment', severity: 'error',
  title: 'The tests only check that files exist (or are non-empty)',
  *check(ctx) {
    const all = tests(ctx);
    const testCount = all.reduce((n, tf) => n + tf.functions.filter((f) => f.isTest).length, 0);
    const flagged: { tf: TestFile; fn: PyFunction }[] = [];
    let contentTests = 0;
    for (const tf of all) {
      const helpers = assertingHelpers(tf);
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        const as = asserts(fn);
        const existenceOnly = as.length > 0 && as.every((a) => { const e = assertExpr(a); return e !== undefined && isExistenceCheck(tf.tree, e); })
          && !failsOtherwise(tf, fn, helpers)
          // Reading the file and calling anything on it usually means content is checked in the test.
          && !own(fn, 'call').some((c) => /read|load|run|popen|system|check|parse|json/i.test(calleeName(tf.tree, c)));
        if (existenceOnly) flagged.push({ tf, fn });
        else contentTests++;
      }
    }
    // Rewards are all-or-nothing: an existence check beside tests of the content is a harmless sanity check.
    if (contentTests > 0) return;
    for (const { tf, fn } of flagged) {
      {
        const sole = testCount === 1;
        yield {
          file: tf.file, range: fnRange(ctx, tf, fn),
          message: sole
            ? `${fn.name}, the only test, checks that a file exists and nothing about its content: \`touch\` earns full reward.`
            : `${fn.name} checks only that a file exists (or is non-empty), and no other test checks content: empty or wrong files earn full reward.`,
        };
      }
    }
  },
};

/** A test whose every assertion checks only shape: existence, `is not None`, a type, a non-zero length. */
function shapeOnly(tf: TestFile, fn: PyFunction, helpers: ReadonlySet<string>): { weak: boolean; shape: boolean } {
  const exprs = asserts(fn).map(assertExpr);
  if (exprs.length === 0 || failsOtherwise(tf, fn, helpers)) return { weak: false, shape: false };
  const shape = !comparesWithTruth(tf.tree, fn) && exprs.every((e) => e !== undefined && (isTrivial(tf.tree, e) || isExistenceCheck(tf.tree, e) || isWeakCheck(tf.tree, e)));
  // At least one genuinely weak check; existence-only tests are existence-only-test's business.
  const weak = shape && exprs.every((e) => e !== undefined && !isTrivial(tf.tree, e)) && exprs.some((e) => e !== undefined && !isExistenceCheck(tf.tree, e));
  return { weak, shape };
}

export const weakAssertion: StaticRule = {
  id: 'weak-assertion', class: 'misalignment', severity: 'warning',
  title: 'The tests only check shape or plausibility (`is not None`, a type, a sign, a range, a field present)',
  *check(ctx) {
    const found: { tf: TestFile; fn: PyFunction }[] = [];
    let contentTests = 0;
    for (const tf of tests(ctx)) {
      const helpers = assertingHelpers(tf);
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        const { weak, shape } = shapeOnly(tf, fn, helpers);
        if (weak) found.push({ tf, fn });
        if (!shape) contentTests++;
      }
    }
    // Rewards are all-or-nothing: beside tests that check values, a shape check is a harmless
    // sanity check, whatever its name says (names promised values in most real sanity checks).
    if (contentTests > 0) return;
    for (const { tf, fn } of found) {
      // Shape of what? Only a test that reads or runs the agent's work (a path, a file read, a
      // process, a request) has an output whose shape it checks; `model = AutoModel.from_pretrained(…,
      // local_files_only=True); assert model is not None` checks that the call works at all.
      const readsWork = own(fn, 'call').some((x) => /(^|\.)(open|read\w*|loads?|load_\w+|run|check_output|check_call|Popen|get|post|put|request|urlopen|system)$|^(subprocess|requests|json|pd|pandas|np|numpy)\./.test(calleeName(tf.tree, x)))
        || stringLiterals(tf.tree, fn.body).some((l) => l.value.startsWith('/'));
      if (!readsWork) continue;
      yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} asserts only shape or plausibility (a value exists, has a type, a sign, lies in a range, a field is present), and no other test checks values: any output of the right shape passes. Compare with expected values.` };
    }
  },
};

const SWALLOW_BODY = /^(pass|continue|\.\.\.|return( True| None)?|print\(.*\)|logging\.\w+\(.*\)|pytest\.skip\(.*\))$/s;

/** The handler clauses of `tr` that catch AssertionError and carry on. */
function swallowingHandlers(tf: TestFile, tr: SyntaxNode): SyntaxNode[] {
  return tr.children.filter((h) => {
    if (h.type !== 'except_clause') return false;
    const head = text(tf.tree, h).split(':', 1)[0]?.replace(/^except/, '').trim() ?? '';
    if (!(head === '' || /\b(Exception|BaseException|AssertionError)\b/.test(head))) return false;
    const block = h.children.find((c) => c.type === 'block');
    const stmts = block ? block.children.filter((c) => c.named && c.type !== 'comment') : [];
    return stmts.length > 0 && stmts.every((st) => SWALLOW_BODY.test(text(tf.tree, st).trim()));
  });
}

/** `a` sits in the body of a `try` whose handlers swallow its failure. */
function swallowedBy(tf: TestFile, a: SyntaxNode, fn: PyFunction): boolean {
  for (let p = a.parent; p && p !== fn.body; p = p.parent) {
    if (p.type === 'block' && p.parent?.type === 'try_statement' && p.field === 'body' && swallowingHandlers(tf, p.parent).length > 0) return true;
  }
  return false;
}

export const swallowedAssertion: StaticRule = {
  id: 'swallowed-assertion', class: 'misalignment', severity: 'error',
  title: 'Assertions inside `try` whose `except` swallows the failure',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const tr of own(fn, 'try_statement')) {
          const body = childByField(tr, 'body');
          if (!body || descendants(body, 'assert_statement', skipNestedScopes).length === 0) continue;
          for (const h of tr.children.filter((c) => c.type === 'except_clause')) {
            const head = text(tf.tree, h).split(':', 1)[0]?.replace(/^except/, '').trim() ?? '';
            const catchesAssert = head === '' || /\b(Exception|BaseException|AssertionError)\b/.test(head);
            if (!catchesAssert) continue;
            const block = h.children.find((c) => c.type === 'block');
            const stmts = block ? block.children.filter((c) => c.named && c.type !== 'comment') : [];
            const swallows = stmts.length > 0 && stmts.every((s) => /^(pass|continue|\.\.\.|return( True| None)?|print\(.*\)|logging\.\w+\(.*\)|pytest\.skip\(.*\))$/s.test(text(tf.tree, s).trim()));
            if (!swallows) continue;
            // Asserts outside swallowing handlers still decide the test: then this check is dead, not the test.
            const live = asserts(fn).some((a) => !swallowedBy(tf, a, fn));
            yield live
              ? { file: tf.file, range: ctx.range(tf.file, h.start, h.end), severity: 'warning', message: `\`except ${head || ''}\` catches the AssertionError raised in the try block and carries on: the checks inside it can never fail ${fn.name}.` }
              : { file: tf.file, range: ctx.range(tf.file, h.start, h.end), message: `\`except ${head || ''}\` catches the AssertionError raised in the try block and carries on: ${fn.name} passes whatever the agent did.` };
          }
        }
      }
    }
  },
};

export const skipCountsAsPass: StaticRule = {
  id: 'skip-counts-as-pass', class: 'misalignment', severity: 'warning',
  title: 'Tests skip themselves, and a skipped test does not fail the verdict',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const c of descendants(tf.tree.root, 'call')) {
        const name = calleeName(tf.tree, c);
        if (!/^pytest\.(skip|importorskip)$/.test(name)) continue;
        const inTest = findAncestor(c, (n) => n.type === 'function_definition');
        if (!inTest) continue;
        if (name === 'pytest.skip' && guardsShippedFiles(ctx, tf, inTest, c)) continue;
        yield { file: tf.file, range: ctx.range(tf.file, c.start, c.end), message: `\`${name}(…)\` turns a missing output, module or error into a skip, and pytest exits 0 with skips: the check silently stops counting (a null agent can pass). Fail instead.` };
      }
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        const d = fn.decorators.find((x) => /^pytest\.mark\.skip(if)?\b/.test(x));
        if (!d) continue;
        yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} is marked \`@${d.split('(')[0]}\`: a skipped test never fails, so what it checks is not part of the reward.` };
      }
    }
    yield* otherRunnerSkips(ctx);
  },
};


/** Clocks read to time work; `datetime.now()` against dates in data is clock-timezone-dependence's business. */
const TIMERS = /^(time\.)?(time|perf_counter|monotonic|process_time)(_ns)?$/;

/**
 * `elapsed < 2` (or `2 > elapsed`): an upper bound on the duration, which a slow host breaks.
 * A lower bound (`elapsed >= 6`: "it really waited") holds more easily the slower the host is.
 */
const TIGHT_SECONDS = 5;

/** The numeric bound of a duration comparison, in seconds (by the duration variable's units). */
function boundSeconds(tree: SyntaxTree, e: SyntaxNode, scale: ReadonlyMap<string, number>, consts: ReadonlyMap<string, SyntaxNode>, isDuration: (n: SyntaxNode) => boolean): number | undefined {
  const parts = e.children.filter((c) => c.named);
  const num = parts.find((p) => p.type === 'integer' || p.type === 'float');
  if (!num) {
    // `elapsed < timeout_s` with `timeout_s = 120`, `tol = max(10.0, x * 0.5)`: the bound's floor.
    const other = parts.find((p) => !isDuration(p));
    return other ? numericFloor(tree, other, consts, 0) : undefined;
  }
  const id = parts.find((p) => p.type === 'identifier');
  const k = id ? (scale.get(text(tree, id)) ?? 1) : 1;
  return Number(text(tree, num).replace(/_/g, '')) * k;
}

/** The least value an expression can take, when the test's own constants say (a literal, a name bound to one, `max(10, …)`). */
function numericFloor(tree: SyntaxTree, n: SyntaxNode, consts: ReadonlyMap<string, SyntaxNode>, depth: number): number | undefined {
  if (depth > 4) return undefined;
  if (n.type === 'integer' || n.type === 'float') return Number(text(tree, n).replace(/_/g, ''));
  if (n.type === 'identifier') { const v = consts.get(text(tree, n)); return v ? numericFloor(tree, v, consts, depth + 1) : undefined; }
  if (n.type === 'call' && calleeName(tree, n) === 'max') {
    const floors = callArgs(n).map((a) => numericFloor(tree, a, consts, depth + 1)).filter((x): x is number => x !== undefined);
    return floors.length ? Math.max(...floors) : undefined;
  }
  return undefined;
}

function upperBoundOnDuration(tree: SyntaxTree, e: SyntaxNode, isDuration: (n: SyntaxNode) => boolean): boolean {
  const parts = e.children.filter((c) => c.named);
  const ops = e.children.filter((c) => !c.named).map((c) => c.type);
  for (let i = 0; i < ops.length; i++) {
    const l = parts[i];
    const r = parts[i + 1];
    if (!l || !r) continue;
    const op = ops[i];
    if ((op === '<' || op === '<=') && isDuration(l) && !isDuration(r)) return true;
    if ((op === '>' || op === '>=') && isDuration(r) && !isDuration(l)) return true;
  }
  void tree;
  return false;
}

export const wallClockThreshold: StaticRule = {
  id: 'wall-clock-threshold', class: 'brittleness', severity: 'warning',
  title: 'A test asserts on elapsed wall-clock time',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        const timerVars = new Set<string>();
        const durations = new Set<string>();
        const scale = new Map<string, number>();
        const consts = new Map<string, SyntaxNode>();
        for (const asg of own(fn, 'assignment')) {
          const left = childByField(asg, 'left');
          const right = childByField(asg, 'right');
          if (!left || !right || left.type !== 'identifier') continue;
          const name = text(tf.tree, left);
          consts.set(name, right);
          if (right.type === 'call' && TIMERS.test(calleeName(tf.tree, right))) timerVars.add(name);
          else if (right.type === 'binary_operator' && /-/.test(text(tf.tree, right))) {
            const ids = descendants(right, 'identifier').map((i) => text(tf.tree, i));
            const calls = descendants(right, 'call').map((cl) => calleeName(tf.tree, cl));
            if (ids.some((i) => timerVars.has(i)) || calls.some((cl) => TIMERS.test(cl))) durations.add(name);
          }
          // Units: `(t1 - t0) * 1000` is milliseconds, `*_ns` clocks nanoseconds.
          const rt = text(tf.tree, right).replace(/\s+/g, '');
          if (durations.has(name)) scale.set(name, /\*(1000|1e3)\b/.test(rt) ? 1e-3 : /_ns\(/.test(rt) ? 1e-9 : 1);
        }
        if (durations.size === 0 && timerVars.size === 0) continue;
        for (const a of asserts(fn)) {
          const e = assertExpr(a);
          if (!e || e.type !== 'comparison_operator') continue;
          const isDuration = (n: SyntaxNode): boolean => (n.type === 'identifier' ? durations.has(text(tf.tree, n)) : descendants(n, 'identifier').some((i) => durations.has(text(tf.tree, i))))
            || descendants(n, 'call').some((cl) => TIMERS.test(calleeName(tf.tree, cl)));
          if (!upperBoundOnDuration(tf.tree, e, isDuration)) continue;
          // A bound of many seconds is a hang guard; a tight one (under TIGHT_SECONDS) is what a
          // throttled host breaks (CFS quota pauses alone reach ~100 ms).
          const bound = boundSeconds(tf.tree, e, scale, consts, isDuration);
          const tight = bound === undefined || bound < TIGHT_SECONDS;
          yield { file: tf.file, range: ctx.range(tf.file, a.start, a.end), severity: tight ? 'warning' : 'info', message: `This assertion bounds elapsed wall-clock time${bound !== undefined ? ` (${+bound.toPrecision(3)} s)` : ''}: on a loaded or CPU-throttled host a correct solution fails. Measure work (operations, complexity) or use a generous bound with a median of several runs.` };
        }
      }
    }
  },
};

/** Calls that talk to a service the test (or the agent) started. */
const PROBE = /^(requests|httpx|session|client|urllib\.request|http\.client|socket|redis|psycopg2|pymysql|websocket)\.\w+$|^(urlopen|create_connection)$/;

function inLoop(n: SyntaxNode, stop: SyntaxNode): boolean {
  return !!findAncestor(n, (p) => p.type === 'while_statement' || p.type === 'for_statement', (p) => p === stop);
}

/** Calls that start something that runs on after the call returns. */
const STARTS = /^(subprocess\.Popen|Popen|asyncio\.create_subprocess_\w+|os\.spawn\w*|\w+\.start|\w+\.start_server|docker\.\w+\.run|\w+\.containers\.run)$/;
/** Calls after which nothing started earlier is still pending: it answered, exited or was waited for. */
const SETTLES = /(^|\.)(wait|wait_for\w*|communicate|join|terminate|kill|poll|get|post|put|delete|patch|head|request|urlopen|create_connection|connect|send|sendall|recv|run|check_call|check_output|call)$|^(wait_for\w*|await_\w+|until_\w+)$|ready|healthy/;

/**
 * The sleep `c` waits on something this function started (a Popen, a thread, a server) and
 * nothing between the start and the sleep has settled it (an answered request, wait/kill, a
 * readiness helper). A fixture's start counts too; a test with no start waits on nothing.
 */
function waitsOnStart(tree: SyntaxTree, fn: PyFunction, c: SyntaxNode): boolean {
  const calls = own(fn, 'call').filter((x) => x.end <= c.start);
  let pending = false;
  for (const x of calls.sort((a, b) => a.start - b.start)) {
    const name = calleeName(tree, x);
    if (STARTS.test(name)) pending = true;
    else if (pending && SETTLES.test(name)) pending = false;
  }
  return pending;
}

export const fixedSleepSynchronization: StaticRule = {
  id: 'fixed-sleep-synchronization', class: 'brittleness', severity: 'warning',
  title: 'A fixed sleep stands in for waiting until something is ready',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions) {
        if (!fn.isTest && !fn.decorators.some((d) => d.includes('fixture'))) continue;
        for (const c of own(fn, 'call')) {
          if (!/^(time\.)?sleep$/.test(calleeName(tf.tree, c))) continue;
          const arg = callArgs(c)[0];
          if (!arg || !/^(integer|float)$/.test(arg.type)) continue;
          const secs = Number(text(tf.tree, arg));
          if (!(secs >= 0.5) || inLoop(c, fn.body)) continue;
          const after = asserts(fn).some((a) => a.start > c.end) || fn.decorators.some((d) => d.includes('fixture'));
          if (!after) continue;
          // A sleep before probing a service stands in for readiness; a sleep before checking that a
          // process is still alive (or that time passed) is the check itself.
          const probes = own(fn, 'call').some((x) => x.start > c.end && PROBE.test(calleeName(tf.tree, x)))
            || own(fn, 'string').some((x) => x.start > c.end && /^(curl|wget|nc|redis-cli|psql|mysql)$|^https?:\/\/(localhost|127\.)/.test(stringValue(tf.tree, x) ?? ''));
          if (!probes) continue;
          // It stands in for readiness only right after something was started in the background: after
          // an acknowledged request, a process that has exited, or a readiness wait, nothing is pending
          // (the sleep is slack, or lets time pass for a TTL), and a correct system passes on any load.
          if (!waitsOnStart(tf.tree, fn, c)) continue;
          yield { file: tf.file, range: ctx.range(tf.file, c.start, c.end), message: `\`${text(tf.tree, c)}\` waits a fixed time and then checks: a slow (CPU-throttled) but correct system fails, a fast one wastes time. Poll for the condition with a deadline.` };
        }
      }
    }
    for (const file of ctx.verifierScripts) {
      const s = ctx.shell(file);
      if (!s) continue;
      const bg = s.commands.filter((c) => c.background);
      for (const cmd of s.commands) {
        if (cmd.name !== 'sleep' || cmd.inLoop || cmd.conditional) continue;
        const secs = Number(cmd.args[0]?.value);
        if (!(secs >= 1) || !bg.some((b) => b.end <= cmd.start)) continue;
        // Only while the latest background start is still unsettled: a kill, wait or probe after it
        // (the server was stopped, or answered) leaves nothing to be ready.
        const last = bg.filter((b) => b.end <= cmd.start).at(-1);
        if (last && s.commands.some((x) => x.start >= last.end && x.end <= cmd.start && /^(kill|pkill|killall|wait|curl|wget|nc|timeout|pytest|python3?|uv|uvx)$/.test(x.name ?? ''))) continue;
        yield { file, range: ctx.range(file, cmd.start, cmd.end), message: `\`sleep ${cmd.args[0]?.value}\` after starting a background process assumes it is ready by then. Poll for readiness (a port, a file) with a deadline.` };
      }
    }
  },
};

const LISTING = /^(os\.listdir|listdir|glob\.glob|glob|os\.scandir|\w*\.iterdir|\w*\.glob|\w*\.rglob)$/;

function listingCall(tree: SyntaxTree, n: SyntaxNode): { call: SyntaxNode; sorted: boolean } | undefined {
  let cur = n;
  let sorted = false;
  for (;;) {
    if (cur.type === 'call') {
      const name = calleeName(tree, cur);
      if (name === 'sorted' || name === 'set' || name === 'frozenset' || name === 'Counter' || name === 'collections.Counter') { sorted = true; const a = callArgs(cur)[0]; if (!a) return undefined; cur = a; continue; }
      if (name === 'list') { const a = callArgs(cur)[0]; if (!a) return undefined; cur = a; continue; }
      if (LISTING.test(name) || /\.(iterdir|glob|rglob)$/.test(name)) return { call: cur, sorted };
      return undefined;
    }
    if (cur.type === 'list_comprehension') {
      const inner = descendants(cur, 'call').find((c) => LISTING.test(calleeName(tree, c)) || /\.(iterdir|glob|rglob)$/.test(calleeName(tree, c)));
      return inner ? { call: inner, sorted } : undefined;
    }
    return undefined;
  }
}

function* listingComparisons(ctx: AuditContext): Generator<{ tf: TestFile; a: SyntaxNode; sorted: boolean; listing: SyntaxNode }> {
  for (const tf of tests(ctx)) {
    for (const fn of tf.functions.filter((f) => f.isTest)) {
      // Names bound to a directory listing in this test.
      const bound = new Map<string, boolean>();
      for (const asg of own(fn, 'assignment')) {
        const left = childByField(asg, 'left');
        const right = childByField(asg, 'right');
        if (left?.type !== 'identifier' || !right) continue;
        const l = listingCall(tf.tree, right);
        if (l) bound.set(text(tf.tree, left), l.sorted);
        else if (right.type === 'call' && calleeName(tf.tree, right) === 'sorted' && bound.has(text(tf.tree, callArgs(right)[0] ?? right))) bound.set(text(tf.tree, left), true);
      }
      for (const a of asserts(fn)) {
        const e = assertExpr(a);
        if (e?.type !== 'comparison_operator') continue;
        if (!e.children.some((c) => !c.named && c.type === '==')) continue;
        const parts = e.children.filter((c) => c.named);
        const other = parts.find((p) => p.type === 'list' || p.type === 'tuple');
        if (!other) continue;
        for (const p of parts) {
          const l = listingCall(tf.tree, p);
          if (l) { yield { tf, a, sorted: l.sorted, listing: l.call }; break; }
          if (p.type === 'identifier' && bound.has(text(tf.tree, p))) { yield { tf, a, sorted: bound.get(text(tf.tree, p)) ?? false, listing: p }; break; }
        }
      }
    }
  }
}

export const unorderedListingComparison: StaticRule = {
  id: 'unordered-listing-comparison', class: 'brittleness', severity: 'warning',
  title: 'A directory listing is compared with a list in a fixed order',
  *check(ctx) {
    for (const { tf, a, sorted } of listingComparisons(ctx)) {
      if (sorted) continue;
      yield { file: tf.file, range: ctx.range(tf.file, a.start, a.end), message: 'os.listdir/glob return entries in an arbitrary, filesystem-dependent order: comparing with a fixed list passes or fails by chance. Sort both sides (or compare sets).' };
    }
  },
};

export const exactDirectoryListing: StaticRule = {
  id: 'exact-directory-listing', class: 'brittleness', severity: 'info',
  title: 'A test requires a directory to hold exactly a given set of files',
  *check(ctx) {
    for (const { tf, a, sorted } of listingComparisons(ctx)) {
      if (!sorted) continue;
      yield { file: tf.file, range: ctx.range(tf.file, a.start, a.end), message: 'The directory must contain exactly these entries: a build artifact, a backup or a scratch file the agent leaves fails the test. Check that the required files are present (subset) unless "no other files" is stated.' };
    }
  },
};

export const clockTimezoneDependence: StaticRule = {
  id: 'clock-timezone-dependence', class: 'brittleness', severity: 'info',
  title: 'A test derives expected values from the current local date or time',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        for (const c of own(fn, 'call')) {
          const name = calleeName(tf.tree, c);
          if (!/^((datetime\.)?(datetime|date)\.(now|today)|time\.(localtime|strftime|ctime))$/.test(name)) continue;
          if (name.endsWith('.now') && callArgs(c).length > 0) continue;
          yield { file: tf.file, range: ctx.range(tf.file, c.start, c.end), message: `\`${name}()\` depends on the container's clock and TZ: expected values drift across midnight and time zones. Fix the time (an injected clock, \`TZ=UTC\`) or compare within a window.` };
          break;
        }
      }
    }
  },
};

const SUBPROCESS = /^(subprocess\.\w+|os\.system|os\.popen|run|check_output|check_call|Popen|pexpect\.spawn|pexpect\.run)$/;
const IO = /^(open|io\.open|Path|pathlib\.Path|os\.path\.\w+|os\.\w+|shutil\.\w+|json\.load|yaml\.\w+|csv\.\w+|requests\.\w+|urllib\.request\.\w+|socket\.\w+|sqlite3\.connect|importlib\.\w+|__import__|glob\.\w+|pd\.\w+|pandas\.\w+|np\.load\w*|numpy\.load\w*|httpx\.\w+|http\.client\.\w+|psycopg2\.connect|redis\.\w+)$/;

export const nonInvokingTest: StaticRule = {
  id: 'non-invoking-test', class: 'misalignment', severity: 'info',
  title: 'A test never touches anything the agent produced',
  *check(ctx) {
    for (const tf of tests(ctx)) {
      const moduleNames = new Set<string>();
      for (const asg of descendants(tf.tree.root, 'assignment', skipNestedScopes)) {
        const left = childByField(asg, 'left');
        if (left?.type === 'identifier') moduleNames.add(text(tf.tree, left));
      }
      const imported = new Set<string>();
      for (const imp of descendants(tf.tree.root, new Set(['import_statement', 'import_from_statement']))) {
        for (const id of descendants(imp, 'identifier')) imported.add(text(tf.tree, id));
      }
      const helperNames = new Set(tf.functions.filter((f) => !f.isTest).map((f) => f.name));
      for (const fn of tf.functions.filter((f) => f.isTest)) {
        if (asserts(fn).length === 0 || fn.params.some((p) => p !== 'self')) continue;
        let touches = false;
        walk(fn.body, (n) => {
          if (touches) return;
          if (n.type === 'call') {
            const name = calleeName(tf.tree, n);
            const root = name.split(/[.(]/)[0] ?? '';
            if (SUBPROCESS.test(name) || IO.test(name) || helperNames.has(name) || /\.(read_text|read_bytes|open|exists|stat|iterdir|glob)$/.test(name)) touches = true;
            else if (imported.has(root) && !/^(re|math|json|itertools|functools|collections|string|random|statistics|decimal|fractions|typing|dataclasses|hashlib|base64)$/.test(root)) touches = true;
          } else if (n.type === 'identifier' && moduleNames.has(text(tf.tree, n))) touches = true;
          else if (n.type === 'string' && /^\/|\.\w{1,5}$/.test(stringValue(tf.tree, n) ?? '')) touches = true;
          else if (n.type === 'attribute' && /^self\./.test(text(tf.tree, n))) touches = true;
        }, skipNestedScopes);
        if (touches) continue;
        yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} reads no file, runs no program and imports nothing the agent wrote: it passes (or fails) whatever the agent did.` };
      }
    }
  },
};

/** An answer-like word starting a name part (`expected_out.txt`, `golden/`, but not `preferences.js`). */
const EXPECTED_NAME = /(^|[^a-z])(expected|golden|ground[_-]?truth|g?truth|answers?|reference)[^/]*$/i;

/** The test reads the file's content (not only passes the path to the agent's program or checks it exists). */
export function readByTest(tree: SyntaxTree, lit: SyntaxNode): boolean {
  const src = tree.text;
  const reads = (expr: string): boolean => {
    const e = expr.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`open\\(\\s*${e}\\s*(\\)|,\\s*(mode\\s*=\\s*)?['"]r)|${e}\\)?\\.(read_text|read_bytes|open)\\(|(read_csv|read_json|load|loadtxt|genfromtxt|read_table|read_parquet)\\(\\s*(open\\()?${e}|filecmp\\.cmp\\([^)]*${e}`).test(src);
  };
  if (reads(text(tree, lit))) return true;
  let p: SyntaxNode | null = lit.parent;
  while (p && p.type !== 'assignment' && p.type !== 'expression_statement' && p.type !== 'block') p = p.parent;
  if (p?.type === 'assignment') {
    const left = childByField(p, 'left');
    if (left?.type === 'identifier' && reads(text(tree, left))) return true;
  }
  return false;
}

/** The test writes the file at this literal itself (`open(p, 'w')`, `Path(p).write_text`, via a name bound to it). */
export function writtenByTest(tree: SyntaxTree, lit: SyntaxNode): boolean {
  const src = tree.text;
  const writes = (expr: string): boolean => {
    const e = expr.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`open\\(\\s*${e}\\s*,\\s*(mode\\s*=\\s*)?['"][wax]|${e}\\)?\\.(write_text|write_bytes|touch)\\(|(copy\\w*|move|rename|dump|savetxt|save|to_csv|to_json)\\([^)]*${e}`).test(src);
  };
  if (writes(text(tree, lit))) return true;
  // `NAME = Path("/…")` or `NAME = "/…"`, then a write through NAME.
  let p: SyntaxNode | null = lit.parent;
  while (p && p.type !== 'assignment' && p.type !== 'expression_statement' && p.type !== 'block') p = p.parent;
  if (p?.type === 'assignment') {
    const left = childByField(p, 'left');
    if (left?.type === 'identifier' && writes(text(tree, left))) return true;
  }
  return false;
}

export const expectedFromAgentWritablePath: StaticRule = {
  id: 'expected-from-agent-writable-path', class: 'misalignment', severity: 'warning',
  title: 'The expected value is read from a file the agent can overwrite',
  *check(ctx) {
    for (const s of testStrings(ctx)) {
      const v = s.value;
      // A root agent reads and writes anywhere but the folders the harness mounts after it (/opt too).
      if (!v.startsWith('/') || !EXPECTED_NAME.test(v) || /^\/(tests|logs|oracle|solution|proc|sys|dev)(\/|$)/.test(v)) continue;
      // Decided by where the file comes from, not by its name: the image must put it there (so it
      // exists before the agent starts), the solution must not write it (then it is the agent's
      // output) and the test must not write it itself.
      const base = v.split('/').pop() ?? v;
      const dfText = ctx.text(ctx.task.environment.dockerfile) ?? '';
      const ctxPrefix = `${ctx.task.environment.contextDir}/`.replace(/^\.?\//, '');
      const fromImage = dfText.includes(base)
        || ctx.task.files.some((f) => f.startsWith(ctxPrefix) && f.endsWith(`/${base}`))
        // Made at build time by a context script the Dockerfile runs (`RUN python3 make_answer.py`).
        || ctx.task.files.some((f) => f.startsWith(ctxPrefix) && /\.(py|sh)$/.test(f) && dfText.includes(f.split('/').pop() ?? f) && (ctx.text(f) ?? '').includes(base));
      if (!fromImage) continue;
      // Outside the agent's folders, a file the instruction hands over as input (a reference list
      // to check against) is the task's material, not a hidden answer.
      if (!ctx.isAgentWritable(v) && [ctx.instruction(), ...(ctx.task.steps ?? []).map((st) => st.instruction ?? '')].some((t) => t.includes(base))) continue;
      if (ctx.task.solution.file && (ctx.text(ctx.task.solution.file) ?? '').includes(base)) continue;
      if (writtenByTest(s.tree, s.node) || !readByTest(s.tree, s.node)) continue;
      yield { file: s.file, range: ctx.range(s.file, s.node.start, s.node.end), message: `The tests read ${v} as the expected answer, but it lives where the agent writes: the agent can replace it (or copy it into its output). Ship expected values under tests/.` };
    }
  },
};

/** For the cross-file rules: plain string literals of every test file. */
const stringsCache = new WeakMap<AuditContext, { file: string; node: SyntaxNode; value: string; tree: SyntaxTree }[]>();

export function testStrings(ctx: AuditContext): { file: string; node: SyntaxNode; value: string; tree: SyntaxTree }[] {
  let out = stringsCache.get(ctx);
  if (!out) {
    out = [];
    for (const tf of tests(ctx)) for (const s of stringLiterals(tf.tree)) out.push({ file: tf.file, node: s.node, value: s.value, tree: tf.tree });
    stringsCache.set(ctx, out);
  }
  return out;
}

export function testFunctionsOf(ctx: AuditContext): readonly TestFile[] {
  return tests(ctx);
}

