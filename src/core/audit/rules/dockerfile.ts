import path from 'node:path';
import type { Fix } from '../../model/finding';
import type { Range } from '../../model/positions';
import type { DockerCopy, DockerRun, ParsedDockerfile } from '../../parse/dockerfile';
import type { ShellCommand } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { FILE_LIMITS } from '../../loader/files';
import { escapeRegExp } from '../../parse/regex';
import { inBuildContext } from './buildContextFiles';
import { imageLayout } from './imageLayout';

export function dfFile(ctx: AuditContext): string {
  return ctx.task.environment.dockerfile ?? 'Dockerfile';
}

/** A RUN command's range in the Dockerfile. */
export function runCmdRange(df: ParsedDockerfile, run: DockerRun, cmd: ShellCommand): Range {
  return df.lines.rangeOf(run.instruction.argsOffset + cmd.start, run.instruction.argsOffset + cmd.end);
}

export function* runCommands(df: ParsedDockerfile): Generator<{ run: DockerRun; cmd: ShellCommand }> {
  for (const run of df.runs) for (const cmd of run.shell?.commands ?? []) yield { run, cmd };
}

function removeInstructionFix(file: string, copy: DockerCopy, what: string): Fix {
  const r = copy.instruction.range;
  return { title: `Remove the COPY of ${what}`, preferred: true, edits: [{ file, range: { start: { line: r.start.line, character: 0 }, end: { line: r.end.line + 1, character: 0 } }, newText: '' }] };
}

