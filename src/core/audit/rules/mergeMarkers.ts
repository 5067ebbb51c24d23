/** merge-conflict-markers: a task file still holds an unresolved merge conflict. */
import type { StaticRule } from '../rule';
import { RUN_RECORD } from './crossFile';
import { loaded } from './malformedData';

/** Files a program parses or runs: a conflict there is a syntax error, not untidy text. */
const PARSED = /\.(sh|bash|py|js|mjs|cjs|ts|go|rs|java|c|h|cc|cpp|hpp|rb|pl|r|jl|toml|ya?ml|json|ini|cfg|xml|mk)$|(^|\/)(Dockerfile[^/]*|Makefile|Containerfile)$/i;

/** The three marker lines, in order: `<<<<<<< ours`, `=======`, `>>>>>>> theirs`. */
function conflictAt(text: string): number | undefined {
  const open = /^<{7}(?: .*)?$/m.exec(text);
  if (!open) return undefined;
  const rest = text.slice(open.index);
  const mid = /^={7}$/m.exec(rest);
  if (!mid) return undefined;
  return /^>{7}(?: .*)?$/m.test(rest.slice(mid.index)) ? open.index : undefined;
}

export const mergeConflictMarkers: StaticRule = {
  id: 'merge-conflict-markers', class: 'invalidity', severity: 'error',
  title: 'A task file still holds an unresolved merge conflict (`<<<<<<<`, `=======`, `>>>>>>>`)',
  *check(ctx) {
    const files = new Set([ctx.task.instructionFile, ctx.task.configFile, ...ctx.textFiles()]);
    // A task about resolving a conflict ships one on purpose: the agent's material, not a defect.
    const material = /\bconflict/i.test(ctx.instruction() ?? '');
    const harness = new Set([ctx.task.instructionFile, ctx.task.configFile, ctx.task.environment.dockerfile, ctx.task.environment.composeFile, ctx.solutionScript]);
    const ownsIt = (f: string): boolean => harness.has(f) || f.startsWith(`${ctx.testsDir}/`) || f.startsWith('solution/');
    for (const f of files) {
      if (!f || RUN_RECORD.test(f) || (material && !ownsIt(f))) continue;
      const t = ctx.text(f);
      const at = t === undefined ? undefined : conflictAt(t);
      if (at === undefined || t === undefined) continue;
      const end = t.indexOf('\n', at);
      const range = ctx.range(f, at, end < 0 ? t.length : end);
      // Certain to break only what something of the task reads: a conflicted file nothing loads (a
      // compose file the format ignores) is a warning.
      const parsed = PARSED.test(f);
      if (parsed && (ownsIt(f) || loaded(ctx, f))) {
        yield { file: f, range, message: `${f} still holds an unresolved merge conflict: both sides and the marker lines are in the file, so it does not parse or run as written. Keep one side and delete the markers.` };
      } else if (parsed) {
        yield { file: f, range, severity: 'warning', message: `${f} still holds an unresolved merge conflict, so it does not parse; nothing of the task reads it as set up now, but a leftover that breaks on first use: resolve it or delete the file.` };
      } else {
        // Prose or data still reads, but says two things at once (or carries both versions of a record).
        yield { file: f, range, severity: 'warning', message: `${f} still holds an unresolved merge conflict: both versions and the marker lines are in the text the agent or the tests read. Keep one side and delete the markers.` };
      }
    }
  },
};
