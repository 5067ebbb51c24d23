import path from 'node:path';
import type { ParsedDockerfile } from '../../parse/dockerfile';
import type { StaticRule } from '../rule';
import { PATH_IN_TEXT } from './crossFile';
import { MOVING_IMAGES } from './imageBuild';
import { imageLayout } from './imageLayout';
import type { Report } from '../rule';

/** Verbs that make a path something the agent must bring into being (not edit, fix or read). */
const CREATE_VERBS = /\b(create|creates|write|writes|save|saves|produce|produces|generate|generates|output (it |them )?to|store|place|put)\b/i;
const EDIT_VERBS = /\b(fix|edit|modify|update|repair|debug|refactor|complete|finish|optimi[sz]e|improve|correct|change|patch|read|load|given|provided|existing|contains?|template|skeleton|stub)\b/i;

/** Output paths the instruction asks the agent to create, with the clause that says so. */
function requiredOutputs(instr: string): string[] {
  const out = new Set<string>();
  const re = new RegExp(PATH_IN_TEXT.source, 'g');
  for (let m = re.exec(instr); m; m = re.exec(instr)) {
    const p = m[1] ?? '';
    const lineStart = instr.lastIndexOf('\n', m.index) + 1;
    const lineEnd = instr.indexOf('\n', m.index);
    const sentenceStart = Math.max(lineStart, instr.lastIndexOf('. ', m.index) + 1);
    const nextStop = instr.indexOf('. ', m.index + m[0].length);
    const end = Math.min(lineEnd < 0 ? instr.length : lineEnd, nextStop < 0 ? instr.length : nextStop + 1);
    // The create verb must govern this path: it comes before it in the same sentence ("Run: bash
    // /app/run.sh reads x writes /app/out.txt" creates out.txt, not run.sh), and a path handed to a
    // shell or interpreter is something to run, not to make.
    const before = instr.slice(sentenceStart, m.index);
    const clause = instr.slice(sentenceStart, end);
    if (/\b(bash|sh|source|python3?|node|run|execute|invoke)\s+[`'"]?$/i.test(before)) continue;
    if (CREATE_VERBS.test(before) && !EDIT_VERBS.test(clause)) out.add(p);
  }
  return [...out];
}

export const outputAlreadyInImage: StaticRule = {
  id: 'output-already-in-image', class: 'misalignment', severity: 'warning',
  title: 'The file the agent must create is already in the image, and the oracle never writes it',
  *check(ctx) {
    const df = ctx.dockerfile();
    const sol = ctx.text(ctx.solutionScript) ?? (ctx.task.solution.commands ?? []).map((c) => c.command).join('\n');
    const instr = ctx.instruction();
    // Without a reference solution there is no evidence of which file the oracle produces.
    if (!df || !instr || !ctx.task.solution.file) return;
    const wanted = requiredOutputs(instr);
    if (wanted.length === 0) return;
    const shipped = imageLayout(ctx).files;
    const tests = [...ctx.verifierScripts, ...ctx.testPython].map((f) => ctx.text(f) ?? '').join('\n');
    const file = ctx.task.environment.dockerfile ?? 'Dockerfile';
    for (const p of wanted) {
      const line = shipped.get(p)?.line;
      if (line === undefined) continue;
      const name = path.posix.basename(p);
      // The tests must grade it, and the oracle must leave it as shipped: then the shipped file is what passes.
      if (!tests.includes(name) || sol.includes(name)) continue;
      const ins = df.instructions.find((i) => i.range.start.line === line);
      yield {
        file, ...(ins ? { range: ins.range } : {}),
        message: `The instruction asks the agent to create ${p}, but this line already puts it in the image and the reference solution never writes it: the tests grade the shipped file, so an agent that does nothing passes.`,
      };
    }
  },
};

/** Terminal-Bench 1's own base images ship tmux and asciinema. */
const TB1_BASE = /^ghcr\.io\/laude-institute\/t-bench\//;

export const tb1TerminalToolsMissing: StaticRule = {
  // A note, though true on real tasks (judged 15/15; Terminal-Bench 1's session setup raises when
  // `tmux -V`, or while recording `asciinema --version`, fails): Taskwright's own TB1 starter and its
  // generator write images for the offline harness, which has neither, and the generator's audit gate
  // would then turn down every TB1 draft. Raise it once they install the tools; set it to `warning` or
  // `error` in taskwright.json for tasks bound for Terminal-Bench 1.
  id: 'tb1-terminal-tools-missing', class: 'invalidity', severity: 'info',
  title: 'A Terminal-Bench 1 image lacks tmux (or asciinema while recording is on)',
  *check(ctx) {
    if (ctx.task.format !== 'tb1') return;
    const df = ctx.dockerfile();
    const final = df?.froms[df.froms.length - 1];
    if (!df || !final) return;
    const image = final.name ?? final.image;
    // Only stock public images are known to lack the tools; a custom base may well have them.
    if (TB1_BASE.test(image) || !MOVING_IMAGES.test(image)) return;
    const missing = ['tmux', ...(ctx.task.agent.recordsSession !== false ? ['asciinema'] : [])].filter((tool) => !new RegExp(`\\b${tool}\\b`).test(df.text));
    if (missing.length === 0) return;
    yield {
      file: ctx.task.environment.dockerfile ?? 'Dockerfile', range: final.imageRange ?? final.instruction.range,
      message: `Terminal-Bench 1 drives the agent through tmux${missing.includes('asciinema') ? ' and records it with asciinema (disable_asciinema is not set)' : ''}, and refuses to start when ${missing.join(' or ')} is missing: \`${final.image}\` does not have ${missing.length > 1 ? 'them' : 'it'} and this Dockerfile never installs ${missing.length > 1 ? 'them' : 'it'}. Install ${missing.join(' and ')}${missing.includes('asciinema') ? ', or set disable_asciinema: true' : ''}.`,
    };
  },
};

/** Names that say "expected answer" outright (an encrypted `.enc` oracle payload is not readable, so not one). */
const ANSWER_NAME = /(^|\/)(expected|golden|ground[_-]?truth|answers?|reference[_-]?(output|answer|solution)|solution[_-]?output)([_.\-/]|$)/i;
/** Documentation, not data: README, LICENSE, NOTICE, CHANGELOG, whatever the extension. */
const DOC_NAME = /^(readme|license|licence|notice|changelog|contributing)([._-]|$)/i;
/** Data a test compares against (code the tests run is the agent's business). */
const DATA_FILE = /\.(json|jsonl|csv|tsv|txt|ya?ml|xml|npy|npz|parquet|pkl|out|ans|expected|md5|sha256|sig)$/i;

/**
 * Expected answers in the agent's image, decided by where a file comes from and who uses it: a data
 * file COPY'd into the image that the tests open by its image path, that the instruction never gives
 * the agent and the reference solution never reads or writes, exists only for grading, so the agent
 * can read what the tests compare against. Files named as expected answers count whoever reads them.
 */
/** Variable names that hold a secret or an answer (a CTF flag, an expected value), not configuration. */
const ANSWER_VAR = /(^|_)(FLAG|SECRET|ANSWER|EXPECTED|SOLUTION|PASSWORD|PASSPHRASE|KEY)(_|$)/i;

/** A line that compares or matches something: an assert, ==/!=, `in`, a shell test, grep/diff/cmp. */
const COMPARES = /\bassert\b|==|!=|\bin\b\s+\w|\[\[?\s|\btest\s|\b(grep|diff|cmp)\b|\.(assertEqual|assertIn|startswith|endswith)\(/;

/**
 * Whether the tests use variable `n` (or its literal value) as an expected value: a read of it on a
 * comparing line, or a Python name bound to the read and then compared. A read that only sets it up
 * as configuration (`os.environ.setdefault("N", …)`, `export N="${N:-…}"`, `os.environ["N"] = …`)
 * compares nothing, and a Django SECRET_KEY the app merely needs to start is no answer.
 */
function comparedInTests(n: string, value: string | undefined, tests: string): boolean {
  const read = new RegExp(`(environ\\.get\\(\\s*|environ\\[\\s*|getenv\\(\\s*)["']${n}["']|\\$\\{?${n}\\b`);
  const setup = new RegExp(`environ\\.setdefault\\(\\s*["']${n}["']|environ\\[\\s*["']${n}["']\\s*\\]\\s*=[^=]|^\\s*(export\\s+)?${n}=`);
  const lines = tests.split('\n');
  const bound = new Set<string>();
  for (const line of lines) {
    if (!read.test(line) || setup.test(line)) continue;
    if (COMPARES.test(line.replace(read, ''))) return true;
    const m = /^\s*(?:[A-Za-z_]\w*\s*=\s*)*([A-Za-z_]\w*)\s*=[^=]/.exec(line);
    if (m?.[1]) bound.add(m[1]);
  }
  if (bound.size > 0 && lines.some((l) => COMPARES.test(l) && [...bound].some((v) => new RegExp(`\\b${v}\\b`).test(l) && !new RegExp(`^\\s*${v}\\s*=[^=]`).test(l)))) return true;
  // The literal value written into an assertion (`assert out == "flag{…}"`) is the answer too.
  const lit = value?.replace(/^["']|["']$/g, '');
  return lit !== undefined && lit.length >= 6 && lines.some((l) => l.includes(lit) && COMPARES.test(l) && !setup.test(l));
}

/**
 * `ENV SECRET_FLAG=…` in the image and a test that compares the agent's output with that variable:
 * the agent's shell has the same environment, so `env` prints the answer.
 */
function* answerInImageEnv(df: ParsedDockerfile, file: string, tests: string): Generator<Report> {
  for (const ins of df.instructions) {
    if (ins.keyword !== 'ENV') continue;
    const pairs = ins.args.map((a) => { const i = a.value.indexOf('='); return i < 0 ? [a.value, undefined] as const : [a.value.slice(0, i), a.value.slice(i + 1)] as const; });
    // Legacy `ENV NAME value` form: one pair, the value is the rest of the line.
    const legacy = pairs.length > 1 && pairs[0]?.[1] === undefined ? [[pairs[0]?.[0] ?? '', ins.args.slice(1).map((a) => a.value).join(' ')] as const] : pairs;
    const used = legacy.find(([n, v]) => /^[A-Za-z_]\w*$/.test(n) && ANSWER_VAR.test(n) && comparedInTests(n, v, tests))?.[0];
    if (!used) continue;
    yield { file, range: ins.range, message: `The image sets ${used} in its environment and the tests compare against it: the agent's shell has the same environment, so \`env\` prints the answer. Give the value to the verifier only (tests/ or its own env).` };
  }
}

// A note, not a warning: on the blind readings its warnings were true 1 in 6 (three sets) — below 0.75
// on at least 6 judged findings from at least 3 sets, after its causes found earlier were fixed.
export const answerInImage: StaticRule = {
  id: 'answer-in-image', class: 'misalignment', severity: 'info',
  title: 'Expected answers are copied into the agent\'s image',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const file = ctx.task.environment.dockerfile ?? 'Dockerfile';
    const tests = [...ctx.verifierScripts, ...ctx.testPython].map((f) => ctx.text(f) ?? '').join('\n');
    // Every step's instruction: a file one step hands the agent is not a secret of another.
    const instr = [ctx.instruction(), ...(ctx.task.steps ?? []).map((st) => st.instruction ?? '')].join('\n');
    const sol = ctx.text(ctx.solutionScript) ?? (ctx.task.solution.commands ?? []).map((c) => c.command).join('\n');
    const byLine = new Map<number, string[]>();
    const testsDir = ctx.testsDir;
    // Names of the files the tests folder ships, once: an image that copies in a vendored source tree
    // lists thousands of files, and each test below is a scan of the whole test text.
    const testsOwn = new Set(ctx.task.files.filter((f) => f.startsWith(`${testsDir}/`)).map((f) => path.posix.basename(f)));
    const hasSolution = ctx.task.solution.file !== undefined;
    for (const [dest, { line }] of imageLayout(ctx).files) {
      const name = path.posix.basename(dest);
      // The name tests (cheap) come before the text scans, in the order the verdict needs them.
      const answerNamed = ANSWER_NAME.test(dest) && !DOC_NAME.test(name);
      const dataNamed = hasSolution && DATA_FILE.test(name);
      if (!answerNamed && !dataNamed) continue;
      // An answer is what the verifier compares against: the tests must reach it (by name or by a
      // folder of it), and the instruction must not hand it to the agent (by name or folder).
      const folders = dest.split('/').slice(1, -1).filter((d) => ANSWER_NAME.test(`/${d}`));
      // The tests reaching the name while shipping a file of that name themselves read their own copy
      // (unless they open the image path); a README beside the answers documents, it answers nothing.
      const named = answerNamed && (tests.includes(name) || folders.some((d) => tests.includes(d)))
        && !(instr.includes(name) || folders.some((d) => instr.includes(d)))
        && !(testsOwn.has(name) && !tests.includes(dest));
      const gradingOnly = dataNamed && tests.includes(dest) && !instr.includes(name) && !sol.includes(name);
      if (!named && !gradingOnly) continue;
      byLine.set(line, [...(byLine.get(line) ?? []), dest]);
    }
    yield* answerInImageEnv(df, file, tests);
    for (const [line, hits] of byLine) {
      const ins = df.instructions.find((i) => i.range.start.line === line);
      const r: Report = {
        file, ...(ins ? { range: ins.range } : {}),
        message: `The image receives ${hits.slice(0, 3).join(', ')}${hits.length > 3 ? ` and ${hits.length - 3} more` : ''}: ${hits.some((h) => tests.includes(h)) ? 'the tests read it, but the instruction and the reference solution never use it, so it is grading data' : 'named as expected answers'}, readable by the agent. Keep it under tests/ (copied in only at verification).`,
      };
      yield r;
    }
  },
};

/** Names of build arguments and variables that carry a credential. */
const SECRET_NAME = /(^|_)(TOKEN|SECRET|API_?KEY|ACCESS_?KEY|PASSWORD|PASSWD|CREDENTIALS?|AUTH)$/i;

export const secretInImage: StaticRule = {
  id: 'secret-in-image', class: 'infra', severity: 'warning',
  title: 'A credential passed to the build is kept in the image environment, where the agent can read it',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const file = ctx.task.environment.dockerfile ?? 'Dockerfile';
    const secretArgs = new Set<string>();
    for (const ins of df.instructions) {
      if (ins.keyword === 'ARG') {
        const name = (ins.args[0]?.value ?? '').split('=')[0] ?? '';
        if (SECRET_NAME.test(name)) secretArgs.add(name);
        continue;
      }
      if (ins.keyword !== 'ENV' || secretArgs.size === 0) continue;
      // `ENV HF_TOKEN=${HF_TOKEN}` (or `ENV HF_TOKEN $HF_TOKEN`): the build-time value becomes part of
      // every container's environment, and of the image's history.
      const used = [...secretArgs].find((a) => new RegExp(`\\$\\{?${a}\\b`).test(ins.argsText));
      if (!used) continue;
      yield { file, range: ins.range, message: `\`ENV …\${${used}}\` keeps the build argument ${used} in the image environment: the agent under test can print it (env, /proc/1/environ) and use or leak the credential. Use a build secret (\`RUN --mount=type=secret\`) or pass it to the verifier only.` };
    }
  },
};
