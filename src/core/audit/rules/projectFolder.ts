/**
 * The verifier or the oracle `cd`s into an absolute project folder the image never makes, while the
 * image puts the project somewhere else (cloned into /testbed; the scripts use /lodash): the cd fails
 * and the oracle cannot run, the verifier cannot grade. Decided only over generic base images, whose
 * filesystem holds no project folder of its own.
 */
import path from 'node:path';
import type { ParsedDockerfile } from '../../parse/dockerfile';
import type { ShellCommand, ShellScript } from '../../parse/shell';
import { effectiveWords, optionsAt } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { Report } from '../rule';
import { downloadOf } from './commands';

/** Generic images: their filesystem has system folders only, so a project folder comes from the task. */
const GENERIC_BASE = /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?(python|node|debian|ubuntu|golang|rust|alpine|ruby|openjdk|eclipse-temurin|amazoncorretto|buildpack-deps|maven|gradle|php|perl|fedora|rockylinux|almalinux|gcc|busybox)$/i;

/** Folders the harness, Docker or the system own: never a project folder the task forgot. */
const SYSTEM = /^\/(tests|logs|solution|oracle|tmp|root|home|usr|etc|var|opt|proc|sys|dev|mnt|bin|sbin|lib|run|srv|media|boot|installed-agent|agent-logs)(\/|$)|^\/$/;

/**
 * Absolute folders the image makes: WORKDIRs, COPY/ADD destinations, every absolute path a RUN names,
 * and `git clone`/`git init` destinations resolved against the RUN's folder.
 */
function madeFolders(df: ParsedDockerfile): { made: string[]; projects: string[] } {
  const made: string[] = [];
  const projects: string[] = [];
  let wd = '/';
  const abs = (p: string, from: string): string => path.posix.resolve(from, p).replace(/\/+$/, '') || '/';
  for (const ins of df.instructions) {
    if (ins.keyword === 'FROM') wd = '/';
    if (ins.keyword === 'WORKDIR' && ins.args[0]) { wd = abs(ins.args[0].value, wd); made.push(wd); if (wd !== '/') projects.push(wd); }
    if ((ins.keyword === 'COPY' || ins.keyword === 'ADD') && ins.args.length > 1) made.push(abs(ins.args[ins.args.length - 1]?.value ?? '.', wd));
    if (ins.keyword === 'RUN') for (const m of ins.argsText.matchAll(/(?<![\w$.-])\/[\w.@+-]+(?:\/[\w.@+-]+)*/g)) made.push(m[0].replace(/\/+$/, ''));
  }
  for (const run of df.runs) {
    const start = df.lines.positionAt(run.instruction.argsOffset).line;
    // The folder this RUN starts in: the last WORKDIR above it.
    let cwd = '/';
    for (const ins of df.instructions) if (ins.keyword === 'WORKDIR' && ins.range.start.line < start && ins.args[0]) cwd = abs(ins.args[0].value, cwd);
    for (const cmd of run.shell?.commands ?? []) {
      const w = effectiveWords(cmd);
      if (w[0] === 'cd' && w[1] && !w[1].includes('$')) { cwd = abs(w[1], cwd); continue; }
      const dest = cloneDest(cmd, w);
      if (dest) { const d = abs(dest, cwd); made.push(d); projects.push(d); }
    }
  }
  return { made, projects };
}

/** Where `git clone URL [DIR]` or `git init DIR` puts the repository (relative to the command's folder). */
function cloneDest(cmd: ShellCommand, w: readonly string[]): string | undefined {
  if (w[0] !== 'git') return undefined;
  if (w[1] === 'init') return w.slice(2).find((x) => !x.startsWith('-'));
  const dl = downloadOf(cmd);
  if (dl?.kind !== 'clone') return undefined;
  const i = w.indexOf(dl.url);
  const after = w.slice(i + 1).find((x) => !x.startsWith('-'));
  return after ?? dl.url.replace(/\/+$/, '').replace(/\.git$/, '').split(/[/:]/).pop();
}

