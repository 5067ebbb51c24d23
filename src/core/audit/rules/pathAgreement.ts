import path from 'node:path';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { projectFolderDisagrees } from './projectFolder';
import { escapeRegExp } from '../../parse/regex';
import { testStrings, writtenByTest } from './pythonTests';

/**
 * The instruction says where to write a file and the tests read a file of the same name somewhere
 * else (`/home/agent/solution/registers.txt` asked, `/workspace/solution/registers.txt` read): an
 * agent that follows the instruction scores 0. Decided by name and folder only when nothing else
 * makes the tested path: not the image, not the solution, not the test itself, no symlink.
 */
export const testPathDisagrees: StaticRule = {
  id: 'test-path-disagrees', class: 'invalidity', severity: 'warning',
  title: 'The tests read a file at another path than the one the instruction names',
  *check(ctx) {
    yield* namedPathDisagrees(ctx);
    yield* projectFolderDisagrees(ctx);
  },
};

function* namedPathDisagrees(ctx: AuditContext): Generator<Report> {
  const instr = [ctx.instruction(), ...(ctx.task.steps ?? []).map((s) => s.instruction ?? '')].join('\n');
  if (!instr) return;
  const named = new Map<string, string[]>();
  // Any absolute file path (not only the usual roots: `/solution/out.json` counts).
  const re = /(?<![\w$./:~}-])(\/[\w.@+-]+(?:\/[\w.@+-]+)*\.[A-Za-z0-9]{1,6})(?![\w/])/g;
  for (let m = re.exec(instr); m; m = re.exec(instr)) {
    const p = m[1] ?? '';
    const list = named.get(path.posix.basename(p)) ?? [];
    if (!list.includes(p)) named.set(path.posix.basename(p), [...list, p]);
  }
  if (named.size === 0) return;
  // A separate verifier runs in its own image, built from the tests folder's Dockerfile: a path that
  // image makes is the verifier's own (its copy of a tool the agent has elsewhere), not the agent's.
  const testsDir = ctx.testsDir;
  const verifierImage = ctx.task.verifier.separate ? ctx.text(`${testsDir}/Dockerfile`) ?? '' : '';
  const df = `${ctx.text(ctx.task.environment.dockerfile) ?? ''}\n${verifierImage}`;
  const sol = ctx.text(ctx.solutionScript) ?? (ctx.task.solution.commands ?? []).map((c) => c.command).join('\n');
  const seen = new Set<string>();
  const strings = testStrings(ctx);
  const values = new Set(strings.map((s) => s.value));
  for (const s of strings) {
    const v = s.value;
    if (!v.startsWith('/') || /\s/.test(v) || seen.has(v) || /^\/(tests|logs|tmp)\//.test(v)) continue;
    const base = path.posix.basename(v);
    const asked = named.get(base);
    // The tests also try the instruction's path (candidates in a list): they agree after all.
    if (!asked || asked.includes(v) || instr.includes(v) || asked.some((a) => values.has(a))) continue;
    seen.add(v);
    const dir = path.posix.dirname(v);
    // Another way to the same file: the image links or makes the tested folder, the solution
    // writes there, or the test writes it itself.
    const links = df.split('\n').filter((l) => /\bln\s+-\w*s/.test(l));
    if (df.includes(dir) || sol.includes(dir) || writtenByTest(s.tree, s.node)) continue;
    // The instruction names the tested folder and, in the same sentence, the file by its bare name
    // ("under `/app/sample_prod/` with `prices.csv` and `positions.csv`"): it states the tested path.
    if (namesFolderAndFile(instr, dir, base)) continue;
    if (links.some((l) => l.includes(dir) || asked.some((a) => l.includes(path.posix.dirname(a))))) continue;
    yield { file: s.file, range: ctx.range(s.file, s.node.start, s.node.end), message: `The tests read ${v}, but the instruction names ${asked[0]}: an agent that follows the instruction reads or writes the other path, and the test fails. Make the two agree.` };
  }
}

/** Whether one sentence of `instr` names folder `dir` as a path and `base` as a bare file name (not the tail of another path). */
function namesFolderAndFile(instr: string, dir: string, base: string): boolean {
  const folder = new RegExp(`(?<![\\w./-])${escapeRegExp(dir)}(?:/|(?![\\w.-]))`);
  const bare = new RegExp(`(?<![\\w./-])${escapeRegExp(base)}(?![\\w-])`);
  return instr.split(/(?<=[.!?:;])\s+|\n+/).some((sentence) => folder.test(sentence) && bare.test(sentence));
}