function norm(p: string): string {
  return p.replace(/^\.\//, '').replace(/\/+$/, '');
}

/** A task-relative path as seen from the build context, or undefined when it lies outside it. */
function inContext(ctx: AuditContext, rel: string | undefined): string | undefined {
  if (rel === undefined) return undefined;
  const ctxDir = norm(ctx.task.environment.contextDir || '.');
  const r = norm(rel);
  if (ctxDir === '.' || ctxDir === '') return r;
  return r.startsWith(`${ctxDir}/`) ? r.slice(ctxDir.length + 1) : undefined;
}

/** The verifier's files inside the build context: the tests folder and the entry script. */
function isVerifierFile(ctx: AuditContext, rel: string): boolean {
  const tests = inContext(ctx, ctx.task.verifier.testsDir || 'tests');
  const entry = inContext(ctx, ctx.task.verifier.entry);
  return (tests !== undefined && rel.startsWith(`${tests}/`)) || rel === entry;
}

/** The reference solution's files inside the build context: the script and, for `solution/solve.sh`, its folder. */
function isSolutionFile(ctx: AuditContext, rel: string): boolean {
  const sol = inContext(ctx, ctx.task.solution.file);
  const solDir = folderOf(sol);
  if (sol !== undefined && (rel === sol || (solDir !== undefined && SOLUTION_FOLDER.test(solDir) && rel.startsWith(`${solDir}/`)))) return true;
  // A copy of the reference solution kept in the build context (`environment/solution/solution.rs`
  // beside the task's `solution/solution.rs`): a solution folder holding a file of the same name. An
  // empty file there is the slot the agent fills, not a copy of anything.
  const ownDir = folderOf(ctx.task.solution.file);
  const copy = /(?:^|\/)(?:solution|oracle)\/(.+)$/.exec(rel);
  return ownDir !== undefined && SOLUTION_FOLDER.test(ownDir) && copy !== null && ctx.fileSet.has(`${ownDir}/${copy[1] ?? ''}`)
    && (ctx.head(`${contextPrefix(ctx)}${rel}`, 1) ?? '') !== '';
}

/** A folder that holds a reference solution by its name. */
const SOLUTION_FOLDER = /(^|\/)(solution|oracle)$/;

/** The folder part of a relative path, undefined for a bare name (or no path). */
function folderOf(p: string | undefined): string | undefined {
  return p?.includes('/') ? p.slice(0, p.lastIndexOf('/')) : undefined;
}

/** The build context's folder as a task-relative prefix (`environment/`, or empty for the task root). */
function contextPrefix(ctx: AuditContext): string {
  const ctxDir = norm(ctx.task.environment.contextDir || '.');
  return ctxDir === '.' || ctxDir === '' ? '' : `${ctxDir}/`;
}

/**
 * What one source of a COPY/ADD leaves in the final image, by the image layout (final stage, carried
 * through `COPY --from` and `FROM <stage>`, minus what a later `rm` deletes): the context files it
 * put there, and whether anything of it survives at all (a folder the listing does not reach counts).
 */
function survivorsOf(ctx: AuditContext, copy: DockerCopy, arg: number): { files: string[]; any: boolean } {
  const { files, opaqueDirs } = imageLayout(ctx);
  const line = copy.instruction.range.start.line;
  const prefix = contextPrefix(ctx);
  const out = new Set<string>();
  let any = false;
  for (const f of files.values()) {
    if (f.line !== line || f.arg !== arg) continue;
    any = true;
    if (f.source?.startsWith(prefix)) out.add(f.source.slice(prefix.length));
  }
  if (!any) any = [...opaqueDirs.values()].includes(line);
  return { files: [...out].sort(), any };
}

function listed(files: readonly string[]): string {
  return `${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
}

/**
 * The verifier's files and the reference solution must stay out of the image the agent works in.
 * Both rules look at each COPY/ADD from the build context: a source that names the files directly
 * (fixable: drop the line, unless a later layer removes them) or a broad copy (`COPY . /app/`, a
 * folder) that ships them after .dockerignore.
 */
interface CopiedIntoImageSpec {
  readonly id: string;
  readonly title: string;
  /** The COPY source (normalised) names the protected files themselves. */
  names(ctx: AuditContext, src: string): boolean;
  /** A build-context file this rule keeps out of the image. */
  protects(ctx: AuditContext, rel: string): boolean;
  /** Whether what a broad copy ships is worth a finding (default: anything). */
  matters?(ctx: AuditContext, shipped: readonly string[]): boolean;
  broadMessage(copy: DockerCopy, src: string, shipped: readonly string[]): string;
  directMessage(copy: DockerCopy, src: string): string;
  /** Default severity (error unless the rule's blind record says otherwise). */
  readonly severity?: 'error' | 'warning';
  /** A copy handed to the agent on purpose (the instruction names where it lands): not reported. */
  given?(ctx: AuditContext, copy: DockerCopy): boolean;
}

function copiedIntoImageRule(spec: CopiedIntoImageSpec): StaticRule {
  return {
    id: spec.id, class: 'misalignment', severity: spec.severity ?? 'error', fixable: true, title: spec.title,
    *check(ctx) {
      const df = ctx.dockerfile();
      if (!df) return;
      const file = dfFile(ctx);
      for (const copy of df.copies) {
        if (!copy.dest || spec.given?.(ctx, copy)) continue;
        for (const [arg, src] of copy.sources.entries()) {
          const s = norm(src.value);
          // What the final image holds from this source: a build stage's copy the image leaves
          // behind, or one a later `rm` deletes, never reaches the agent.
          const kept = survivorsOf(ctx, copy, arg);
          if (!kept.any) continue;
          // A `COPY --from` line carries more than the protected files: it is reported, not removed.
          if (copy.from !== undefined || !spec.names(ctx, s) || s === '.' || s === '*') {
            const shipped = kept.files.filter((rel) => spec.protects(ctx, rel));
            if (shipped.length > 0 && (spec.matters?.(ctx, shipped) ?? true)) {
              yield { file, range: copy.instruction.range, message: spec.broadMessage(copy, src.value, shipped) };
            }
            continue;
          }
          yield {
            file, range: copy.instruction.range,
            message: spec.directMessage(copy, src.value),
            fix: removeInstructionFix(file, copy, src.value),
          };
          // One finding per instruction: its fix removes the whole line.
          break;
        }
      }
    },
  };
}

/**
 * A recipe written for the task root as its context (`COPY environment/app /app`, typical of prebuilt
 * `docker_image` tasks): its sources name task-root paths, so `COPY tests/ /tests` there is the tests.
 */
function recipeUsesTaskRoot(ctx: AuditContext, ctxDir: string): boolean {
  const df = ctx.dockerfile();
  if (!df || ctxDir === '.' || ctxDir === '') return false;
  return df.copies.some((c) => !c.from && c.sources.some((src) => norm(src.value).startsWith(`${ctxDir}/`)));
}

/** The tests folder relative to the build context (Harbor keeps it outside environment/). */
function testsInContext(ctx: AuditContext): string | undefined {
  const tests = norm(ctx.task.verifier.testsDir || 'tests');
  const ctxDir = norm(ctx.task.environment.contextDir || '.');
  if (ctxDir === '.' || ctxDir === '' || recipeUsesTaskRoot(ctx, ctxDir)) return tests;
  return tests.startsWith(`${ctxDir}/`) ? tests.slice(ctxDir.length + 1) : undefined;
}

/**
 * `src`, a subfolder or file of the tests folder, holds only task input kept there to avoid a
 * second copy (`COPY tests/pipeline/ /app/`, the project the agent works on): no test file, no
 * entry script, and nothing in it that the tests name. Copying it shows the agent no check.
 */
function taskInputUnderTests(ctx: AuditContext, tests: string, src: string): boolean {
  const ctxDir = norm(ctx.task.environment.contextDir || '.');
  const rel = ctxDir === '.' || ctxDir === '' || recipeUsesTaskRoot(ctx, ctxDir) ? src : `${ctxDir}/${src}`;
  const files = ctx.task.files.filter((f) => f === rel || f.startsWith(`${rel}/`));
  if (files.length === 0) return false;
  const testCode = [...ctx.verifierScripts, ...ctx.testPython].filter((f) => !files.includes(f)).map((f) => ctx.text(f) ?? '').join('\n');
  void tests;
  return files.every((f) => !checksSomething(ctx, f, testCode));
}

/**
 * Whether the instruction names every source of this copy where it lands: the destination path
 * (`/app/p.npy`, a folder `/app/rs`), or a file's bare name (`interp.py`, not `/app/data/east.csv`,
 * which is another file of that name).
 */
function handedOver(ctx: AuditContext, copy: DockerCopy): boolean {
  const text = ctx.instruction();
  const raw = copy.dest?.value ?? '';
  if (raw === '' || copy.sources.length === 0) return false;
  const workdir = imageLayout(ctx).workdir ?? '/';
  const destAbs = path.posix.resolve(workdir, raw);
  const intoDir = raw.endsWith('/') || raw === '.' || copy.sources.length > 1 || !/\.\w{1,6}$/.test(destAbs);
  return copy.sources.every((src) => {
    const name = norm(src.value).split('/').pop() ?? '';
    const isFile = /\.\w{1,6}$/.test(name);
    const landed = isFile && intoDir ? `${destAbs.replace(/\/$/, '')}/${name}` : destAbs;
    if (landed.split('/').length > 2 && new RegExp(`${escapeRegExp(landed)}(?![\\w-])`).test(text)) return true;
    return isFile && name.length >= 5 && new RegExp(`(^|[\\s\`'"(])${escapeRegExp(name)}(?![\\w-])`).test(text);
  });
}

