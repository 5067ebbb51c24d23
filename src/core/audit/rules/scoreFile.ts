/**
 * Verifiers that grade by a score file: pytest runs with its status discarded (`|| true`) and the
 * script then reads a file the Python tests wrote (`score.txt`, `results.json`) to set the reward.
 * There, which tests pass, skip or fail does not decide the reward; the scoring test does, so rules
 * about pytest's verdict (skips, `assert True`) do not apply as they would to a status-graded run.
 */
import type { AuditContext } from '../context';
import { isPytestCommand } from './commands';
import { tests } from './pyTestFiles';
import { scripts } from './verifierShared';

/** Names of data files a script mentions: `score.txt`, `${OUT}/results.json`. */
const FILE_NAME = /[\w.-]+\.(txt|json|csv|ya?ml)\b/g;
/** A Python file writes something. */
const WRITES = /\.write_text\(|\.write\(|json\.dump\(|open\([^)]*,\s*["'][wa]/;

const cache = new WeakMap<AuditContext, boolean>();

export function rewardFromTestWrittenFile(ctx: AuditContext): boolean {
  let v = cache.get(ctx);
  if (v === undefined) { v = compute(ctx); cache.set(ctx, v); }
  return v;
}

function compute(ctx: AuditContext): boolean {
  if (ctx.task.format !== 'harbor') return false;
  const written = tests(ctx).map((tf) => tf.tree.text).filter((t) => WRITES.test(t));
  if (written.length === 0) return false;
  let runs = 0;
  for (const { script } of scripts(ctx)) {
    for (const cmd of script.commands) {
      if (!isPytestCommand(cmd)) continue;
      runs++;
      // A run whose status still counts (no `|| true`) grades by pytest's verdict.
      if (!cmd.orTrue) return false;
      // The file's name is often set before the run (`SCORE_FILE="$TESTS_DIR/score.txt"`): any name
      // in the script outside the pytest command itself.
      const text = script.tree.text;
      const rest = text.slice(0, cmd.start) + text.slice(cmd.end);
      const names = new Set([...rest.matchAll(FILE_NAME)].map((m) => m[0]));
      const read = [...names].some((n) => written.some((t) => t.includes(`${n}"`) || t.includes(`${n}'`) || t.includes(`/${n}`)));
      if (!read) return false;
    }
  }
  return runs > 0;
}
