import { recordTaskId, recordTaskKey } from '../results/taskKey';
import { attemptSucceeded, recordTimeoutPolicy, summarizePolicies, type TimeoutPolicy } from '../results/timeoutPolicy';
import type { TrialRecord } from '../results/trial';
import type { ModelTally, TaskTally } from './report';

/** Trials from one place (a run folder, a Harbor job, a TB1 run), with what is known about completeness. */
export interface RecordSet {
  /** Folder the trials were read from (shown in the report). */
  readonly source: string;
  readonly records: readonly TrialRecord[];
  /** Attempts each task should end with, when the run says (run.json `attempts`, TB1 `n_attempts`). */
  readonly expectedAttempts?: number;
  /** True when the run is over: nothing more will be appended, no retry is coming. */
  readonly finished: boolean;
  /** Infra retries per attempt the runner makes (run.json `retries`); used while a run is still going. */
  readonly retries?: number;
  /** Tasks known to have trials still running (e.g. Harbor trial folders without a result). */
  readonly pendingTasks?: ReadonlySet<string>;
}

export interface RecordFilter {
  /** Keep only this model (matched against the record's model, then its agent spec). */
  readonly model?: string;
  readonly checkpoint?: string;
}

/** Model name a record is grouped under: the model when the agent has one, else the agent spec (`oracle`). */
export function recordModel(r: Pick<TrialRecord, 'model' | 'agent'>): string {
  return r.model ?? r.agent;
}

export { recordTaskId, recordTaskKey };

interface MutableTask {
  id: string;
  path: string;
  /** Per (source, attempt): that attempt's trials in try order. */
  attempts: Map<string, TrialRecord[]>;
  infraErrors: number;
  possiblyInfra: number;
  verifierOom: number;
  pending: boolean;
  /** Attempts expected per source this task appeared in. */
  expected: Map<string, RecordSet>;
}

interface MutableModel {
  model: string;
  checkpoint?: string;
  agents: Set<string>;
  sources: Set<string>;
  /** The timeout policy of every record counted (one, or `mixed` in the report). */
  policies: Set<TimeoutPolicy>;
  tasks: Map<string, MutableTask>;
}

function lastTry(trials: readonly TrialRecord[]): TrialRecord {
  return trials.reduce((best, r) => ((r.try ?? 1) >= (best.try ?? 1) ? r : best));
}

/**
 * Counts trials into per-(model, checkpoint) task tallies. An attempt is the last try of its attempt
 * number in its source: a verdict there makes it a valid attempt (passed = success, unless the agent
 * timed out under the `fail` timeout policy; failed, agent timeout, verifier timeout or error = the
 * policy's failed attempt); an infra error there leaves the
 * denominator; a cancelled trial is no attempt. A task whose attempts are not all in is `pending`,
 * so pass@k is never computed from the attempts that happened to finish first.
 */
export function tallyRecords(sets: readonly RecordSet[], filter: RecordFilter = {}): ModelTally[] {
  const models = new Map<string, MutableModel>();
  for (const set of sets) {
    for (const r of set.records) {
      const model = recordModel(r);
      if (filter.model !== undefined && model !== filter.model && r.agent !== filter.model) continue;
      if (filter.checkpoint !== undefined && r.checkpoint !== filter.checkpoint) continue;
      const mkey = `${model}\u0000${r.checkpoint ?? ''}`;
      let m = models.get(mkey);
      if (!m) {
        m = { model, ...(r.checkpoint !== undefined ? { checkpoint: r.checkpoint } : {}), agents: new Set(), sources: new Set(), policies: new Set(), tasks: new Map() };
        models.set(mkey, m);
      }
      m.agents.add(r.agent);
      m.sources.add(set.source);
      m.policies.add(recordTimeoutPolicy(r));
      const id = recordTaskId(r);
      const key = recordTaskKey(r);
      let t = m.tasks.get(key);
      if (!t) {
        t = { id, path: r.task, attempts: new Map(), infraErrors: 0, possiblyInfra: 0, verifierOom: 0, pending: false, expected: new Map() };
        m.tasks.set(key, t);
      }
      t.expected.set(set.source, set);
      const akey = `${set.source}\u0000${r.attempt}`;
      const list = t.attempts.get(akey) ?? [];
      list.push(r);
      t.attempts.set(akey, list);
      if (r.outcome === 'infra-error') {
        t.infraErrors++;
        if (r.infra?.kind === 'possibly-infra') t.possiblyInfra++;
      }
      if (r.outcome === 'verifier-oom') t.verifierOom++;
      if (set.pendingTasks?.has(id) || set.pendingTasks?.has(r.task)) t.pending = true;
    }
  }
  return [...models.values()].map((m): ModelTally => ({
    model: m.model,
    ...(m.checkpoint !== undefined ? { checkpoint: m.checkpoint } : {}),
    ...(m.agents.size === 1 ? { agent: [...m.agents][0]! } : {}),
    sources: [...m.sources].sort(),
    timeoutPolicy: summarizePolicies(m.policies) ?? 'fail',
    tasks: [...m.tasks.values()].map(finishTask),
  }));
}

function finishTask(t: MutableTask): TaskTally {
  let attempts = 0;
  let successes = 0;
  let pending = t.pending;
  const inBySource = new Map<string, number>();
  for (const [akey, trials] of t.attempts) {
    const source = akey.slice(0, akey.indexOf('\u0000'));
    const set = t.expected.get(source)!;
    const last = lastTry(trials);
    if (last.outcome === 'cancelled') continue;
    // A verifier OOM is the task's memory limit, not the policy: like infra, no attempt, but in.
    if (last.outcome === 'verifier-oom') {
      inBySource.set(source, (inBySource.get(source) ?? 0) + 1);
      continue;
    }
    if (last.outcome === 'infra-error') {
      // Still counted as "in" once the runner has given up on it (run over, or retries spent).
      const retriesLeft = !set.finished && set.retries !== undefined && (last.try ?? 1) <= set.retries;
      if (retriesLeft) pending = true;
      else inBySource.set(source, (inBySource.get(source) ?? 0) + 1);
      continue;
    }
    attempts++;
    // By the record's own timeout policy: under `fail` an agent that timed out never succeeds.
    if (attemptSucceeded(last)) successes++;
    inBySource.set(source, (inBySource.get(source) ?? 0) + 1);
  }
  for (const [source, set] of t.expected) {
    if (set.expectedAttempts !== undefined && (inBySource.get(source) ?? 0) < set.expectedAttempts) pending = true;
  }
  return { id: t.id, path: t.path, attempts, successes, infraErrors: t.infraErrors, possiblyInfra: t.possiblyInfra, ...(t.verifierOom ? { verifierOom: t.verifierOom } : {}), pending };
}