/** A test runner run as a command (`npm test`, `dotnet test`, `bundle exec rspec`, `pytest tests/`), after an optional `$ `, `cd x &&` or `docker compose exec svc`. */
const RUNNER_LINE = /^\s*(?:[$>]\s*)?(?:cd\s+\S+\s*&&\s*)?(?:docker[ -]compose\s+(?:exec|run)\s+(?:-\S+\s+)*\S+\s+)?(?:python3?\s+-m\s+)?(pytest|npm\s+(?:run\s+)?test|yarn\s+test|npx\s+jest|jest|go\s+test|cargo\s+test|dotnet\s+test|mvn\s+(?:-\S+\s+)*test|\.?\/?gradlew?\s+test|(?:bundle\s+exec\s+)?rspec|make\s+test|ctest|mix\s+test|phpunit|vendor\/bin\/phpunit)\b/m;
const RUNNER_INLINE = /\ball (?:the )?tests pass when (?:you )?run(?:ning)?\b|\b(?:make|get|ensure)\s+(?:all\s+|every\s+)?(?:of\s+)?(?:the\s+)?(?:failing\s+|existing\s+)?tests?\s+(?:to\s+)?pass\b/i;

/**
 * The instruction has the agent run the project's own test suite (a runner command on a line of its
 * own, "make the failing tests pass"): the tests in the image are the suite the agent works against,
 * handed over on purpose (SWE-style tasks); whether the verifier trusts that copy is another rule's concern.
 */
