/**
 * The expected value recomputed from input files the agent can rewrite: a test reads the task's
 * inputs from where the agent works (`/app/data/*.csv`), derives the answer from them and compares it
 * with the agent's output. Root in the container, the agent can replace the inputs with a trivial
 * case (one row, an empty list) and write the matching output without doing the work. Decided by
 * data flow: which files one test reads (directly or through the file's own helpers), which of them
 * exist before the agent starts (made by the image, or handed over as input by the instruction, and
 * never written by the solution or the test) and which are the agent's output.
 */
import { calleeLast, stringValue, type PyFunction } from '../../parse/python';
import { descendants, type SyntaxTree } from '../../parse/syntax';
import { escapeRegExp } from '../../parse/regex';
import type { AuditContext } from '../context';
import type { Report } from '../rule';
import { writes } from './fileWrites';
import { madeByImage } from './imageLayout';
import { calledHelpers, fileReads, type FileRead } from './pyPaths';
import { assertExpr, assertingHelpers, asserts, tests } from './pyTestFiles';

/** A data file by its extension: what tasks hand over as input or expected values. */
export const DATA = /\.(json|jsonl|ndjson|csv|tsv|txt|log|ya?ml|xml|parquet|xlsx?|npy|npz|db|sqlite3?)$/i;
const DATA_LITERAL = /\.(json|jsonl|ndjson|csv|tsv|txt|log|ya?ml|xml|parquet|xlsx?|npy|npz|db|sqlite3?)['"]/i;
const OUT_WORDS = /\b(writes?|written|sav(e|es|ed)|outputs?|produc(e|es|ed)|creat(e|es|ed)|generat(e|es|ed)|emit|export|stor(e|es|ed)|deliverables?|results?\s+(file|to)|report\s+to)\b/i;
/** Output or run-state folders: `out/`, `output_data/`, `results/`, `solution/`, `metrics/`, `state/`, `logs/`. */
const PRODUCED_DIR = /\/(out|outputs?(_\w+)?|results?|solutions?|submissions?|reports?|metrics|state|logs?|checkpoints?)\//i;
/** A sentence led by an output verb, after list markers: `Save …`, `- Write …`, `2. Create …`. */
const OUT_VERB_LEAD = /^[\s>*\-\d.)`]*(write|save|output|produce|create|generate|emit|export|store|place|put)\b/i;
const IN_WORDS = /\b(inputs?|given|provided|reads?|from|located|contains?|source|data(set)?s?|files?\s+(at|in|under))\b/i;

function prose(ctx: AuditContext): string {
  return [ctx.instruction(), ...(ctx.task.steps ?? []).map((s) => s.instruction ?? '')].join('\n');
}

/**
 * Whether the instruction hands `p` over as input: it names the file (or its folder) in a clause
 * with no output verb, under a lead line or heading that is not about outputs.
 */
function instructionInput(text: string, p: string): boolean {
  const base = p.split('/').pop() ?? p;
  const dir = p.slice(0, p.length - base.length - 1);
  const lines = text.split('\n');
  // The folder alone (`/app/data/`), not as the start of another file's path (`/app/other.json`).
  const mention = new RegExp(`${escapeRegExp(p)}|(^|[^\\w./-])${escapeRegExp(base)}(?![\\w.-])|${escapeRegExp(dir)}/?(?![\\w./-])`);
  let seen = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const m = mention.exec(line);
    if (!m || dir === '') continue;
    seen = true;
    // The clause before the mention: `Write the totals to <p>` is output, `<p> holds one row per…` input.
    const sentence = line.slice(0, m.index).split(/[.;!?]\s/).pop() ?? '';
    const before = sentence.split(/,\s*|\band\b|\bthen\b/).pop() ?? '';
    if (OUT_WORDS.test(before)) return false;
    // A sentence that opens with an output verb (`Save your corrected and complete rules as a file at <p>`).
    if (OUT_VERB_LEAD.test(sentence)) return false;
    const after = line.slice(m.index + m[0].length);
    // A success criterion: `<p> exists`, `<p> and <q> exist containing …`.
    if (/^[`'"]?\s*(and\s+\S+\s+)?(exists?|is created|are created|is written|are written)\b/.test(after)) return false;
    if (before.replace(/[-*`\s\d.)]/g, '') === '' && OUT_WORDS.test(after) && !IN_WORDS.test(after)) return false;
    // A bare list item: its lead line or heading decides.
    if (before.replace(/[-*`\s\d.)]/g, '') === '' && after.replace(/[`\s:]/g, '') === '') {
      for (let j = i - 1; j >= 0 && j >= i - 15; j--) {
        const lead = (lines[j] ?? '').trim();
        if (lead === '' || /^[-*]|^\d+[.)]/.test(lead)) continue;
        if (OUT_WORDS.test(lead)) return false;
        break;
      }
    }
  }
  return seen;
}

function solutionWrites(ctx: AuditContext, p: string): boolean {
  const base = p.split('/').pop() ?? p;
  const sol = ctx.text(ctx.task.solution.file) ?? '';
  return sol.split('\n').some((l) => l.includes(base) && /(>|\btee\b|\bcp\b|\bmv\b|['"][wa]b?['"]|write|dump|save|to_csv|to_json|to_parquet|touch)/.test(l));
}

/**
 * A program of the tests folder that a verifier script runs writes a file of that name: the verifier
 * makes the inputs afresh before grading (`python $TEST_DIR/generate_data.py` "to prevent cheating"),
 * so whatever the agent left there is overwritten.
 */
function regeneratedByVerifier(ctx: AuditContext, p: string): boolean {
  const base = p.split('/').pop() ?? p;
  const run = ctx.verifierScripts.map((f) => ctx.text(f) ?? '').join('\n');
  return ctx.task.files.some((f) => f.startsWith(`${ctx.testsDir}/`) && /\.(py|sh)$/.test(f) && !ctx.verifierScripts.includes(f)
    && run.includes(f.slice(f.lastIndexOf('/') + 1)) && writes(ctx.text(f) ?? '', base));
}

/** The path is data in the agent's reach that the task supplies: made by the image or handed over as input. */
function isInput(ctx: AuditContext, p: string, testText: string, lines: readonly string[]): boolean {
  if (!DATA.test(p) || !ctx.isAgentWritable(p) || ctx.isReadOnlyMount(p) || solutionWrites(ctx, p) || regeneratedByVerifier(ctx, p)) return false;
  // Folders named for what a program produces hold the agent's output or state, not the task's input.
  if (PRODUCED_DIR.test(p.slice(0, p.lastIndexOf('/') + 1))) return false;
  // Handed to a program the test runs (`run_decoder(idx, "/tmp/out.json")`): that program writes it.
  if (new RegExp(`\\w\\(([^()\\n]*,\\s*)?['"]${escapeRegExp(p)}['"]`).test(testText.replace(/(Path|open|read_\w+|load|exists|isfile)\(\s*['"]/g, '#')))  return false;
  const base = p.split('/').pop() ?? p;
  // Written by the test itself (a fixture it makes), on a line that names the file: not the agent's to rewrite first.
  // …directly or through a name bound to it (`ORDERS = DATA / "orders.csv"`, then `ORDERS.write_text(…)`).
  const names = [base, ...lines.flatMap((l) => { const m = /^\s*(\w+)\s*=[^=].*/.exec(l); return m && l.includes(base) ? [m[1] as string] : []; })];
  const named = new RegExp(`(^|[^\\w.])(${names.map(escapeRegExp).join('|')})(?![\\w])`);
  if (lines.some((l) => /['"](w|wb|a|x|w\+)['"]|write_text|write_bytes|to_csv|to_json|json\.dump\(/.test(l) && named.test(l))) return false;
  return madeByImage(ctx, p) || instructionInput(prose(ctx), p);
}

/**
 * Values a test's assertions require of the output: string literals that are an operand of `==`,
 * `!=` or `in` (`"/api/profile" in routes`, `row["region"] == "North Europe"`), not a call's argument
 * (`encoding="utf-8"`), a subscript key, a field or identifier name (`"condition" in rule`) or a
 * format prefix (`"total_trials="`).
 */
function assertedValues(tree: SyntaxTree, fn: PyFunction): string[] {
  const out: string[] = [];
  for (const a of asserts(fn)) {
    const e = assertExpr(a);
    if (!e) continue;
    for (const s of descendants(e, 'string')) {
      if (s.parent?.type !== 'comparison_operator') continue;
      const v = stringValue(tree, s)?.trim();
      if (v === undefined || v.length < 4 || /^[a-z][a-z0-9_]*$/.test(v) || /[=_:-]$/.test(v)) continue;
      out.push(v);
    }
  }
  return out;
}

/**
 * Another test pins a value that the task's own inputs hold (a route, an id, a name found in a
 * file of the build context): replacing the inputs with a trivial case fails that test, so the
 * recomputed check is a hardening gap, not a way to full reward.
 */
function pinsShippedValue(ctx: AuditContext, tf: ReturnType<typeof tests>[number], except: string): boolean {
  const ctxDir = `${ctx.task.environment.contextDir || '.'}/`.replace(/^\.\//, '');
  // The task's data as shipped in the build context (not its scripts, not a tests/ copy).
  const shipped = ctx.textFiles().filter((f) => f.startsWith(ctxDir) && DATA.test(f) && !/(^|\/)tests?\//.test(f.slice(ctxDir.length)));
  if (shipped.length === 0) return false;
  for (const fn of tf.functions) {
    if (!fn.isTest || fn.name === except) continue;
    for (const v of assertedValues(tf.tree, fn)) if (shipped.some((f) => (ctx.text(f) ?? '').includes(v))) return true;
  }
  return false;
}

/** One report per test file: the first read of an input that a grading test recomputes its expected value from. */
export function* recomputedExpected(ctx: AuditContext, skipFiles: ReadonlySet<string>): Generator<Report> {
  for (const tf of tests(ctx)) {
    // A test that hashes files is checking that the inputs were left alone: the hole is closed.
    if (skipFiles.has(tf.file) || /\b(hashlib|sha256|sha1|md5)\b/.test(tf.tree.text)) continue;
    // Cheap gate before any data flow: no data file literal, nothing to recompute from.
    if (!DATA_LITERAL.test(tf.tree.text)) continue;
    const reads = fileReads(tf);
    const helpers = assertingHelpers(tf);
    const lines = tf.tree.text.split('\n');
    const verdicts = new Map<string, boolean>();
    let best: { read: FileRead; test: string; inputs: Set<string>; output: string } | undefined;
    for (const fn of tf.functions) {
      if (!fn.isTest) continue;
      const grades = asserts(fn).length > 0 || descendants(fn.body, 'call').some((c) => helpers.has(calleeLast(tf.tree, c)));
      if (!grades) continue;
      const all: FileRead[] = [...(reads.get(fn) ?? []), ...calledHelpers(tf, fn).flatMap((h) => reads.get(h) ?? [])];
      const abs = all.filter((r) => r.path.abs !== undefined);
      const inputs = abs.filter((r) => {
        const p = r.path.abs as string;
        let v = verdicts.get(p);
        if (v === undefined) { v = isInput(ctx, p, tf.tree.text, lines); verdicts.set(p, v); }
        return v;
      });
      if (inputs.length === 0) continue;
      const inputPaths = new Set(inputs.map((r) => r.path.abs as string));
      // The agent's output: read in the same test, in the agent's reach, and not one of the inputs.
      const output = abs.find((r) => {
        const p = r.path.abs as string;
        return !inputPaths.has(p) && !/^\/(tests|logs|oracle|solution|proc|sys|dev)(\/|$)/.test(p) && !madeByImage(ctx, p);
      });
      if (!output) continue;
      const first = inputs.reduce((a, b) => (b.node.start < a.node.start ? b : a));
      if (!best || first.node.start < best.read.node.start) best = { read: first, test: fn.name, inputs: inputPaths, output: output.path.abs as string };
    }
    if (!best) continue;
    const list = [...best.inputs].sort();
    const shown = list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
    const range = ctx.range(tf.file, best.read.node.start, best.read.node.end);
    if (pinsShippedValue(ctx, tf, best.test)) {
      yield {
        file: tf.file, range, severity: 'info',
        message: `${best.test} recomputes its expected value from ${shown}, inputs the agent can rewrite, and compares it with ${best.output}; other tests pin values the shipped inputs hold, so a trivial input does not pass them. Recomputing from a copy under tests/ (or checking a checksum) would close the gap.`,
      };
      continue;
    }
    yield {
      file: tf.file, range,
      message: `${best.test} recomputes its expected value from ${shown}, inputs the agent can rewrite (root where it works), and compares it with ${best.output}: replacing the inputs with a trivial case and writing the matching output passes. Ship a copy of the inputs under tests/ (or check their checksum) and recompute from that.`,
    };
  }
}
