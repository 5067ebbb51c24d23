/**
 * verifier-reads-solution: the verifier uses /solution, the folder Harbor uploads only when the oracle
 * agent runs (its OracleAgent copies solution/ there): in any other agent's trial it does not exist.
 */
import type { ShellCommand, ShellScript, ShellWord } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { SCRIPT_INTERPRETER } from './commands';
import { imageFills, madeByImage } from './imageLayout';
import { resolveWord, workingDirAt } from './workingDir';

/** The task folder Harbor's oracle uploads to /solution, and its files. */
const SOLUTION_DIR = 'solution/';
const solutionFolderFiles = (ctx: AuditContext): string[] => ctx.task.files.filter((f) => f.startsWith(SOLUTION_DIR));

/** `/solution` as a path of its own (not `/app/solution`), outside a comment line. */
const SOLUTION_PATH = /(^|[\s"'=:(,[{`]|:-)(\/solution)(\/[\w.@%+-][\w./@%+-]*)?(?=$|[\s"'`)\]},;:])/m;

/**
 * The first use of /solution in a verifier file. A shell script's bare `/solution` is the folder; a
 * path below it counts when solution/ holds a file of that name (a web route `/solution/submit` in a
 * test's HTTP call does not).
 */
function firstUse(text: string, shell: boolean, solutionFiles: ReadonlySet<string>): { index: number; path: string } | undefined {
  let offset = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*(#|\/\/)/.test(line) ? null : SOLUTION_PATH.exec(line);
    const sub = m?.[3];
    if (m && (sub === undefined ? shell : solutionFiles.has(sub.slice(1)) || solutionFiles.has(sub.slice(sub.lastIndexOf('/') + 1)))) {
      return { index: offset + m.index + (m[1]?.length ?? 0), path: `${m[2] ?? ''}${sub ?? ''}` };
    }
    offset += line.length + 1;
  }
  return undefined;
}

/** `os.path.exists("/solution/x")`, `Path("/solution").is_dir()`, `[ -f /solution/x ]`, `-e /solution`. */
const EXISTENCE_TEST = /\b(exists|isfile|isdir|is_file|is_dir|access)\s*\(\s*(Path\(\s*)?["']\/solution\b|Path\(\s*["']\/solution[^"']*["']\s*\)\s*\.\s*(exists|is_file|is_dir)\b|\s-[edfrsL]\s+["']?\/solution\b/;

/** `SOL = "/solution/solve.sh"` … `os.path.isfile(SOL)`: the existence test through a variable. */
function guardedVariable(text: string): boolean {
  return [...text.matchAll(/\b(\w+)\s*=\s*(?:Path\(\s*)?["']\/solution\b/g)].some((m) => {
    const v = m[1] ?? '';
    return new RegExp(`\\b(exists|isfile|isdir|is_file|is_dir)\\s*\\(\\s*${v}\\s*\\)|\\b${v}\\s*\\.\\s*(exists|is_file|is_dir)\\s*\\(`).test(text);
  });
}

export const verifierReadsSolution: StaticRule = {
  id: 'verifier-reads-solution', class: 'invalidity', severity: 'warning',
  title: 'The verifier uses /solution, which exists only when the oracle runs',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    // An image that ships the solution at /solution has it in every trial (solution-copied-into-image says why that is wrong).
    if (imageFills(ctx, '/solution')) return;
    const solutionFiles = new Set(solutionFolderFiles(ctx).flatMap((f) => [f.slice(SOLUTION_DIR.length), f.slice(f.lastIndexOf('/') + 1)]));
    const testFiles = new Set(ctx.task.files.filter((f) => f.startsWith(`${ctx.testsDir}/`)).map((f) => f.slice(f.lastIndexOf('/') + 1)));
    for (const f of new Set([...ctx.verifierScripts, ...ctx.testPython])) {
      const t = ctx.text(f);
      // A verifier that tests whether /solution is there knows it may not be (an oracle-only check, a safety check).
      if (t === undefined || EXISTENCE_TEST.test(t) || guardedVariable(t)) continue;
      const use = firstUse(t, !f.endsWith('.py'), solutionFiles);
      // …and one whose tests keep their own copy of the file uses /solution only as a fallback.
      if (!use || testFiles.has(use.path.slice(use.path.lastIndexOf('/') + 1))) continue;
      yield { file: f, range: ctx.range(f, use.index, use.index + use.path.length),
        message: `The verifier uses ${use.path}, but Harbor uploads solution/ to /solution only when the oracle agent runs: in an agent's trial it is not there, so the verdict fails (or grades the reference) whatever the agent did. Grade the agent's own output, and keep what the tests need under tests/.` };
    }
  },
};

/** Commands that run or read the file named by their arguments (`python3 X`, `bash X`, `cp X dest`). */
const READS = /^(source|\.|cat|cp|install)$/;
const runsOrReads = (name: string): boolean => SCRIPT_INTERPRETER.test(name) || READS.test(name);
/** A script file by its extension. */
const SCRIPT_FILE = /^[\w.@+-][\w./@+-]*\.(py|sh|js|mjs|cjs|R|rb|pl)$/;

/**
 * The script file `cmd` runs when it names one by a relative path (`python3 solution.py`): the first
 * operand, when no option before it says the program comes from elsewhere (`-m`, `-c`, `-e`).
 */
function relativeScript(cmd: ShellCommand): ShellWord | undefined {
  if (!SCRIPT_INTERPRETER.test(cmd.name)) return undefined;
  for (const a of cmd.args) {
    if (a.value.startsWith('-')) {
      if (/^-([mce]|-command|-eval)$/.test(a.value)) return undefined;
      continue;
    }
    return SCRIPT_FILE.test(a.value) && !a.value.startsWith('/') ? a : undefined;
  }
  return undefined;
}

export const solutionPathMissing: StaticRule = {
  id: 'solution-path-missing', class: 'invalidity', severity: 'warning',
  title: 'The reference solution runs one of its own files from a path where Harbor does not put it',
  *check(ctx) {
    const file = ctx.solutionScript;
    const script = ctx.shell(file);
    if (ctx.task.format !== 'harbor' || !file || !script || !ctx.dockerfile()) return;
    const own = new Set(solutionFolderFiles(ctx).filter((f) => f !== file).map((f) => f.slice(f.lastIndexOf('/') + 1)));
    const text = script.tree.text;
    const missing = missingRelativeScript(ctx, file, script, own);
    if (missing) {
      yield missing;
      return;
    }
    if (own.size === 0) return;
    for (const cmd of script.commands) {
      const args = cmd.args.map((a) => a.value);
      const words = runsOrReads(cmd.name) ? (cmd.name === 'cp' || cmd.name === 'install' ? args.slice(0, -1) : args) : [cmd.name];
      for (const w of words) {
        if (!w.startsWith('/') || w.includes('$') || w === '/solution' || w.startsWith('/solution/')) continue;
        const name = w.slice(w.lastIndexOf('/') + 1);
        const dir = w.slice(0, w.lastIndexOf('/')) || '/';
        if (!own.has(name) || madeByImage(ctx, w)) continue;
        // Put there by the script itself first (`cp -r /solution /app/solution`, `mkdir -p /app/solution`).
        if (text.slice(0, cmd.start).includes(dir)) continue;
        yield { file, range: ctx.range(file, cmd.start, cmd.end),
          message: `The solution runs ${w}, but Harbor uploads solution/ to /solution and the image puts no ${name} at ${dir}: the oracle fails before it solves anything. Use /solution/${name}, or a path relative to the script's own folder.` };
        return;
      }
    }
  },
};

/**
 * A script the solution runs by a relative path (resolved in the folder Harbor starts it in, after its
 * `cd`s) that nothing provides: solution/ holds nothing of that name at that place, the image puts
 * nothing there, and neither the script before it nor the Dockerfile names it (so nothing writes it).
 * The adapter that made `python3 solution.py` for a task whose reference is `solution.java` is the case.
 */
function missingRelativeScript(ctx: AuditContext, file: string, script: ShellScript, own: ReadonlySet<string>): Report | undefined {
  const dfText = ctx.text(ctx.task.environment.dockerfile) ?? '';
  for (const cmd of script.commands) {
    if (cmd.conditional || cmd.inFunction || cmd.inSubstitution) continue;
    const word = relativeScript(cmd);
    if (!word) continue;
    const cwd = workingDirAt(ctx, script, cmd);
    const target = cwd === undefined ? undefined : resolveWord(word.value, cwd);
    if (target === undefined) continue;
    const name = target.slice(target.lastIndexOf('/') + 1);
    const inSolution = target.startsWith('/solution/') && ctx.fileSet.has(`solution/${target.slice('/solution/'.length)}`);
    // The script before it, without its comment lines: a comment that names the file writes nothing.
    const before = script.tree.text.slice(0, cmd.start).split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    if (inSolution || madeByImage(ctx, target) || dfText.includes(name) || before.includes(name)) continue;
    const there = own.has(name) ? `; solution/ holds ${name}, which Harbor uploads to /solution/${name}` : '';
    return { file, range: ctx.range(file, cmd.start, cmd.end),
      message: `The solution runs ${word.value}, which resolves to ${target}, and nothing puts a file there: not the image, not solution/ (uploaded to /solution), not this script before it${there}. The oracle fails before it solves anything. Run the reference from where it is (/solution/…), or write the file first.` };
  }
  return undefined;
}
