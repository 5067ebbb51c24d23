/** Rules on what the assertions of a Python test can catch: none, trivial, existence or shape only, swallowed, skipped. */
import { calleeName, codeText, skipNestedScopes, stringLiterals, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, findAncestor, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { assertExpr, assertingHelpers, asserts, failsOtherwise, fnRange, own, tests, type TestFile } from './pyTestFiles';
import { otherRunnerSkips } from './runnerSkips';
import { rewardFromTestWrittenFile } from './scoreFile';
import { guardsShippedFiles } from './skipGuards';

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
  return TRUTH_NAME.test(codeText(tree, fn.body));
}

/**
 * `"harbor" in names` where the function made `names` a list or set of values (a comprehension,
 * `list(…)`, `.values()`), or text (`.read()`): a value the output must contain, not a field present.
 */
function valueMembership(tree: SyntaxTree, expr: SyntaxNode, fn: PyFunction): boolean {
  const m = /^("|')[^"']*("|') in (\w+)$/.exec(text(tree, expr).replace(/\s+/g, ' ').trim());
  if (!m) return false;
  const rhs = new RegExp(String.raw`(?:^|\n)\s*${m[3]}\s*=\s*([^\n]+)`).exec(text(tree, fn.body))?.[1]?.trim() ?? '';
  if (/^(\[|\{[^:}]*\bfor\b|(set|list|sorted|tuple|frozenset)\()/.test(rhs)) return true;
  // Text or a mapping's values read whole (`open(p).read()`, `d.values()`), not parsed into an object first.
  return !/\bloads?\(/.test(rhs) && /\.(read|read_text|values|splitlines|split)\([^()]*\)(\.(strip|lower|upper)\(\))*$/.test(rhs);
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
        // A "must not raise" test (`remove("missing")  # should not raise`): the call is the check, and
        // pytest fails the test if it raises.
        if (NO_RAISE.test(fn.name.replace(/_/g, ' ')) || NO_RAISE.test(body)) continue;
        // A test skipped outright (`@pytest.mark.skip`, `@unittest.skip`) never runs: it grades nothing either way.
        if (fn.decorators.some((d) => /^(pytest\.mark\.skip|unittest\.skip|skip)\b(?!if)/.test(d))) continue;
        // …or one that skips itself before anything else (`skip("temporarily disabled")` under its docstring).
        if (/^(("""|''')[\s\S]*?\2|"[^"\n]*"|'[^'\n]*')?\s*((pytest\.)?skip|self\.skipTest)\(/.test(body)) continue;
        if (/^(pass|\.\.\.)$/.test(body) || /^("""|''')[\s\S]*("""|''')\s*(pass)?$/.test(body)) {
          yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} is empty: it passes for any agent.` };
          continue;
        }
        yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} contains no assertion and calls nothing that checks: it passes unless something crashes.` };
      }
    }
  },
};

/** A test whose contract is that a call does not raise: said in its name, docstring or a comment. */
const NO_RAISE = /\b(should|must|does|do|will)(n't| not) (raise|throw|error|crash|fail)\b|\bno (exception|error)s? (is |are )?(raised|thrown)\b|\bwithout (raising|throwing|an? (exception|error))\b|\b(doesnt|does not|no) (raise|crash|error)\b/i;

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
          // Graded by a score file the tests write (pytest's status discarded), a test ending in
          // `assert True` is the scoring step, not a check.
          const vacuous = onlyOne && !advisory && !failsOtherwise(tf, fn, assertingHelpers(tf)) && !rewardFromTestWrittenFile(ctx);
          yield {
            file: tf.file, range: ctx.range(tf.file, a.start, a.end), severity: vacuous ? 'warning' as const : 'info' as const,
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
  const shape = !comparesWithTruth(tf.tree, fn) && exprs.every((e) => e !== undefined && (isTrivial(tf.tree, e) || isExistenceCheck(tf.tree, e) || (isWeakCheck(tf.tree, e) && !valueMembership(tf.tree, e, fn))));
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

// A note, not a warning: on seven blind readings its warnings were true 6 times in 24 (five sets),
// and still 0 in 3 on the seventh, after three rounds of narrowing (bench/ACCURACY.md).
export const skipCountsAsPass: StaticRule = {
  id: 'skip-counts-as-pass', class: 'misalignment', severity: 'info',
  title: 'Tests skip themselves, and a skipped test does not fail the verdict',
  *check(ctx) {
    // Graded by a score file the tests write, with pytest's status discarded: a skip scores nothing.
    const pytestDecides = !rewardFromTestWrittenFile(ctx);
    for (const tf of pytestDecides ? tests(ctx) : []) {
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

