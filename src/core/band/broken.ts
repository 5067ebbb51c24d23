import type { TrialRecord } from '../results/trial';
import { recordTaskId, recordTaskKey } from './fromRecords';

/**
 * Tasks that validation showed to be broken — the oracle fails, the environment does not build,
 * doing nothing passes, or (hackable) a cheat probe or a wrong output earns reward — keyed by task id and by path, with a short reason. Rollouts on such a task
 * say nothing about the policy, so the band calls it `broken` whatever the policy scored.
 */
export function brokenFromValidationTrials(records: readonly TrialRecord[]): Map<string, string> {
  const reasons = new Map<string, Set<string>>();
  const paths = new Map<string, string>();
  const idsOf = new Map<string, Set<string>>();
  const idOfKey = new Map<string, string>();
  for (const r of records) {
    const id = recordTaskId(r);
    const set = idsOf.get(id) ?? new Set<string>();
    set.add(recordTaskKey(r));
    idsOf.set(id, set);
  }
  const add = (r: TrialRecord, why: string): void => {
    const key = recordTaskKey(r);
    paths.set(key, r.task);
    idOfKey.set(key, recordTaskId(r));
    const s = reasons.get(key) ?? new Set<string>();
    s.add(why);
    reasons.set(key, s);
  };
  for (const r of records) {
    if (r.outcome === 'infra-error') {
      if (r.infra?.kind === 'build-failed') add(r, 'build fails');
      continue;
    }
    if (r.outcome === 'cancelled') continue;
    if (r.taskProblem) add(r, r.taskProblem.rule);
    if (r.agent === 'oracle' && r.outcome !== 'passed') add(r, 'oracle fails');
    if (r.agent === 'nop' && r.outcome === 'passed') add(r, 'nop passes');
    // Validate's cheat probes and output mutants (agent `probe:<name>` / `check:mutant`): reward for planted files or a wrong answer.
    if (r.agent.startsWith('probe:') && r.outcome === 'passed') add(r, `hackable (${r.agent.slice(6)})`);
    if (r.agent === 'check:mutant' && r.outcome === 'passed') add(r, 'hackable (accepts wrong output)');
  }
  const out = new Map<string, string>();
  for (const [key, why] of reasons) {
    const text = [...why].sort().join(', ');
    const p = paths.get(key)!;
    out.set(p, text);
    out.set(key, text);
    // By id too (rollouts may name the task another way), unless two tasks share that id.
    const id = idOfKey.get(key)!;
    if ((idsOf.get(id)?.size ?? 0) <= 1) out.set(id, text);
  }
  return out;
}

interface ValidateJsonTask {
  readonly id?: unknown;
  readonly path?: unknown;
  readonly verdict?: unknown;
  readonly checks?: unknown;
}

/** Broken tasks from `taskwright validate --format json` output: verdict `invalid` or `misaligned`. */
export function brokenFromValidateJson(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const tasks = (value as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(tasks)) return out;
  for (const t of tasks as ValidateJsonTask[]) {
    if (t.verdict !== 'invalid' && t.verdict !== 'misaligned') continue;
    const failed = Array.isArray(t.checks)
      ? (t.checks as { name?: unknown; status?: unknown }[]).filter((c) => c.status === 'fail').map((c) => String(c.name))
      : [];
    const why = `${t.verdict}${failed.length ? ` (${failed.join(', ')} failed)` : ''}`;
    if (typeof t.id === 'string') out.set(t.id, why);
    if (typeof t.path === 'string') out.set(t.path, why);
  }
  return out;
}
