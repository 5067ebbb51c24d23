/**
 * Dependencies a verifier's Python script declares inline (PEP 723: a `# /// script` block of TOML in
 * comments) and `uv run` (or `pipx run`) resolves at grading time. A range (`tomli-w>=1.2.0`) or a bare
 * name takes whatever the index holds that day: the grading toolchain moves with every release.
 */
import { parse as parseToml } from 'smol-toml';
import { effectiveWords, type ShellCommand } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { Report } from '../rule';
import { isPinnedRequirement } from './commands';

/** The block: `# /// script` … `# ///`, each line a comment (PEP 723's reference regular expression). */
const BLOCK = /^# \/\/\/ script[ \t]*$\s(?<content>(?:^#(?:| .*)$\s)+)^# \/\/\/[ \t]*$/m;

/** The script a command hands to a runner that reads the block: `uv run [opts] x.py`, `pipx run x.py`. */
function inlineRunnerScript(cmd: ShellCommand): string | undefined {
  const w = effectiveWords(cmd);
  const runner = (w[0] === 'uv' && w[1] === 'run') || (w[0] === 'pipx' && w[1] === 'run');
  if (!runner) return undefined;
  return w.slice(2).find((x) => /\.py$/.test(x));
}

/** The test file a script word names, by its path under the tests mount or, behind a variable, its name. */
function testFileOf(ctx: AuditContext, word: string): string | undefined {
  const base = word.slice(word.lastIndexOf('/') + 1);
  const byRel = ctx.mountedTests.find((m) => word.endsWith(`/${m.rel}`) || word === m.rel);
  return byRel?.file ?? ctx.mountedTests.find((m) => m.rel.endsWith(`/${base}`) || m.rel === base)?.file;
}

/** Unpinned dependencies of the inline block of the script `cmd` runs, at their lines in that script. */
export function* unpinnedInlineDeps(ctx: AuditContext, cmd: ShellCommand, seen: Set<string>): Generator<Report> {
  const word = inlineRunnerScript(cmd);
  const file = word === undefined ? undefined : testFileOf(ctx, word);
  // `uv lock --script x.py` writes x.py.lock beside it, which `uv run` then follows.
  if (!file || seen.has(file) || ctx.fileSet.has(`${file}.lock`)) return;
  seen.add(file);
  const text = ctx.text(file);
  const m = text === undefined ? null : BLOCK.exec(text);
  if (!text || !m?.groups) return;
  const toml = (m.groups['content'] ?? '').split('\n').map((l) => l.replace(/^# ?/, '')).join('\n');
  let deps: unknown;
  try { deps = (parseToml(toml) as { dependencies?: unknown }).dependencies; } catch { return; }
  if (!Array.isArray(deps)) return;
  const loose = deps.filter((d): d is string => typeof d === 'string' && !isPinnedRequirement(d.replace(/\s+/g, '')));
  const first = loose[0];
  if (first === undefined) return;
  const at = (d: string): number => { const i = text.indexOf(`"${d}"`, m.index); return i < 0 ? text.indexOf(d, m.index) : i + 1; };
  const range = (d: string): Report['range'] => { const i = Math.max(at(d), m.index); return ctx.range(file, i, i + d.length); };
  const more = loose.length > 1 ? ` (${loose.length - 1} more: ${loose.slice(1, 4).join(', ')}${loose.length > 4 ? ', …' : ''})` : '';
  yield {
    file, range: range(first),
    message: `\`${first}\` is a dependency of this script's inline metadata, which \`${effectiveWords(cmd).slice(0, 2).join(' ')}\` resolves at test time without a lock: the grading toolchain changes whenever a new release appears${more}. Pin it (\`==<version>\`), or lock the script (\`uv lock --script\`).`,
    ...(loose.length > 1 ? { related: loose.slice(1).map((d) => ({ file, range: range(d), message: `\`${d}\` is not pinned either` })) } : {}),
  };
}