function agentRunsTheSuite(ctx: AuditContext): boolean {
  const text = ctx.instruction() ?? '';
  // Commands only: lines of fenced code blocks and inline code spans, not prose that names a runner.
  const code = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').join('\n')
    + '\n' + [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '').join('\n');
  // A run of the verifier's own /tests (`pytest /tests/test_outputs.py`) says how grading works, not that the agent has a suite.
  return code.split('\n').some((l) => RUNNER_LINE.test(l) && !/(^|\s)\/tests\b/.test(l)) || RUNNER_INLINE.test(text);
}

/** A file of the tests folder that is part of the checks: a test or entry script, or one the test code names. */
function checksSomething(ctx: AuditContext, f: string, testCode: string): boolean {
  const name = f.slice(f.lastIndexOf('/') + 1);
  return /^(test_.*|.*_test|conftest)\.py$|\.sh$/.test(name) || ctx.verifierScripts.includes(f) || ctx.testPython.includes(f) || testCode.includes(name);
}

// A warning, not an error: on the blind readings its errors were true 15 in 21 (three sets) — below
// 0.75 on at least 6 judged findings from at least 3 sets, the eighth's false ones a cause found then.
const testsCopiedByDockerfile = copiedIntoImageRule({
  id: 'tests-copied-into-image', severity: 'warning',
  title: 'The Dockerfile copies the tests into the image the agent works in',
  names(ctx, s) {
    const tests = testsInContext(ctx);
    // The entry script alone (run-tests.sh) tells how tests run, not what they check.
    if (/(^|\/)test_outputs\.py$/.test(s)) return true;
    if (tests === undefined || !(s === tests || s.startsWith(`${tests}/`))) return false;
    return s === tests || !taskInputUnderTests(ctx, tests, s);
  },
  protects: (ctx, rel) => isVerifierFile(ctx, rel),
  // Copied where the instruction sends the agent (`COPY tests/p.npy /app/p.npy` and "`/app/p.npy`",
  // `COPY tests/rs/ /app/rs/` and "`/app/rs`", `COPY tests/interp.py /app` and "interp.py"): input or a
  // reference the agent is told to use, not a leaked check.
  given: (ctx, copy) => handedOver(ctx, copy) || agentRunsTheSuite(ctx),
  // The entry script alone tells how tests run, not what they check: only the tests themselves count.
  matters: (ctx, shipped) => {
    const testCode = [...ctx.verifierScripts, ...ctx.testPython].map((f) => ctx.text(f) ?? '').join('\n');
    const ctxDir = norm(ctx.task.environment.contextDir || '.');
    const task = (rel: string) => (ctxDir === '.' || ctxDir === '' || recipeUsesTaskRoot(ctx, ctxDir) ? rel : `${ctxDir}/${rel}`);
    // Task input kept under tests/ (a project the agent works on, that no test names) shows no check.
    return shipped.some((rel) => rel !== inContext(ctx, ctx.task.verifier.entry) && checksSomething(ctx, task(rel), testCode.split(task(rel)).join('')));
  },
  broadMessage: (copy, src, shipped) => `\`${copy.instruction.keyword} ${src}\` also puts the verifier's files (${listed(shipped)}) in the agent's image: the agent can read what is checked. Copy only what the task needs, or list the tests in .dockerignore.`,
  directMessage: (copy, src) => `\`${copy.instruction.keyword} ${src}\` puts the tests in the agent's image: the agent can read what is checked (and the harness copies the tests in at verification time anyway).`,
});

