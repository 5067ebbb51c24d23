/**
 * `npm install` with no package named, run in the tests' own folder: npm resolves the ranges of the
 * tests' package.json (`^1.49.0`, `~3.2`, `latest`) at grading time. Without a lockfile beside it the
 * grading toolchain (Playwright, vitest, jest) moves with every release.
 */
import { effectiveWords, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import { TESTS_MOUNT, workingDirAt } from './workingDir';

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'];
/** A version npm cannot move: exact semver, or a git reference to a commit, a tarball or a local path. */
const FIXED = /^(=?v?\d+\.\d+\.\d+(-[\w.]+)?(\+[\w.]+)?|(git\+|git:|github:).*#[0-9a-f]{7,40}|https?:\/\/\S+\.(tgz|tar\.gz)|file:\S+|link:\S+|workspace:\S+)$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The floating dependencies `cmd` installs from the tests' package.json, or undefined when it installs none. */
export function floatingManifestDeps(ctx: AuditContext, script: ShellScript, cmd: ShellCommand): { manifest: string; deps: string[] } | undefined {
  const w = effectiveWords(cmd);
  if (w[0] !== 'npm' || (w[1] !== 'install' && w[1] !== 'i') || w.slice(2).some((x) => !x.startsWith('-'))) return undefined;
  const cwd = workingDirAt(ctx, script, cmd);
  if (cwd === undefined || !(cwd === TESTS_MOUNT || cwd.startsWith(`${TESTS_MOUNT}/`))) return undefined;
  const testsDir = ctx.testsDir;
  const dir = `${testsDir}${cwd.slice(TESTS_MOUNT.length)}`;
  if (LOCKFILES.some((l) => ctx.fileSet.has(`${dir}/${l}`))) return undefined;
  const manifest = `${dir}/package.json`;
  let json: unknown;
  try { json = JSON.parse(ctx.text(manifest) ?? ''); } catch { return undefined; }
  if (!isRecord(json)) return undefined;
  const deps: string[] = [];
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const table = json[field];
    if (!isRecord(table)) continue;
    for (const [name, range] of Object.entries(table)) if (typeof range !== 'string' || !FIXED.test(range.trim())) deps.push(`${name}@${String(range)}`);
  }
  return deps.length > 0 ? { manifest, deps } : undefined;
}
