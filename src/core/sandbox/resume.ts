import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Agent } from '../agents/agent';
import { detectFormat, loadTask } from '../loader/index';
import type { Task } from '../model/task';
import { remainingAttempts, type AttemptsPlan } from '../results/attempts';
import { unrecordedTrials } from '../results/recover';
import { readTrialsFile, RUN_FILE, RunStore, TRIALS_FILE, type RunParameters } from '../results/store';
import { changedTasks, taskDigest } from '../results/taskDigest';
import { leaseOwner, leaseState, RunLease, type LeaseState } from './lease';
import { pidAlive } from './reaper';
import type { TrialJob } from './runner';
import type { TrialRecord } from '../results/trial';
import { LABEL, LABEL_RUN, type ContainerRuntime } from './runtime';
import { LABEL_READY } from './readySnapshots';
import { hasSnapshots } from './snapshot';

/**
 * Reopening a run to make the attempts it is missing (`taskwright run --resume`). A run is only
 * taken over once its owner is gone — killed (kill -9 included), crashed or finished — never while
 * it lives; then what the dead owner left is tidied before anything new starts: its containers are
 * removed, a torn last line of the ledger is cut, and verdicts it wrote to trial folders but not to
 * the ledger are appended. The attempts still to make come from `attempts.ts`.
 */
export class ResumeError extends Error {}

export interface OwnerDeps {
  readonly alive: (pid: number) => boolean;
  readonly lease: (runId: string) => LeaseState;
  readonly owner: (runId: string) => { readonly pid?: number; readonly host?: string } | undefined;
  readonly host: string;
  readonly self: number;
}

const defaultDeps = (): OwnerDeps => ({ alive: pidAlive, lease: (id) => leaseState(id), owner: (id) => leaseOwner(id), host: os.hostname(), self: process.pid });

/**
 * Whether the process that last ran a run still lives: by its lease when there is one (a fresh
 * lease whose writer is a dead process on this host is a killed run whose lease has not yet gone
 * stale), else, for a run not marked finished, by the pid in run.json (or of its last resume).
 */
export function runOwnerLive(params: RunParameters, deps: OwnerDeps = defaultDeps()): string | undefined {
  const lease = deps.lease(params.id);
  if (lease === 'fresh') {
    const o = deps.owner(params.id);
    if (o?.pid === deps.self) return undefined;
    if (o?.pid !== undefined && (o.host ?? deps.host) === deps.host && !deps.alive(o.pid)) return undefined;
    return `its lease is being refreshed by pid ${o?.pid ?? '?'}${o?.host && o.host !== deps.host ? ` on ${o.host}` : ''}`;
  }
  if (lease === 'stale' || params.finishedAt) return undefined;
  const pid = params.resumes?.[params.resumes.length - 1]?.pid ?? params.pid;
  return pid !== deps.self && deps.alive(pid) ? `it is not marked finished and its process (pid ${pid}) is alive` : undefined;
}

/** A run folder given as a path, or a run id under the results folder. */
export function resolveRunDir(run: string, resultsDir: string, cwd: string): string {
  for (const d of [path.resolve(cwd, run), path.join(resultsDir, run)]) {
    if (fs.existsSync(path.join(d, RUN_FILE))) return d;
  }
  throw new ResumeError(`--resume ${run}: no run.json there, nor a run of that id in ${resultsDir}`);
}

/** A run taken over for a resume, whatever its kind: its store reopened, what its dead owner left tidied. */
export interface ResumeSession {
  readonly store: RunStore;
  readonly params: RunParameters;
  /** The whole ledger, the recovered verdicts included. */
  readonly ledger: readonly TrialRecord[];
  /** Verdicts the dead owner left in trial folders, appended to the ledger now. */
  readonly recovered: number;
  /** Bytes of a torn last ledger line cut off. */
  readonly repairedBytes: number;
  /** Containers the dead owner left, removed. */
  readonly removedContainers: number;
  /** Verifier-ready snapshot images the dead owner left, removed. */
  readonly removedImages: number;
  /** Ends the take-over: the lock and the lease go. */
  release(): void;
}