/**
 * Also the compose file mounting the tests folder into the agent's container (`./tests:/app/tests:ro`,
 * TB1 tasks written by hand): read-only or not, the agent reads every check during its run.
 */
export const testsCopiedIntoImage: StaticRule = {
  ...testsCopiedByDockerfile,
  *check(ctx) {
    yield* testsCopiedByDockerfile.check(ctx);
    const compose = ctx.task.environment.composeFile;
    if (!compose) return;
    const tests = norm(ctx.task.verifier.testsDir || 'tests');
    const composeDir = compose.includes('/') ? compose.slice(0, compose.lastIndexOf('/')) : '.';
    for (const m of ctx.composeMounts()) {
      const src = norm(path.posix.normalize(path.posix.join(composeDir, m.source)));
      if (src !== tests || m.source.startsWith('/') || m.source.startsWith('$')) continue;
      yield { file: compose, range: ctx.range(compose, m.offset, m.offset + m.source.length), message: `The compose file mounts ${m.source} at ${m.target} in the agent's container${m.readOnly ? ' (read-only, but readable)' : ''}: the agent can read every check during its run. Let the harness copy the tests in at verification time instead.` };
    }
  },
};

/**
 * A solution script that only prints (an adapter's stub, `echo "Oracle solution script"`) gives the
 * agent nothing to run: shipping it leaks no answer. Any redirect, pipe or other command counts as work.
 */
export function placeholderSolution(ctx: AuditContext): boolean {
  const t = ctx.text(ctx.solutionScript);
  if (t === undefined) return false;
  const lines = t.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#') && !/^set\s+-[euxo\s]+(pipefail)?$/.test(l));
  return lines.every((l) => /^(true|:|exit(\s+\d+)?|(echo|printf)(\s+("[^"`$]*"|'[^']*'|[^\s"'`$<>|;&]+))*)$/.test(l));
}

export const solutionCopiedIntoImage = copiedIntoImageRule({
  id: 'solution-copied-into-image',
  title: 'The Dockerfile copies the reference solution into the image',
  // `oracle` alone is not one: tasks ship reference binaries named so for the agent to compare against.
  names: (ctx, s) => /(^|\/)(solution|solution\.sh|solution\.yaml|solve\.sh)(\/|$)/.test(s) && !placeholderSolution(ctx),
  protects: (ctx, rel) => isSolutionFile(ctx, rel) && !placeholderSolution(ctx),
  broadMessage: (copy, src, shipped) => `\`${copy.instruction.keyword} ${src}\` also ships the reference solution (${listed(shipped)}) to the agent: it can run it instead of doing the task. Copy only what the task needs, or list the solution in .dockerignore.`,
  directMessage: (copy, src) => `\`${copy.instruction.keyword} ${src}\` ships the reference solution to the agent: it can run it instead of doing the task.`,
});

function globToRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*\*/g, '\uE000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\uE000/g, '.*');
  return new RegExp(`^${re}(/.*)?$`);
}

/** A COPY source as Docker resolves it in the context: no quotes, `./`, leading `/` or trailing `/.`. */
function contextPath(v: string): string {
  return v.replace(/^\/+/, '').replace(/^(\.\/)+/, '').replace(/(\/\.?)+$/, '').replace(/^\.$/, '');
}

