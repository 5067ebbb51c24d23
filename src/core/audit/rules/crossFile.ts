import type { Range } from '../../model/positions';
import { calleeName, keywordArg, text } from '../../parse/python';
import { descendants, findAncestor } from '../../parse/syntax';
import { escapeRegExp } from '../../parse/regex';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { installOf, isSystemInstall, urlHost } from './commands';
import { chatDataFiles, fencedCode } from './dataFiles';
import { testFunctionsOf, testStrings } from './pythonTests';

function basename(p: string): string {
  return p.replace(/\/+$/, '').split('/').pop() ?? p;
}

function fieldRange(ctx: AuditContext, keys: readonly string[]): { file: string; range: Range } | undefined {
  for (const k of keys) {
    const f = ctx.task.fields[k];
    if (f) return { file: f.file, range: f.range };
  }
  return undefined;
}

/** The text before a path on its Python line: the path is the argument of a file or process call, or a variable's value. */
const PY_FILE_ACCESS = /\b(open|Path|PurePath|exists|isfile|isdir|listdir|scandir|walk|glob|iglob|read_text|read_bytes|read_csv|read_json|load|loadtxt|chdir|run|check_output|check_call|Popen|call|system|copy|copyfile|copytree|rmtree|remove|unlink|mkdir|makedirs|stat|connect)\s*\([^)]*$|^\s*[A-Za-z_][\w.]*\s*=\s*(?:Path\(\s*)?[rbfRBF]?["']$/;

/**
 * A user the task itself knows: named as a word in the instruction (the principal to sign, the login
 * to create), or as a quoted name in its scripts and tests (`useradd appuser`, `_ensure_user("appuser")`).
 * Its home folder is made in the container, not left from the author's machine.
 */
function containerUser(ctx: AuditContext, files: readonly string[], user: string): boolean {
  const word = new RegExp(`(?<![\\w/.-])${escapeRegExp(user)}(?![\\w/.-])`);
  if (word.test(ctx.instruction()) || ctx.instruction().includes(`/home/${user}`)) return true;
  const quoted = new RegExp(`["'\\s]${escapeRegExp(user)}["'\\s]|\\b(useradd|adduser)\\b[^\\n]*\\b${escapeRegExp(user)}\\b`);
  return files.some((f) => quoted.test(ctx.text(f) ?? ''));
}

export const hardcodedHostPath: StaticRule = {
  id: 'hardcoded-host-path', class: 'brittleness', severity: 'warning',
  title: 'A path from the author\'s machine (/Users/…, /home/<user>/…, C:\\…)',
  *check(ctx) {
    const df = ctx.task.environment.dockerfile;
    const dfText = ctx.text(df) ?? '';
    const files = [df, ctx.solutionScript, ...ctx.verifierScripts, ...ctx.testPython].filter((f): f is string => !!f);
    const re = /(?<![\w.])(\/Users\/[A-Za-z][\w.-]*\/|\/home\/([a-z_][\w.-]*)\/|[A-Z]:\\\\?(?:Users|Documents|Projects|dev|src|code)\\)/g;
    for (const file of files) {
      const t = ctx.text(file) ?? '';
      for (let m = re.exec(t); m; m = re.exec(t)) {
        const lineStart = t.lastIndexOf('\n', m.index) + 1;
        if (/^\s*#/.test(t.slice(lineStart, m.index))) continue;
        // In Python a path is often a value (an expected answer, text the report must contain): only
        // a path the line opens, lists or runs is one the test needs on this machine.
        if (file.endsWith('.py') && !PY_FILE_ACCESS.test(t.slice(lineStart, m.index))) continue;
        // `repo = Path("/home/me/…")` then `if repo.exists():` only uses the path where it exists.
        const bound = file.endsWith('.py') ? /^\s*([A-Za-z_]\w*)\s*=/.exec(t.slice(lineStart, m.index))?.[1] : undefined;
        if (bound && new RegExp(`\\b${bound}\\.(exists|is_file|is_dir)\\(\\)|\\b(exists|isfile|isdir)\\(\\s*${bound}\\s*\\)`).test(t)) continue;
        const user = m[2];
        if (user && (dfText.includes(user) || containerUser(ctx, files, user) || /^(user|agent|app|ubuntu|runner|root|node|jovyan|vscode|dev|test|tester|student|ctf|admin|devuser)$/.test(user))) continue;
        yield { file, range: ctx.range(file, m.index, m.index + m[0].length), message: `${m[0]} is a path on the author's machine: it does not exist in the task's container.` };
      }
    }
  },
};

/** Absolute paths to files (with an extension) in free text. */
export const PATH_IN_TEXT = /(?<![\w$./-])(\/(?:app|data|workspace|home|root|srv|opt|tmp|mnt|usr\/src|var\/\w+|code|project)(?:\/[\w.@+-]+)*\/[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,6})(?![\w/])/g;

const OUTPUT_VERBS = /\b(create|creates|created|write|writes|written|save|saved|saves|output|outputs|produce|produces|generate|generates|generated|store|stored|put|place|emit|export|build|compile|named|should (be|exist|contain)|must (be|exist|contain)|will be|result|results|report|implement|modify|fix|edit|update|rename|move|convert|extract|download|fetch|restore|recover|install|dump|log to|append)\b/i;

/** Clauses that give a path as an illustration (an example invocation, "such as"), not as an input that must exist. */
const EXAMPLE_WORDS = /\b(e\.g\.|for example|for instance|such as|usage|invoked|(run|called|tested|executed) (as|with|on|against)|arbitrary|hypothetical)\b/i;

/**
 * Paths that are not promises about the task's files: inside a fenced code block (an example
 * output, a sample command), in a quoted traceback or installed-package path (an issue report's
 * text), on another user's home folder, or with a placeholder (`cap_NNN.mp4`, `<name>.txt`).
 */
function quotedOrIllustrative(instr: string, at: number, p: string, corpus: string): boolean {
  const fences = instr.slice(0, at).match(/^\s*(```|~~~)/gm)?.length ?? 0;
  if (fences % 2 === 1) return true;
  const lineStart = instr.lastIndexOf('\n', at) + 1;
  const lineEnd = instr.indexOf('\n', at);
  const line = instr.slice(lineStart, lineEnd < 0 ? instr.length : lineEnd);
  if (/^\s*>/.test(line) || /File "|Traceback|line \d+, in\b/.test(line) || /\/(site|dist)-packages\/|\/venv\/|\/\.?virtualenvs?\//.test(p)) return true;
  const home = /^\/home\/([^/]+)\//.exec(p);
  if (home && !corpus.includes(`/home/${home[1] ?? ''}`)) return true;
  return /N{2,}|X{3,}|\{|<|\*/.test(p);
}

export const instructionMissingFile: StaticRule = {
  // info: 16 of 20 sampled real findings were true (0.80), short of the 0.90 a warning needs: inputs
  // made at build time by scripts, by earlier steps' tests, or described as requirements still slip in.
  id: 'instruction-missing-file', class: 'invalidity', severity: 'info',
  title: 'The instruction names an input file that nothing in the task creates',
  *check(ctx) {
    const instr = ctx.instruction();
    if (!instr) return;
    // In a multi-step task the agent of an earlier step may create the file: its instruction and
    // solution count as sources too.
    const earlier = ctx.task.steps && ctx.task.step ? ctx.task.steps.slice(0, ctx.task.step.index) : [];
    // Scripts in the build context may generate inputs at build time (`RUN python make_fixtures.py`).
    const ctxDir = (ctx.task.environment.contextDir || '.').replace(/\/+$/, '');
    const buildScripts = ctx.textFiles().filter((f) => /\.(py|sh)$/.test(f) && (ctxDir === '.' || f.startsWith(`${ctxDir}/`)));
    const corpus = [ctx.task.environment.dockerfile, ctx.task.environment.composeFile, ctx.solutionScript, ...ctx.verifierScripts, ...ctx.testPython, ...buildScripts, ...earlier.map((st) => st.solutionFile)].map((f) => ctx.text(f) ?? '').concat(earlier.map((st) => st.instruction ?? '')).join('\n');
    const seen = new Set<string>();
    for (let m = PATH_IN_TEXT.exec(instr); m; m = PATH_IN_TEXT.exec(instr)) {
      const p = m[1] ?? '';
      if (seen.has(p)) continue;
      seen.add(p);
      const name = basename(p);
      if (ctx.baseNames.has(name) || corpus.includes(name)) continue;
      if (quotedOrIllustrative(instr, m.index, p, corpus)) continue;
      // The clause around the path: an output verb there ("write … to /app/x.json") makes it an output.
      const before = instr.slice(0, m.index);
      // Clause boundaries are punctuation followed by a space (a dot inside `x.py` is not one).
      let clauseStart = 0;
      for (const b of before.matchAll(/[.,;:](?=\s)|\n/g)) clauseStart = b.index + 1;
      const afterText = instr.slice(m.index + p.length);
      const stop = afterText.search(/[.,;:](\s|$)|\n/);
      const clause = instr.slice(clauseStart, m.index) + instr.slice(m.index + p.length, m.index + p.length + (stop < 0 ? afterText.length : stop));
      // "e.g." ends in a dot and instructions wrap lines: look for example wording a little further back.
      const lead = before.slice(Math.max(before.lastIndexOf('\n\n') + 1, m.index - 80));
      if (OUTPUT_VERBS.test(clause) || EXAMPLE_WORDS.test(clause) || EXAMPLE_WORDS.test(lead)) continue;
      const range = ctx.instructionRange(p);
      yield { file: ctx.task.instructionFile, ...(range ? { range } : {}), message: `The instruction refers to ${p}, but neither the build context, the Dockerfile, the solution nor the tests mention ${name}: the agent will not find it.` };
    }
  },
};

/** `v` names a file the task ships: /tests/x under the tests folder, or a task-relative path. */
function shipped(ctx: AuditContext, dirs: ReadonlySet<string>, v: string): boolean {
  const rel = ctx.testsPathOf(v) ?? v.replace(/^\.\//, '');
  return ctx.fileSet.has(rel) || dirs.has(rel);
}

export const missingTestFixture: StaticRule = {
  id: 'missing-test-fixture', class: 'invalidity', severity: 'error',
  title: 'The tests read a file under /tests that the task does not ship',
  *check(ctx) {
    const testsDir = ctx.testsDir;
    const scriptsText = [...ctx.verifierScripts, ...ctx.testPython].map((f) => ctx.text(f) ?? '').join('\n');
    const dirs = new Set<string>();
    for (const f of ctx.task.files) { const parts = f.split('/'); for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/')); }
    for (const s of testStrings(ctx)) {
      const m = /^\/tests\/([\w.@+/-]+\.[A-Za-z0-9]{1,6})$/.exec(s.value);
      if (!m) continue;
      const rel = `${testsDir}/${m[1] ?? ''}`;
      if (ctx.fileSet.has(rel) || dirs.has(rel)) continue;
      const name = basename(rel);
      // One of several candidate paths tried in turn (`for p in ["/tests/a.json", "/tests/b.json"]`):
      // missing only if every candidate is.
      const list = s.node.parent?.type === 'list' || s.node.parent?.type === 'tuple' ? s.node.parent : undefined;
      if (list && list.children.some((c) => c !== s.node && c.type === 'string' && shipped(ctx, dirs, text(s.tree, c).replace(/^[rbfRBF]*['"]|['"]$/g, '')))) continue;
      // Written or fetched by the verifier itself (count mentions beyond this literal).
      if (scriptsText.split(name).length - 1 > 1) continue;
      const call = findAncestor(s.node, (n) => n.type === 'call');
      if (call && /w|a|x/.test(text(s.tree, keywordArg(s.tree, call, 'mode') ?? call).replace(/^.*,\s*['"]([rwaxb+]+)['"].*$/s, '$1')) && /open/.test(calleeName(s.tree, call))) {
        const modeArg = text(s.tree, call);
        if (/['"][wax]b?\+?['"]/.test(modeArg)) continue;
      }
      yield { file: s.file, range: ctx.range(s.file, s.node.start, s.node.end), message: `${s.value} is read by the tests, but ${rel} is not in the task: the tests fail for every agent, the oracle included.` };
    }
  },
};

export const unstatedTestedFile: StaticRule = {
  // info: on real tasks the instruction names outputs in ways a name match cannot see (a folder, a
  // pattern, "the report"), so the finding is a prompt to check, not a defect to fix.
  id: 'unstated-tested-file', class: 'misalignment', severity: 'info',
  title: 'The tests check an output file the instruction never names',
  *check(ctx) {
    const instr = ctx.instruction();
    if (!instr) return;
    const dfText = ctx.text(ctx.task.environment.dockerfile) ?? '';
    const sol = ctx.text(ctx.solutionScript) ?? '';
    const seen = new Set<string>();
    for (const s of testStrings(ctx)) {
      const v = s.value;
      if (!/^\/[\w.@+/-]+\.[A-Za-z0-9]{1,6}$/.test(v) || !ctx.isAgentWritable(v) || seen.has(v)) continue;
      const name = basename(v);
      if (instr.includes(name) || dfText.includes(name) || ctx.baseNames.has(name)) continue;
      if (!sol.includes(name)) continue;
      seen.add(v);
      const ir = ctx.instructionRange(instr.split('\n')[0] ?? '');
      yield {
        file: s.file, range: ctx.range(s.file, s.node.start, s.node.end),
        message: `The tests expect ${v}, and the reference solution writes it, but the instruction never names ${name}: an agent that follows the instruction has to guess.`,
        related: [{ file: ctx.task.instructionFile, ...(ir ? { range: ir } : {}), message: `${name} is not mentioned here` }],
      };
    }
  },
};

function sleepSeconds(ctx: AuditContext, file: string): number {
  const s = ctx.shell(file);
  if (!s) return 0;
  let total = 0;
  for (const c of s.commands) {
    if (c.name !== 'sleep' || c.inLoop || c.background || c.inFunction) continue;
    const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(c.args[0]?.value ?? '');
    if (!m) continue;
    total += Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600 }[m[2] ?? ''] ?? 1);
  }
  return total;
}

export const solutionExceedsTimeout: StaticRule = {
  id: 'solution-exceeds-timeout', class: 'invalidity', severity: 'warning',
  title: 'The reference solution plainly needs longer than the agent timeout',
  *check(ctx) {
    const limit = ctx.task.timeouts.agentSec;
    if (!(limit > 0)) return;
    let need = 0;
    let where: { file: string; range?: Range } | undefined;
    if (ctx.solutionScript) { need += sleepSeconds(ctx, ctx.solutionScript); where = { file: ctx.solutionScript }; }
    for (const c of ctx.task.solution.commands ?? []) need += c.minTimeoutSec ?? 0;
    if (need < limit) return;
    const f = fieldRange(ctx, ['agent.timeout_sec', 'max_agent_timeout_sec']);
    yield {
      file: f?.file ?? where?.file ?? ctx.task.configFile, ...(f ? { range: f.range } : {}),
      message: `The reference solution waits at least ${need} s (sleeps and minimum command timeouts), but the agent timeout is ${limit} s: the oracle cannot finish.`,
      ...(where ? { related: [{ file: where.file, message: 'the solution\'s waits' }] } : {}),
    };
  },
};

// A note, not a warning: on the blind readings its warnings were true 4 in 7 (three sets) — below 0.75
// on at least 6 judged findings from at least 3 sets, after its causes found earlier were fixed.
export const verifierTimeoutTooShort: StaticRule = {
  id: 'verifier-timeout-too-short', class: 'infra', severity: 'info',
  title: 'The verifier timeout is shorter than the tests\' own waits',
  *check(ctx) {
    const limit = ctx.task.timeouts.verifierSec;
    if (!(limit > 0)) return;
    let sleeps = 0;
    let longest = 0;
    let at: { file: string; range: Range } | undefined;
    for (const f of ctx.verifierScripts) sleeps += sleepSeconds(ctx, f);
    for (const tf of testFunctionsOf(ctx)) {
      for (const c of descendants(tf.tree.root, 'call')) {
        const name = calleeName(tf.tree, c);
        if (/^(time\.)?sleep$/.test(name)) {
          const arg = text(tf.tree, c).match(/\(\s*(\d+(?:\.\d+)?)\s*\)/);
          if (arg && !findAncestor(c, (n) => n.type === 'for_statement' || n.type === 'while_statement')) sleeps += Number(arg[1]);
        }
        const t = keywordArg(tf.tree, c, 'timeout');
        if (t && /^\d+(\.\d+)?$/.test(text(tf.tree, t))) {
          const v = Number(text(tf.tree, t));
          if (v > longest) { longest = v; at = { file: tf.file, range: ctx.range(tf.file, t.start, t.end) }; }
        }
      }
    }
    const f = fieldRange(ctx, ['verifier.timeout_sec', 'max_test_timeout_sec']);
    if (sleeps >= limit) {
      yield { file: f?.file ?? ctx.task.configFile, ...(f ? { range: f.range } : {}), message: `The tests sleep ${sleeps} s in total, but the verifier timeout is ${limit} s: grading is cut off before it can finish.` };
    } else if (longest > limit && at) {
      yield { file: at.file, range: at.range, message: `This call may wait ${longest} s, longer than the verifier timeout of ${limit} s: a slow but correct run is killed as a timeout instead of being judged.`, ...(f ? { related: [{ file: f.file, range: f.range, message: `verifier timeout ${limit} s` }] } : {}) };
    }
  },
};

const LIVE_HOSTS = /(^|\.)(huggingface\.co|youtube\.com|youtu\.be|raw\.githubusercontent\.com|kaggle\.com|drive\.google\.com|docs\.google\.com|dropbox\.com|twitter\.com|x\.com|reddit\.com|wikipedia\.org|finance\.yahoo\.com)$/i;

export const externalLiveResource: StaticRule = {
  id: 'external-live-resource', class: 'brittleness', severity: 'info',
  title: 'The task depends on live third-party content',
  *check(ctx) {
    const instr = ctx.instruction();
    const re = /https?:\/\/[^\s)>\]"'`]+/g;
    for (let m = re.exec(instr); m; m = re.exec(instr)) {
      const host = urlHost(m[0]);
      if (!host || !LIVE_HOSTS.test(host)) continue;
      const range = ctx.instructionRange(m[0]);
      yield { file: ctx.task.instructionFile, ...(range ? { range } : {}), message: `The task needs ${m[0]} at solve time: content on ${host} changes or disappears, and the task then becomes unsolvable or its answer changes. Ship a snapshot in the environment.` };
    }
  },
};

const LLM_MARKERS = /<\/?(read_file|write_to_file|execute_command|function_calls|tool_call|invoke|antml:[a-z_]+)>|\bAs an AI( language model)?\b|\bI need to analyze\b|\bI'll help you\b|\bHere is the (updated|corrected|complete) (code|file|script)\b|\bCertainly! Here/;

/** Folders that keep records of agent runs, not task files: also Harbor's job folders and Terminal-Bench's runs (named by their start time) and an agent's episode logs. */
export const RUN_RECORD = /(^|\/)(trajectories|trajectory|transcripts|agent[-_]logs|trials)\/|(^|\/)(jobs|runs)\/\d{4}-\d{2}-\d{2}__\d{2}-\d{2}-\d{2}\/|(^|\/)episode-\d+\/|\.(atif|traj)\.json$/i;

export const llmArtifactInTask: StaticRule = {
  id: 'llm-artifact-in-task', class: 'invalidity', severity: 'warning',
  title: 'A task file contains chat or tool-call text from a generator',
  *check(ctx) {
    // A recorded agent run kept beside the task (a trajectory, a transcript) is chat by nature, and no
    // part of what the agent or the verifier gets.
    const files = new Set([ctx.task.instructionFile, ...ctx.textFiles().filter((f) => !RUN_RECORD.test(f))]);
    for (const f of files) {
      const t = ctx.text(f);
      if (!t) continue;
      const m = LLM_MARKERS.exec(t);
      if (!m) continue;
      yield { file: f, range: ctx.range(f, m.index, m.index + m[0].length), message: `"${m[0]}" is chat or tool-call text left by a generator: the file is probably not what the task needs.` };
    }
    yield* chatDataFiles(ctx);
    yield* fencedCode(ctx);
  },
};

export const solutionUnpinnedDependency: StaticRule = {
  id: 'solution-unpinned-dependency', class: 'brittleness', severity: 'info',
  title: 'The reference solution installs a package without a version',
  *check(ctx) {
    const file = ctx.solutionScript;
    const s = ctx.shell(file);
    if (!file || !s) return;
    for (const cmd of s.commands) {
      const inst = installOf(cmd);
      if (!inst || isSystemInstall(inst)) continue;
      for (const p of inst.packages.filter((x) => !x.pinned)) {
        const w = cmd.args[p.argIndex];
        if (!w) continue;
        yield { file, range: ctx.range(file, w.start, w.end), message: `The oracle installs \`${p.spec}\` without a version: a new release can break it, and the task no longer proves it is solvable.` };
      }
    }
  },
};

