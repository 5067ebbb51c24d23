/**
 * The verifier runs one of the task's own test files from a path where the harness never puts it. Harbor
 * uploads tests/ to /tests and runs `bash /tests/test.sh` from the image's working folder (Terminal-Bench 1
 * copies tests/ to $TEST_DIR, /tests, and runs run-tests.sh from there too): a relative
 * `pytest tests/test_outputs.py` resolves there (`/app/tests/…`), as does an absolute `/app/tests/…`.
 * When nothing (the image, the script) puts the file at that path, every run fails — the reference
 * solution's too — and if the agent makes the path, its own file is what gets run.
 */
import path from 'node:path/posix';
import { effectiveWords, type ShellCommand } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { isPytestCommand } from './commands';
import { imageFills } from './imageLayout';
import { resolveWord, workingDirAt } from './workingDir';

/** The test files a command runs: pytest's file operands, or the script `python3 X.py` runs. */
function testFilesRun(cmd: ShellCommand): string[] {
  const w = effectiveWords(cmd);
  if (isPytestCommand(cmd)) return w.slice(1).filter((x) => /\.py(::\S+)?$/.test(x) && !x.startsWith('-')).map((x) => x.replace(/::\S+$/, ''));
  if (/^python(3(\.\d+)?)?$/.test(w[0] ?? '')) {
    const target = w.slice(1).find((x) => !x.startsWith('-'));
    if (target && /\.py$/.test(target) && !w.some((x) => x === '-c' || x === '-m')) return [target];
  }
  return [];
}

export const testPathUnmounted: StaticRule = {
  id: 'test-path-unmounted', class: 'invalidity', severity: 'warning',
  title: 'The verifier runs a test file from a path where the harness never puts it',
  *check(ctx: AuditContext): Generator<Report> {
    if (ctx.task.verifier.separate) return;
    const tb1 = ctx.task.format === 'tb1';
    const entry = ctx.task.verifier.entry;
    const script = ctx.shell(entry);
    if (!script) return;
    const mounted = new Map(ctx.mountedTests.map((m) => [m.rel, m.file]));
    for (const cmd of script.commands) {
      for (const file of testFilesRun(cmd)) {
        if (file.includes('*')) continue;
        const cwd = file.startsWith('/') ? '/' : workingDirAt(ctx, script, cmd);
        const abs = cwd === undefined ? undefined : resolveWord(file, cwd);
        if (abs === undefined) continue;
        if (abs === '/tests' || abs.startsWith('/tests/')) continue;
        // Only a file the task's tests/ holds, under the same name below a `tests` folder: the author meant /tests.
        const m = /(?:^|\/)tests\/(.+)$/.exec(abs);
        const rel = m?.[1];
        if (rel === undefined || !mounted.has(rel)) continue;
        // The image or the script may put it there (COPY tests/ /app/tests/, cp -r /tests /app/) …
        if (imageFills(ctx, abs) || script.commands.some((c) => c.start < cmd.start && /^(cp|mv|ln|rsync|install)$/.test(c.name))) continue;
        // … or the compose file mounts a folder there (`./tests:/app/tests:ro`).
        if (ctx.composeMounts().some((mt) => abs === mt.target || abs.startsWith(`${mt.target}/`))) continue;
        yield {
          file: entry, range: ctx.range(entry, cmd.start, cmd.end),
          message: `This runs ${abs}, but ${tb1 ? 'Terminal-Bench 1 copies' : 'Harbor puts'} the task's tests/${rel} ${tb1 ? 'to $TEST_DIR,' : 'at'} /tests/${rel}, and nothing puts a copy at ${abs}: every run fails, the reference solution's included (and an agent that makes ${path.dirname(abs)} decides what runs). Run ${tb1 ? `$TEST_DIR/${rel}` : `/tests/${rel}`}.`,
        };
      }
    }
  },
};