/** Every folder holding at least one of `files`. */
function foldersOf(files: readonly string[]): Set<string> {
  const dirs = new Set<string>();
  for (const f of files) { const parts = f.split('/'); for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/')); }
  return dirs;
}

/** A compose `build.context` other than the Dockerfile's folder: the context is not the one the loader lists. */
function composeContextElsewhere(ctx: AuditContext): boolean {
  const t = ctx.text(ctx.task.environment.composeFile);
  return !!t && /^\s*context:\s*(?!['"]?\.\/?['"]?\s*$)\S/m.test(t);
}

export const copySourceMissing: StaticRule = {
  id: 'copy-source-missing', class: 'invalidity', severity: 'error',
  title: 'A COPY/ADD source does not exist in the build context',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    // Not checked when the listing stopped at its bound or the build context is elsewhere:
    // a file the loader did not list is not a missing file.
    if (ctx.task.files.length >= FILE_LIMITS.maxFiles || composeContextElsewhere(ctx)) return;
    const file = dfFile(ctx);
    const files = [...ctx.contextFiles];
    const dirs = foldersOf(files);
    // With a prebuilt \`docker_image\` the harness never builds this Dockerfile: it is the image's
    // recipe, often built from the task folder itself, so a source found there is not missing.
    const prebuilt = ctx.task.environment.dockerImage !== undefined;
    const taskDirs = prebuilt ? foldersOf(ctx.task.files) : new Set<string>();
    for (const copy of df.copies) {
      if (copy.from !== undefined || !copy.dest) continue;
      for (const src of copy.sources) {
        const v = src.value;
        if (/^(https?:|git@)/.test(v) || v.includes('$')) continue;
        const s = contextPath(v);
        if (s === '') continue;
        const glob = /[*?[]/.test(s) ? globToRegExp(s) : undefined;
        const matches = glob ? files.filter((f) => glob.test(f)) : files.filter((f) => f === s || f.startsWith(`${s}/`));
        const exists = matches.length > 0 || (!glob && dirs.has(s));
        if (exists) {
          // Sent to the builder unless .dockerignore drops every file the source names.
          if (matches.length === 0 || matches.some((f) => inBuildContext(ctx, f))) continue;
          yield { file, range: src.range, message: `\`${v}\` is excluded by .dockerignore: Docker does not send it to the builder and the image does not build.` };
          continue;
        }
        if (prebuilt && (glob ? ctx.task.files.some((f) => glob.test(f)) : ctx.fileSet.has(s) || taskDirs.has(s))) continue;
        yield { file, range: src.range, message: `\`${v}\` is not in the build context (${ctx.task.environment.contextDir || '.'}/): the image does not build.` };
      }
    }
  },
};

export const heredocWithoutSyntax: StaticRule = {
  // info: BuildKit is Docker's default builder (Engine 23+) and Harbor builds through compose, so
  // a heredoc without the directive builds everywhere current; only the legacy builder fails.
  id: 'heredoc-without-syntax', class: 'invalidity', severity: 'info',
  title: 'A heredoc in RUN/COPY needs BuildKit\'s Dockerfile syntax 1.4+',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df || (df.syntaxDirective && !/dockerfile:1\.[0-3]\b/.test(df.syntaxDirective))) return;
    const file = dfFile(ctx);
    for (const ins of df.instructions) {
      if (ins.keyword !== 'RUN' && ins.keyword !== 'COPY') continue;
      const first = ins.argsText.split('\n', 1)[0] ?? '';
      if (!/<<-?\s*['"]?[A-Za-z_]\w*['"]?/.test(first) || !ins.argsText.includes('\n')) continue;
      yield { file, range: ins.range, message: 'This heredoc needs BuildKit (Docker\'s default builder since Engine 23): the legacy builder reads its body as instructions and the build fails. Add `# syntax=docker/dockerfile:1.4` as the first line, or write the file with printf/COPY.' };
    }
  },
};
