import fs from 'node:fs';
import path from 'node:path';
import { loadResults } from '../band/sources';
import { listRuns, readRun, RUN_FILE, TRIALS_FILE, type RunParameters } from './store';
import type { TrialOutcome, TrialRecord } from './trial';

/**
 * The results store as a browser shows it: every run of a results folder with its trials grouped by
 * task. Pure data over the files `store.ts` writes, so the editor's Runs view and any other reader
 * agree on what a run holds.
 */

/** A run's life: `finished` has `finishedAt`; `running` has a live writer; `interrupted` neither. */
export type RunState = 'finished' | 'running' | 'interrupted';

/** Attempts of one agent (a validation runs oracle and nop side by side, each with its own attempt numbers). */
export interface AgentTally {
  readonly agent: string;
  /** Attempts whose last try passed. */
  readonly passed: number;
  /** Attempts whose last try counts (not an infra error, a cancellation or a verifier OOM). */
  readonly attempts: number;
}

export interface RunTaskGroup {
  /** Task path as the run recorded it. */
  readonly task: string;
  readonly taskId: string;
  /** Attempts in order; an attempt's infra retries follow it (by `try`). */
  readonly trials: readonly TrialRecord[];
  /** Attempts whose last try passed. */
  readonly passed: number;
  /** Attempts counted (per agent), infra-only attempts left out. */
  readonly attempts: number;
  /** The same per agent, in order of first appearance. */
  readonly agents: readonly AgentTally[];
}

export interface RunSummary {
  /** Absolute run folder. */
  readonly dir: string;
  readonly id: string;
  readonly params: RunParameters | undefined;
  readonly state: RunState;
  readonly trials: readonly TrialRecord[];
  readonly tasks: readonly RunTaskGroup[];
  readonly counts: Readonly<Partial<Record<TrialOutcome, number>>>;
  /** Lines of `trials.jsonl` that were not records (a torn last line above all). */
  readonly skipped: number;
  /** The model the trials name (the run's, else the first trial's), undefined for oracle/nop runs. */
  readonly model: string | undefined;
  /** Attempts per agent over all tasks. */
  readonly agents: readonly AgentTally[];
  /** Set for a Harbor job or a Terminal-Bench 1 run read in place (never written or deleted by Taskwright). */
  readonly imported?: 'harbor' | 'tb1';
}

/** Whether a process id is alive on this machine (signal 0 probes without signalling). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function taskKey(r: TrialRecord): string {
  return r.task;
}

/** Outcomes that say nothing about the agent (see TrialOutcome). */
const NOT_AN_ATTEMPT: ReadonlySet<TrialOutcome> = new Set(['infra-error', 'cancelled', 'verifier-oom']);

/** Each agent's attempts: an attempt's verdict is its last try (earlier tries are infra errors that were retried). */
function tallyAgents(trials: readonly TrialRecord[]): AgentTally[] {
  const last = new Map<string, Map<number, TrialRecord>>();
  for (const t of [...trials].sort((a, b) => (a.try ?? 1) - (b.try ?? 1))) {
    let byAttempt = last.get(t.agent);
    if (!byAttempt) last.set(t.agent, (byAttempt = new Map()));
    byAttempt.set(t.attempt, t);
  }
  // As the band counts them: an attempt that only ever hit the harness's faults is no attempt of the agent.
  return [...last].map(([agent, byAttempt]) => {
    const counted = [...byAttempt.values()].filter((t) => !NOT_AN_ATTEMPT.has(t.outcome));
    return { agent, attempts: counted.length, passed: counted.filter((t) => t.outcome === 'passed').length };
  });
}

/** Groups a run's trials by task (sorted by id) and orders each task's trials by attempt and try. */
export function groupByTask(trials: readonly TrialRecord[]): RunTaskGroup[] {
  const byTask = new Map<string, TrialRecord[]>();
  for (const t of trials) {
    const list = byTask.get(taskKey(t));
    if (list) list.push(t);
    else byTask.set(taskKey(t), [t]);
  }
  const groups: RunTaskGroup[] = [];
  for (const [task, list] of byTask) {
    list.sort((a, b) => a.attempt - b.attempt || a.agent.localeCompare(b.agent) || (a.try ?? 1) - (b.try ?? 1) || a.startedAt.localeCompare(b.startedAt));
    const agents = tallyAgents(list);
    const passed = agents.reduce((n, a) => n + a.passed, 0);
    const attempts = agents.reduce((n, a) => n + a.attempts, 0);
    groups.push({ task, taskId: list[0]?.taskId ?? path.basename(task), trials: list, passed, attempts, agents });
  }
  return groups.sort((a, b) => a.taskId.localeCompare(b.taskId) || a.task.localeCompare(b.task));
}

function tallyRun(tasks: readonly RunTaskGroup[]): AgentTally[] {
  const agents = new Map<string, { passed: number; attempts: number }>();
  for (const g of tasks) {
    for (const a of g.agents) {
      const n = agents.get(a.agent) ?? { passed: 0, attempts: 0 };
      agents.set(a.agent, { passed: n.passed + a.passed, attempts: n.attempts + a.attempts });
    }
  }
  return [...agents].map(([agent, n]) => ({ agent, ...n }));
}

function countOutcomes(trials: readonly TrialRecord[]): Partial<Record<TrialOutcome, number>> {
  const counts: Partial<Record<TrialOutcome, number>> = {};
  for (const t of trials) counts[t.outcome] = (counts[t.outcome] ?? 0) + 1;
  return counts;
}

/**
 * Imported results (a Harbor job or jobs folder, a TB1 run or runs folder) as runs, read by the same
 * importers as `taskwright band`: one summary per job or run, its trial logs where the importer found them.
 */