/** A `run` taken over: the attempts it still owes. */
export interface RunResumeSession extends ResumeSession {
  readonly plan: AttemptsPlan;
}

const LOCK_FILE = 'resume.lock';

/** One resumer at a time: an exclusive lock file naming its pid (a dead holder's lock is taken over). */
function lock(dir: string, deps: OwnerDeps): () => void {
  const file = path.join(dir, LOCK_FILE);
  for (let i = 0; i < 2; i++) {
    try {
      fs.writeFileSync(file, `${deps.self}\n`, { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(fs.readFileSync(file, 'utf8').trim());
      if (holder !== deps.self && deps.alive(holder)) throw new ResumeError(`the run is being resumed by pid ${holder}`);
      fs.rmSync(file, { force: true });
    }
  }
  throw new ResumeError(`could not take ${file}`);
}

/**
 * A run's run.json, checked to be a run of `kind` that can resume: a `run` with its agent and
 * attempts, or a `validate` that recorded which checks it runs.
 */
export function resumableParameters(runDir: string, kind: RunParameters['kind'] = 'run'): RunParameters {
  let params: RunParameters;
  try {
    params = JSON.parse(fs.readFileSync(path.join(runDir, RUN_FILE), 'utf8').replace(/^\uFEFF/, '')) as RunParameters;
  } catch (e) {
    throw new ResumeError(`${path.join(runDir, RUN_FILE)}: cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  if (params.kind !== kind) throw new ResumeError(`${params.id} is a ${params.kind === 'validate' ? 'validation' : 'rollout'} (\`taskwright ${params.kind}\`): resume it with \`taskwright ${params.kind} --resume ${params.id}\``);
  if (kind === 'run' && (!params.agent || !params.attempts || !Array.isArray(params.tasks))) throw new ResumeError(`${params.id}: run.json names no agent, attempts or tasks; it cannot be resumed`);
  if (kind === 'validate' && (!params.validate || !params.attempts || !Array.isArray(params.tasks))) {
    throw new ResumeError(`${params.id}: run.json does not record which checks the validation runs (written before validations resumed, or by generate/fix); validate the tasks again`);
  }
  return params;
}

/** Takes over a `run` and plans the attempts it still owes. */
export async function openForResume(runtime: ContainerRuntime, runDir: string, deps: OwnerDeps = defaultDeps()): Promise<RunResumeSession> {
  const session = await openLedger(runtime, runDir, 'run', deps);
  const { params, ledger } = session;
  return { ...session, plan: remainingAttempts({ tasks: params.tasks, attempts: params.attempts ?? 1, ...(params.agent ? { agent: params.agent } : {}) }, ledger) };
}

/**
 * Takes over a run of `kind` once its owner is gone: lock, lease, its containers removed, its store
 * reopened (a torn line cut) and the verdicts left in trial folders appended. What is still to do
 * is the caller's to plan from `ledger` (`remainingAttempts`, or validate's `ValidationLedger`).
 */
export async function openLedger(runtime: ContainerRuntime, runDir: string, kind: RunParameters['kind'], deps: OwnerDeps = defaultDeps()): Promise<ResumeSession> {
  const params = resumableParameters(runDir, kind);
  const live = runOwnerLive(params, deps);
  if (live) throw new ResumeError(`${params.id} is still running (${live}); stop it first, or wait for it to end`);
  const unlock = lock(runDir, deps);
  const lease = new RunLease(params.id);
  try {
    lease.acquire();
    // What the dead owner left on the engine: its lease may still look fresh, so the reaper keeps it.
    let removedContainers = 0;
    for (const c of await runtime.listByLabel(LABEL)) {
      if (c.labels[LABEL_RUN] !== params.id) continue;
      await runtime.remove(c.id);
      removedContainers++;
    }
    // Its verifier-ready snapshots (a cache a new process makes again; a validation's solved-state
    // snapshots are that validation's to reuse, see validate/ledger.ts).
    const removedImages = await removeReadySnapshots(runtime, params.id);
    const store = RunStore.open(runDir);
    const ledger = readTrialsFile(path.join(runDir, TRIALS_FILE)).trials;
    const missing = unrecordedTrials(runDir, ledger);
    for (const r of missing) store.append(r);
    return {
      store, params, ledger: [...ledger, ...missing], recovered: missing.length, removedImages, repairedBytes: store.repaired, removedContainers,
      release: () => { lease.release(); unlock(); },
    };
  } catch (e) {
    lease.release();
    unlock();
    throw e;
  }
}

async function removeReadySnapshots(runtime: ContainerRuntime, runId: string): Promise<number> {
  if (!hasSnapshots(runtime) || !runtime.imagesByLabel) return 0;
  let n = 0;
  for (const id of await runtime.imagesByLabel([`${LABEL_RUN}=${runId}`, `${LABEL_READY}=1`]).catch(() => [] as string[])) {
    if (await runtime.removeImage(id).then(() => true, () => false)) n++;
  }
  return n;
}

/** A run's tasks as loaded for a resume, and those edited since the run started. */
export interface RunTasks {
  readonly tasks: Map<string, Task>;
  /** Task paths whose folder digest differs from run.json's (empty for runs that recorded none). */
  readonly changed: readonly string[];
  /** The changed tasks' digests now, for `RunStore.beginResume`. */
  readonly changedDigests: Readonly<Record<string, string>>;
}

/**
 * The run's tasks, loaded from where the run found them (run.json `cwd`, else `cwd`) and keyed by the
 * path exactly as its records have it, so resumed attempts count together with the old ones. A task
 * edited since the run started is refused unless `allowChanged`: its old and new attempts would be
 * counted as one task's, and the band would measure neither version.
 */
export async function loadRunTasks(params: RunParameters, cwd: string, allowChanged = false): Promise<RunTasks> {
  const base = params.cwd ?? cwd;
  const tasks = new Map<string, Task>();
  const digests = new Map<string, string>();
  for (const rel of params.tasks) {
    const abs = path.resolve(base, rel);
    if (!fs.existsSync(abs) || (await detectFormat(abs)) === undefined) {
      throw new ResumeError(`task ${rel} of run ${params.id} is gone (looked in ${abs}); the run cannot be resumed`);
    }
    tasks.set(rel, await loadTask(abs));
    if (params.taskDigests?.[rel] !== undefined) digests.set(rel, taskDigest(abs));
  }
  const changed = changedTasks(params.taskDigests, digests);
  if (changed.length && !allowChanged) {
    const names = `${changed.slice(0, 3).join(', ')}${changed.length > 3 ? `, … (${changed.length} in all)` : ''}`;
    throw new ResumeError(`${changed.length} task(s) of run ${params.id} changed since it started (${names}): their new attempts would be counted with attempts of the old version. Start a new run, or resume anyway with --allow-changed-tasks (recorded in run.json)`);
  }
  return { tasks, changed, changedDigests: Object.fromEntries(changed.map((rel) => [rel, digests.get(rel) as string])) };
}

/** One job per remaining attempt, its tries numbered after the recorded ones. */
export function resumeJobs(plan: AttemptsPlan, tasks: ReadonlyMap<string, Task>, agent: Agent): TrialJob[] {
  return plan.remaining.map((r) => {
    const task = tasks.get(r.task);
    if (!task) throw new ResumeError(`task ${r.task} is in the plan but was not loaded`);
    return { task, taskPath: r.task, agent, attempt: r.attempt, firstTry: r.nextTry };
  });
}