/** The first top-level `cd /abs` (or pushd) of a script, unguarded: a failing cd stops or misplaces the script. */
function absoluteCd(cmds: readonly ShellCommand[]): ShellCommand | undefined {
  return cmds.find((c) => (c.name === 'cd' || c.name === 'pushd') && !c.guarded && !c.orTrue && !c.inSubstitution
    && /^\/[\w.@+-]+(\/[\w.@+-]+)*\/?$/.test(c.args[0]?.value ?? ''));
}

/** Tools whose work depends on the folder they run in, whatever their operands. */
const CWD_TOOLS = /^(git|make|npm|npx|yarn|pnpm|cargo|go|mvn|gradle|gradlew|pytest|tox|bundle|rake|composer|dotnet|ls|find|tar|zip)$/;

/**
 * Whether a failing `cd` changes what the script does: under `set -e` it ends the script; otherwise
 * the script goes on where it was, which matters only to later commands that work relative to the
 * folder (a relative path operand, or a tool that acts on the folder it runs in).
 */
function cdFailureMatters(script: ShellScript, cd: ShellCommand): boolean {
  if (optionsAt(script, cd.start).errexit) return true;
  return script.commands.some((c) => c.start > cd.end && (CWD_TOOLS.test(c.name)
    || effectiveWords(c).slice(1).some((w) => !w.startsWith('/') && !w.startsWith('-') && !w.includes('$') && !/^\w+:\/\//.test(w) && (w.includes('/') || /\.\w{1,5}$/.test(w)))));
}

export function* projectFolderDisagrees(ctx: AuditContext): Generator<Report> {
  const df = ctx.dockerfile();
  const base = df?.froms.at(-1);
  if (!df || !base || df.froms.length !== 1 || !GENERIC_BASE.test(base.image.replace(/[:@].*$/, ''))) return;
  if (ctx.task.environment.dockerImage !== undefined) return;
  const { made, projects } = madeFolders(df);
  if (projects.length === 0) return;
  const compose = ctx.text(ctx.task.environment.composeFile) ?? '';
  const workdirs = [ctx.task.environment.workdir].filter((w): w is string => !!w).map((w) => w.replace(/\/+$/, ''));
  const files = [...ctx.verifierScripts, ...(ctx.solutionScript ? [ctx.solutionScript] : [])];
  const allText = files.map((f) => ctx.text(f) ?? '').join('\n');
  for (const file of files) {
    const script = ctx.shell(file);
    const cd = script ? absoluteCd(script.commands) : undefined;
    if (!script || !cd || !cdFailureMatters(script, cd)) continue;
    const dir = (cd.args[0]?.value ?? '').replace(/\/+$/, '');
    if (SYSTEM.test(dir) || workdirs.includes(dir) || compose.includes(dir)) continue;
    // Made by the image (the folder or something inside it), or by a task script (mkdir, clone, cp).
    if (made.some((m) => m === dir || m.startsWith(`${dir}/`))) continue;
    if (new RegExp(`\\b(mkdir|clone|cp|mv|ln|tar|unzip|init|rsync|install)\\b[^\\n]*${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`).test(allText)) continue;
    const elsewhere = projects.filter((p) => !p.startsWith(`${dir}/`) && !dir.startsWith(`${p}/`));
    if (elsewhere.length === 0) continue;
    const who = file === ctx.solutionScript ? 'The reference solution' : 'The verifier';
    yield {
      file, range: ctx.range(file, cd.start, cd.end),
      message: `${who} works in ${dir}, but the image never makes that folder: it puts the project in ${[...new Set(elsewhere)].join(', ')}. The cd fails and ${who === 'The verifier' ? 'no work is graded' : 'the oracle cannot run'}. Use the folder the image makes (and name the same one in the instruction).`,
    };
  }
}
