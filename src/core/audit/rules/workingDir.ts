import path from 'node:path';
import type { ShellCommand, ShellScript, ShellWord } from '../../parse/shell';
import { findAncestor } from '../../parse/syntax';
import type { AuditContext } from '../context';

/** Where the harness copies the tests before running the verifier (TB1 exports it as `$TEST_DIR`). */
export const TESTS_MOUNT = '/tests';

/**
 * A shell word as a path, with `$TEST_DIR` expanded; undefined when any other expansion makes it
 * unknowable from the file alone.
 */
export function resolveWord(value: string, cwd: string): string | undefined {
  const v = value.replace(/\$\{?TEST_DIR\}?/g, TESTS_MOUNT);
  if (/[$`]/.test(v)) return undefined;
  if (v === '~' || v.startsWith('~/')) return path.posix.join('/root', v.slice(1));
  return path.posix.resolve(cwd, v);
}

/** A path word as an absolute path: as written when absolute, else resolved against `cwd` (undefined when unknown). */
export function pathOfWord(value: string, cwd: string | undefined): string | undefined {
  return value.startsWith('/') ? value : cwd === undefined ? undefined : resolveWord(value, cwd);
}

/** The folder the harness starts the verifier in: the image's last WORKDIR, else the configured one, else `/`. */
function startDir(ctx: AuditContext): string {
  const df = ctx.dockerfile();
  const wd = df ? [...df.instructions].reverse().find((i) => i.keyword === 'WORKDIR')?.args[0]?.value : undefined;
  const dir = wd ?? ctx.task.environment.workdir;
  if (dir === undefined) return '/';
  return dir.includes('$') ? '' : path.posix.resolve('/', dir);
}

/**
 * The working directory `cmd` runs in, following the top-level `cd`s before it; undefined when a
 * `cd` is conditional, in a subshell or function, or goes somewhere not knowable statically.
 * Precision over reach: only a certain directory is reported.
 */
export function workingDirAt(ctx: AuditContext, script: ShellScript, cmd: ShellCommand): string | undefined {
  let cwd = startDir(ctx);
  if (cwd === '') return undefined;
  for (const c of script.commands) {
    if (c.start >= cmd.start) break;
    if (c.name !== 'cd' && c.name !== 'pushd' && c.name !== 'popd') continue;
    // `$(cd "$(dirname "$0")" && pwd)` changes the folder of its own subshell only.
    if (c.inSubstitution && !cmd.inSubstitution) continue;
    if (c.name === 'popd' || c.conditional || c.inFunction || c.inSubstitution || c.inLoop) return undefined;
    if (findAncestor(c.node, (n) => n.type === 'subshell')) return undefined;
    const arg: ShellWord | undefined = c.args.find((a) => !a.value.startsWith('-') || a.value === '-');
    if (!arg) { cwd = '/root'; continue; }
    if (arg.value === '-') return undefined;
    const next = resolveWord(ownFolderWord(ctx, script, arg.value), cwd);
    if (next === undefined) return undefined;
    cwd = next;
  }
  return cwd;
}

/** `$(dirname "$0")`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`: the running script's own folder. */
const DIRNAME = '\\$\\(dirname\\s+"?(?:\\$0|\\$\\{?BASH_SOURCE(?:\\[0\\])?\\}?)"?\\)';
// `cd … >/dev/null 2>&1 && pwd -P` is the same folder.
const OWN_FOLDER = new RegExp(`^(?:${DIRNAME}|\\$\\(cd\\s+"?${DIRNAME}"?(?:\\s+[\\d&]*>+&?\\s*\\S+)*\\s*&&\\s*pwd(?:\\s+-P)?\\))`);

/** Whether a value is the script-folder idiom itself (`$(dirname "$0")`, `"$(cd "$(dirname "$0")" && pwd)"`). */
export function isOwnFolderIdiom(value: string): boolean {
  const v = value.trim().replace(/^"(.*)"$/, '$1');
  const m = OWN_FOLDER.exec(v);
  return m !== null && m[0].length === v.length;
}

/**
 * A word that starts with the script-folder idiom, with the folder the harness runs the script from
 * in its place: a verifier script under the tests folder runs from /tests (Harbor uploads tests/ there
 * and runs `bash /tests/test.sh`). Other scripts, and other words, are returned as they are.
 */
function ownFolderWord(ctx: AuditContext, script: ShellScript, word: string): string {
  const m = OWN_FOLDER.exec(word);
  if (!m || ctx.task.format !== 'harbor') return word;
  const mounted = ctx.mountedTests.find((t) => ctx.shell(t.file) === script);
  if (!mounted) return word;
  return path.posix.join(TESTS_MOUNT, path.posix.dirname(mounted.rel)) + word.slice(m[0].length);
}
