import { calleeName, pythonFunctions, skipNestedScopes, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { StaticRule } from '../rule';

/*
 * A verdict the agent writes about its own work ("passed": true, "accuracy": 0.93, "time_ms": 120)
 * is a claim, not evidence: a test that only compares the claim with a threshold rewards writing the
 * number. Keys are judged by name because the value's meaning is in the key: answers ("qos": 2,
 * "port": 8080) are compared by equality with numbers and stay out; claims are compared with a
 * threshold, `True` or a PASS word.
 */

/** Keys whose value is a verdict about the work itself (truthy, `True`, "PASS"). */
const VERDICT_KEY = /^(?:\w*_)?(passed|pass|success|successful|succeeded|verified|validated|fixed|resolved|all_pass(?:ed)?|tests?_pass(?:ed)?|test_result|test_status)$/i;
/** Keys whose value is a quality or speed measure of the work, judged by a threshold. */
const METRIC_KEY = /^(?:\w*_)?(accuracy|acc|f1|f1_score|auc|roc_auc|auc_score|speedup|improvement|response_time|processing_time|execution_time|run_time|runtime|elapsed|duration|latency)(?:_(ms|s|sec|secs|seconds|pct|percent))?$/i;
/**
 * A bare or qualified `score` is often data the task computes (a CVSS score, a normalised contact score);
 * only an evaluation's or a run's score (`test_score`, `average_score`) is the work's own quality.
 */
const SCORE_KEY = /^(test|val|valid|validation|eval|evaluation|cv|average|avg|final|best|overall)_score$/i;
const TIME_KEY = /(time|elapsed|duration|latency|runtime)/i;
const PASS_WORDS = /^(pass|passed|success|successful|ok|true|yes)$/i;
/** The test measures or recomputes itself: the claim is then not the only evidence. */
const RECOMPUTES = /\b(perf_counter|time\.time|timeit|monotonic|accuracy_score|f1_score|roc_auc_score|precision_score|recall_score|mean_squared_error|r2_score|classification_report|\.predict(_proba)?\(|(evaluate|score|compute|measure|benchmark)\w*\()/;
/** Modules that only read the agent's files; importing anything else means the test computes something itself. */
const READING_MODULES = /^(json|re|os|os\.path|sys|pathlib|pytest|math|typing|csv|yaml|glob|collections|string|time|datetime|subprocess)$/;

/** The test runs a program or computes with a library: a pass flag beside that is redundant, not the only evidence. */
function exercisesWork(tree: SyntaxTree): boolean {
  if (descendants(tree.root, 'call').some((c) => /^(subprocess\.\w+|os\.(system|popen)|run|check_output|check_call|Popen)$/.test(calleeName(tree, c)))) return true;
  for (const imp of descendants(tree.root, new Set(['import_statement', 'import_from_statement']))) {
    const mods = imp.type === 'import_from_statement'
      ? [childByField(imp, 'module_name')].filter((m): m is SyntaxNode => m !== undefined)
      : imp.children.filter((c) => c.type === 'dotted_name' || c.type === 'aliased_import').map((c) => (c.type === 'aliased_import' ? childByField(c, 'name') ?? c : c));
    if (mods.some((m) => !READING_MODULES.test(text(tree, m)))) return true;
  }
  return false;
}
/** Results written by a verifier-owned evaluator or test run, not by the agent. */
const TRUSTED_PRODUCER = /(\/tests\/|pytest|json-report|junit)/;

const NUMBER = new Set(['integer', 'float']);

function unwrap(n: SyntaxNode): SyntaxNode {
  let e = n;
  while (e.type === 'parenthesized_expression') e = e.children.find((c) => c.named) ?? e;
  return e;
}

/** The string key of `x["k"]`, `x.get("k")`, or `float(...)`/`int(...)`/`bool(...)` of one. */
function keyOf(tree: SyntaxTree, n: SyntaxNode): string | undefined {
  const e = unwrap(n);
  if (e.type === 'subscript') {
    const idx = childByField(e, 'subscript');
    return idx?.type === 'string' ? stringValue(tree, idx) : undefined;
  }
  if (e.type === 'call') {
    const name = calleeName(tree, e);
    const args = childByField(e, 'arguments')?.children.filter((c) => c.named) ?? [];
    const first = args[0];
    if (/\.get$/.test(name) && first?.type === 'string') return stringValue(tree, first);
    if (/^(float|int|bool|str)$/.test(name) && first) return keyOf(tree, first);
    if (/\.(lower|strip|upper)$/.test(name)) {
      const obj = childByField(childByField(e, 'function') ?? e, 'object');
      return obj ? keyOf(tree, obj) : undefined;
    }
  }
  return undefined;
}

/** The right-hand side last assigned to a local name before `before`. */
function assigned(tree: SyntaxTree, fn: PyFunction, name: string, before: number): SyntaxNode | undefined {
  let right: SyntaxNode | undefined;
  for (const a of descendants(fn.body, 'assignment', skipNestedScopes)) {
    if (a.start >= before) break;
    const left = childByField(a, 'left');
    if (left?.type === 'identifier' && text(tree, left) === name) right = childByField(a, 'right');
  }
  return right;
}

/** `m.group(1)` of `m = re.search(r"test_result:\s*(.+)", report)`: the line's label is the key. */
function keyOfMatchGroup(tree: SyntaxTree, fn: PyFunction, n: SyntaxNode, before: number): string | undefined {
  let e = unwrap(n);
  while (e.type === 'call' && /\.(strip|lower|upper)$/.test(calleeName(tree, e))) e = childByField(childByField(e, 'function') ?? e, 'object') ?? e;
  if (e.type !== 'call' || !/\.group$/.test(calleeName(tree, e))) return undefined;
  const obj = childByField(childByField(e, 'function') ?? e, 'object');
  if (obj?.type !== 'identifier') return undefined;
  const m = assigned(tree, fn, text(tree, obj), before);
  if (m?.type !== 'call' || !/^re\.(search|match|fullmatch)$/.test(calleeName(tree, m))) return undefined;
  const pat = childByField(m, 'arguments')?.children.find((c) => c.named);
  const label = pat?.type === 'string' ? /^\^?([A-Za-z_]\w*)\s*[:=]/.exec(stringValue(tree, pat) ?? '') : null;
  return label?.[1];
}

/** The key a local name was last read from (`score = float(data["score"])`), one hop. */
function keyOfName(tree: SyntaxTree, fn: PyFunction, name: string, before: number): string | undefined {
  const right = assigned(tree, fn, name, before);
  return right ? (keyOf(tree, right) ?? keyOfMatchGroup(tree, fn, right, before)) : undefined;
}

function resolveKey(tree: SyntaxTree, fn: PyFunction, n: SyntaxNode, at: number): string | undefined {
  const e = unwrap(n);
  if (e.type === 'identifier') return keyOfName(tree, fn, text(tree, e), at);
  return keyOf(tree, e);
}

interface Claim { readonly key: string; readonly against: string; readonly verdict: boolean }

/** What an asserted expression checks, when it checks a self-reported claim. */
function claimIn(tree: SyntaxTree, fn: PyFunction, expr: SyntaxNode, at: number): Claim | undefined {
  const e = unwrap(expr);
  if (e.type === 'subscript' || e.type === 'call') {
    const key = keyOf(tree, e);
    return key !== undefined && VERDICT_KEY.test(key) ? { key, against: 'truthy', verdict: true } : undefined;
  }
  if (e.type !== 'comparison_operator') return undefined;
  const parts = e.children.filter((c) => c.named);
  const ops = e.children.filter((c) => !c.named).map((c) => c.type);
  if (parts.length !== 2 || ops.length === 0) return undefined;
  const op = ops.join(' ');
  for (const [subject, lit] of [[parts[0], parts[1]], [parts[1], parts[0]]] as const) {
    if (!subject || !lit) continue;
    const key = resolveKey(tree, fn, subject, at);
    if (key === undefined) continue;
    const l = unwrap(lit);
    const litText = text(tree, l);
    if (VERDICT_KEY.test(key)) {
      if ((op === 'is' || op === '==') && l.type === 'true') return { key, against: litText, verdict: true };
      if (op === '==' && l.type === 'string' && PASS_WORDS.test(stringValue(tree, l) ?? '')) return { key, against: litText, verdict: true };
    }
    // A sign check (`time >= 0`) is plausibility, weak-assertion's business; a threshold is a claim graded.
    if ((METRIC_KEY.test(key) || SCORE_KEY.test(key)) && NUMBER.has(l.type) && /^(<|<=|>|>=)$/.test(op) && Number(litText) !== 0) return { key, against: `${op} ${litText}`, verdict: false };
  }
  return undefined;
}

/** Calls that only read and reshape what the agent wrote. */
const READ_ONLY_CALL = /^(open|json\.loads?|\w+\.read(_text|_bytes|lines)?|\w*\.?loads?|Path|\w+\.(strip|split|splitlines|items|keys|values|get|append|lower|upper)|float|int|str|bool|list|dict|set|tuple|len|sorted|enumerate|zip|range|isinstance|print)$/;

/**
 * The graded dict comes from a helper of this file that computes it (`m = _plan_metrics(req, plan)`
 * running the tests' own cost model over the agent's plan): the number is re-measured, not claimed.
 */
function fromComputingHelper(tree: SyntaxTree, fn: PyFunction, expr: SyntaxNode, at: number): boolean {
  const helpers = new Map(pythonFunctions(tree).filter((f) => !f.isTest).map((f) => [f.name, f]));
  const objects = new Set<string>();
  const collect = (n: SyntaxNode): void => {
    for (const sub of [n, ...descendants(n, 'subscript')].filter((x) => x.type === 'subscript')) {
      const obj = childByField(sub, 'value');
      if (obj?.type === 'identifier') objects.add(text(tree, obj));
    }
  };
  collect(expr);
  for (const id of [expr, ...descendants(expr, 'identifier')].filter((x) => x.type === 'identifier')) {
    const right = assigned(tree, fn, text(tree, id), at);
    if (right) collect(right);
  }
  for (const name of objects) {
    const right = assigned(tree, fn, name, at);
    const helper = right?.type === 'call' ? helpers.get(calleeName(tree, right)) : undefined;
    if (helper && descendants(helper.body, 'call').some((c) => !READ_ONLY_CALL.test(calleeName(tree, c)))) return true;
  }
  return false;
}

export const selfReportedResult: StaticRule = {
  id: 'self-reported-result', class: 'misalignment', severity: 'warning',
  title: 'A test grades a verdict or metric the agent reports about its own work',
  *check(ctx) {
    for (const file of ctx.testPython) {
      const tree = ctx.python(file);
      if (!tree || RECOMPUTES.test(tree.text)) continue;
      // A verifier-owned evaluator or test run produced the numbers: they are not the agent's claim.
      const runs = descendants(tree.root, 'call').filter((c) => /subprocess\.|os\.system|os\.popen/.test(calleeName(tree, c)));
      if (runs.some((c) => TRUSTED_PRODUCER.test(text(tree, c)))) continue;
      const verdictsRedundant = exercisesWork(tree);
      // `subprocess.run(..., timeout=60)` enforces a time limit itself: a reported time is then redundant.
      const timeBounded = descendants(tree.root, 'call').some((c) => /^subprocess\.\w+$/.test(calleeName(tree, c)) && /\btimeout\s*=/.test(text(tree, c)));
      for (const fn of pythonFunctions(tree).filter((f) => f.isTest)) {
        for (const a of descendants(fn.body, 'assert_statement', skipNestedScopes)) {
          const expr = a.children.find((c) => c.named && c.type !== 'comment');
          const claim = expr ? claimIn(tree, fn, expr, a.start) : undefined;
          if (!claim || (claim.verdict && verdictsRedundant) || (timeBounded && TIME_KEY.test(claim.key))) continue;
          if (expr && fromComputingHelper(tree, fn, expr, a.start)) continue;
          yield {
            file, range: ctx.range(file, a.start, a.end),
            message: `\`${text(tree, a).split('\n')[0]}\` grades "${claim.key}", a verdict the agent's own output reports about its work, and nothing in the tests re-measures it: writing the value earns the reward. Recompute it from the work (run the program, score the predictions, time it in the test).`,
          };
        }
      }
    }
  },
};
