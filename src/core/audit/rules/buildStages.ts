// Multi-stage builds: what a stage other than the last leaves behind never reaches the agent's image.
import path from 'node:path';
import type { DockerCopy, ParsedDockerfile } from '../../parse/dockerfile';

function norm(p: string): string {
  return p.replace(/^\.\//, '').replace(/\/+$/, '');
}

/**
 * `copy` writes `src` into a stage other than the last, and no later `COPY --from=<that stage>`
 * carries the written path (or a folder holding it, or a file inside it) into the final image.
 */
export function leftInBuildStage(df: ParsedDockerfile, copy: DockerCopy, src: string): boolean {
  const line = copy.instruction.range.start.line;
  const stageIdx = df.froms.reduce((k, f, i) => (f.instruction.range.start.line <= line ? i : k), -1);
  if (stageIdx < 0 || stageIdx === df.froms.length - 1 || !copy.dest) return false;
  const from = df.froms[stageIdx];
  let wd = '/';
  for (const ins of df.instructions) {
    const l = ins.range.start.line;
    if (from && l < from.instruction.range.start.line) continue;
    if (l >= line) break;
    if (ins.keyword === 'WORKDIR' && ins.args[0]) wd = path.posix.resolve(wd, ins.args[0].value);
  }
  const dest = copy.dest.value;
  const written = /\/$|^\.$/.test(dest) || copy.sources.length > 1 ? path.posix.resolve(wd, dest, path.posix.basename(norm(src))) : path.posix.resolve(wd, dest);
  const names = new Set([String(stageIdx), from?.stage?.toLowerCase()].filter((x): x is string => !!x));
  return !df.copies.some((c) => c.instruction.range.start.line > line && c.from !== undefined && names.has(c.from.toLowerCase())
    && c.sources.some((x) => { const carried = path.posix.resolve('/', x.value).replace(/\/+$/, '') || '/'; return carried === written || written.startsWith(`${carried}/`) || carried.startsWith(`${written}/`) || carried === '/'; }));
}
