/** Rules on what a test compares with: directory listings, the clock, nothing of the agent's, answers in agent-writable files. */
import { callArgs, calleeName, skipNestedScopes, stringValue, text } from '../../parse/python';
import { childByField, descendants, type SyntaxNode, type SyntaxTree } from '../../parse/syntax';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { assertExpr, asserts, fnRange, own, readByTest, testStrings, tests, writtenByTest, type TestFile } from './pyTestFiles';
import { recomputedExpected } from './recomputedExpected';
import { neutralExpected } from './neutralExpected';

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

/** `listing == ["main.rs"]`: with one entry (or none) there is no order to get wrong. */
function comparedWithAtMostOne(a: SyntaxNode): boolean {
  const e = assertExpr(a);
  const other = e?.children.filter((c) => c.named).find((p) => p.type === 'list' || p.type === 'tuple');
  return other !== undefined && other.children.filter((c) => c.named && c.type !== 'comment').length <= 1;
}

export const unorderedListingComparison: StaticRule = {
  id: 'unordered-listing-comparison', class: 'brittleness', severity: 'warning',
  title: 'A directory listing is compared with a list in a fixed order',
  *check(ctx) {
    for (const { tf, a, sorted } of listingComparisons(ctx)) {
      if (sorted || comparedWithAtMostOne(a)) continue;
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

const TOUCHING_TYPES: ReadonlySet<string> = new Set(['call', 'identifier', 'string', 'attribute']);

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
        // Only these node types can touch anything: read from the tree's columns, not a walk of every node.
        const touches = descendants(fn.body, TOUCHING_TYPES, skipNestedScopes).some((n) => {
          if (n.type === 'call') {
            const name = calleeName(tf.tree, n);
            const root = name.split(/[.(]/)[0] ?? '';
            if (SUBPROCESS.test(name) || IO.test(name) || helperNames.has(name) || /\.(read_text|read_bytes|open|exists|stat|iterdir|glob)$/.test(name)) return true;
            return imported.has(root) && !/^(re|math|json|itertools|functools|collections|string|random|statistics|decimal|fractions|typing|dataclasses|hashlib|base64)$/.test(root);
          }
          if (n.type === 'identifier') return moduleNames.has(text(tf.tree, n));
          if (n.type === 'string') return /^\/|\.\w{1,5}$/.test(stringValue(tf.tree, n) ?? '');
          return /^self\./.test(text(tf.tree, n));
        });
        if (touches) continue;
        yield { file: tf.file, range: fnRange(ctx, tf, fn), message: `${fn.name} reads no file, runs no program and imports nothing the agent wrote: it passes (or fails) whatever the agent did.` };
      }
    }
  },
};

/** An answer-like word starting a name part (`expected_out.txt`, `golden/`, but not `preferences.js`). */
const EXPECTED_NAME = /(^|[^a-z])(expected|golden|ground[_-]?truth|g?truth|answers?|reference)[^/]*$/i;

// A note, not a warning: on the blind readings its warnings were true 5 in 7 (four sets). Made a warning
// again where the image ships the input once both false causes were fixed, it read 9 in 13 on the next
// judged sample (four new false causes in a generated dataset and a tamper check judges and readers
// disagree on), so it stays a note.
export const expectedFromAgentWritablePath: StaticRule = {
  id: 'expected-from-agent-writable-path', class: 'misalignment', severity: 'info',
  title: 'The expected value is read from a file the agent can overwrite',
  *check(ctx) {
    const reported = new Set<string>();
    for (const s of testStrings(ctx)) {
      const v = s.value;
      // A root agent reads and writes anywhere but the folders the harness mounts after it (/opt too).
      if (!v.startsWith('/') || /^\/(tests|logs|oracle|solution|proc|sys|dev)(\/|$)/.test(v)) continue;
      if (!EXPECTED_NAME.test(v)) {
        const neutral = neutralExpected(ctx, s);
        if (neutral) { reported.add(s.file); yield neutral; }
        continue;
      }
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
      reported.add(s.file);
      yield { file: s.file, range: ctx.range(s.file, s.node.start, s.node.end), message: `The tests read ${v} as the expected answer, but it lives where the agent writes: the agent can replace it (or copy it into its output). Ship expected values under tests/.` };
    }
    // Expected values the test derives from the agent-writable inputs themselves.
    yield* recomputedExpected(ctx, reported);
  },
};

