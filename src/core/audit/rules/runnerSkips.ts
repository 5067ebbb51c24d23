import type { AuditContext } from '../context';
import type { Report } from '../rule';

/**
 * Skip markers of other test runners (exercism-style suites ship every case but the first disabled),
 * with what in a verifier script re-enables them (a `sed` that strips the marker, `--include-ignored`).
 */
const RUNNER_SKIPS: readonly { readonly files: RegExp; readonly marker: RegExp; readonly undo: RegExp }[] = [
  { files: /\.(spec|test)\.[cm]?[jt]sx?$/, marker: /^\s*(xtest|xit|xdescribe|(?:test|it|describe)\.skip)\s*\(/m, undo: /(?<![A-Za-z])(xtest|xit)\b|\.skip\b/ },
  { files: /\.(java|kt)$/, marker: /^\s*@(Disabled|Ignore)\b/m, undo: /@Disabled|@Ignore/ },
  { files: /\.rs$/, marker: /^\s*#\[ignore\]/m, undo: /--include-ignored|--ignored|#\[ignore\]/ },
];

export function* otherRunnerSkips(ctx: AuditContext): Generator<Report> {
  const tests = ctx.testsDir;
  const scripts = ctx.verifierScripts.map((f) => ctx.text(f) ?? '').join('\n');
  for (const f of ctx.task.files) {
    if (!f.startsWith(`${tests}/`)) continue;
    const kind = RUNNER_SKIPS.find((k) => k.files.test(f));
    if (!kind || kind.undo.test(scripts)) continue;
    const t = ctx.text(f);
    const m = t === undefined ? null : kind.marker.exec(t);
    if (!t || !m) continue;
    const count = t.match(new RegExp(kind.marker.source, 'gm'))?.length ?? 1;
    const at = m.index + (m[0].length - m[0].trimStart().length);
    yield { file: f, range: ctx.range(f, at, m.index + m[0].length), message: `${count} test case${count === 1 ? ' is' : 's are'} disabled here (\`${m[0].trim().replace(/\s*\($/, '')}\`) and the verifier never re-enables them: a skipped case does not fail the run, so only the enabled ones decide the reward. Strip the markers at verification time or remove them.` };
  }
}