export function summarizeImported(p: string): RunSummary[] {
  const loaded = loadResults([p]);
  const kind = loaded.inputs[0]?.kind;
  const imported = kind?.startsWith('harbor') ? 'harbor' as const : kind?.startsWith('tb1') ? 'tb1' as const : undefined;
  if (!imported) return [];
  return loaded.sets.map((set) => {
    const tasks = groupByTask(set.records);
    const model = set.records.find((t) => t.model)?.model;
    return {
      dir: set.source, id: path.basename(set.source), params: undefined, state: set.finished ? 'finished' as const : 'running' as const,
      trials: set.records, tasks, counts: countOutcomes(set.records), skipped: 0, model, agents: tallyRun(tasks), imported,
    };
  });
}

/** One run folder, read and summarized. `alive` decides whether an unfinished run still runs. */
export function summarizeRun(dir: string, alive: (pid: number) => boolean = pidAlive): RunSummary {
  const { trials, skipped, params } = readRun(dir);
  const state: RunState = params?.finishedAt ? 'finished' : params && alive(params.pid) ? 'running' : 'interrupted';
  const model = params?.model ?? trials.find((t) => t.model)?.model;
  const tasks = groupByTask(trials);
  return { dir, id: params?.id ?? path.basename(dir), params, state, trials, tasks, counts: countOutcomes(trials), skipped, model, agents: tallyRun(tasks) };
}

/** What decides whether a run folder must be read again: the sizes and times of its two files. */
function signature(dir: string): string {
  const part = (f: string): string => {
    try {
      const s = fs.statSync(path.join(dir, f));
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  return `${part(RUN_FILE)}|${part(TRIALS_FILE)}`;
}

/**
 * Reads a results folder again and again (as a view refreshes) without rereading the runs that did
 * not change: a run is read again only when its `run.json` or `trials.jsonl` changed size or time,
 * or while it runs (its writer may die without touching a file).
 */
export class ResultsReader {
  private readonly cache = new Map<string, { readonly sig: string; readonly run: RunSummary }>();

  constructor(readonly resultsDir: string, private readonly alive: (pid: number) => boolean = pidAlive) {}

  /** Every run, newest first (by start time, then folder name). */
  read(): RunSummary[] {
    const dirs = listRuns(this.resultsDir);
    const live = new Set(dirs);
    for (const d of [...this.cache.keys()]) if (!live.has(d)) this.cache.delete(d);
    const runs = dirs.map((dir) => {
      const sig = signature(dir);
      const hit = this.cache.get(dir);
      if (hit && hit.sig === sig && hit.run.state !== 'running') return hit.run;
      const run = summarizeRun(dir, this.alive);
      this.cache.set(dir, { sig, run });
      return run;
    });
    return runs.sort((a, b) => (b.params?.startedAt ?? '').localeCompare(a.params?.startedAt ?? '') || b.id.localeCompare(a.id));
  }
}

/** The absolute folder of a trial's logs (the record keeps it relative to the run folder). */
export function trialLogsDir(runDir: string, trial: TrialRecord): string {
  // No folder recorded (a TB1 trial whose folder is gone): a path that holds nothing, not the run folder.
  if (!trial.logs) return path.join(runDir, 'trials', path.basename(trial.trial));
  const dir = path.resolve(runDir, trial.logs);
  // A record is data: one whose logs point outside its run folder is read as having none there.
  return dir === runDir || dir.startsWith(runDir + path.sep) ? dir : path.join(runDir, 'trials', path.basename(trial.trial));
}

/** Files worth reading first, in this order; any other file of the trial folder follows by name. */
const KEY_LOGS = ['verdict.txt', 'trajectory.jsonl', 'agent.log', 'agent.stdout', 'agent.stderr', 'verifier.stdout', 'verifier.stderr',
  'reward.txt', 'reward.json', 'probe.log', 'build.log', 'record.json'];

/** The files of a trial's folder (relative, POSIX, at most two levels deep), key logs first. */
export async function trialLogFiles(runDir: string, trial: TrialRecord): Promise<string[]> {
  const root = trialLogsDir(runDir, trial);
  const out: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile()) out.push(p);
      else if (e.isDirectory() && depth < 1) await walk(p, depth + 1);
    }
  };
  await walk('', 0);
  const rank = (f: string): number => {
    const i = KEY_LOGS.indexOf(f);
    return i < 0 ? KEY_LOGS.length : i;
  };
  return out.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Deletes one run folder. Refuses anything that is not a run folder directly inside `resultsDir`
 * (a path from a view or a message is checked, never trusted).
 */
export function deleteRun(resultsDir: string, runDir: string): void {
  const root = path.resolve(resultsDir);
  const dir = path.resolve(runDir);
  if (path.dirname(dir) !== root) throw new Error(`${dir} is not a run folder of ${root}`);
  if (!fs.existsSync(path.join(dir, TRIALS_FILE)) && !fs.existsSync(path.join(dir, RUN_FILE))) {
    throw new Error(`${dir} holds no ${TRIALS_FILE} or ${RUN_FILE}: not a run folder`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Total seconds of a trial's phases that ran. */
export function trialSeconds(t: TrialRecord): number {
  return (t.durations.build ?? 0) + (t.durations.agent ?? 0) + (t.durations.verifier ?? 0);
}

/** "42s", "3m 05s", "1h 02m". */
export function formatSeconds(s: number): string {
  const n = Math.max(0, Math.round(s));
  if (n < 60) return `${n}s`;
  if (n < 3600) return `${Math.floor(n / 60)}m ${String(n % 60).padStart(2, '0')}s`;
  return `${Math.floor(n / 3600)}h ${String(Math.floor((n % 3600) / 60)).padStart(2, '0')}m`;
}
