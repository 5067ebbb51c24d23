/** Rules on time in Python tests and verifier scripts: wall-clock bounds and fixed sleeps. */
import { callArgs, calleeName, stringValue, text, type PyFunction } from '../../parse/python';
import { childByField, descendants, findAncestor, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { assertExpr, asserts, own, tests } from './pyTestFiles';

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

// A note, not a warning: on the blind readings its warnings were true 4 times in 17 (three sets), the
// seventh set's 0 in 3 after earlier narrowing; a fixed sleep is often ample for what it waits on.
export const fixedSleepSynchronization: StaticRule = {
  id: 'fixed-sleep-synchronization', class: 'brittleness', severity: 'info',
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
