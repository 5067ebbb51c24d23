import { PathOutsideTaskError } from '../sandbox/contain';
import fs from 'node:fs';
import path from 'node:path';
import { NopAgent } from '../agents/nop';
import { OracleAgent } from '../agents/oracle';
import type { Task } from '../model/task';
import type { RunStore } from '../results/store';
import type { TrialRecord } from '../results/trial';
import { InfraError, LABEL, LABEL_RUN, LABEL_TASK, type ContainerRuntime } from '../sandbox/runtime';
import { TrialRunner, type TrialJob } from '../sandbox/runner';
import { hasSnapshots } from '../sandbox/snapshot';
import { analyzeTask, overallVerdict } from './analyze';
import { behaviourJobs, HookAgent, variationJob, type BehaviourJob } from './behaviour';
import { analyzeBehaviour, type BehaviourRun } from './behaviourAnalysis';
import { CHEAT_PROBES, imageOutputsProbe } from './cheats';
import { plantHook, REWARD_PROBES, type RewardProbe } from './probes';
import { SnapshotImages } from './snapshotImages';
import { snapshotHook, type SolvedState } from './solved';
import type { TaskValidation } from './types';
import { readFirstRun, readSolved, recordedSnapshots, ValidationLedger } from './ledger';

export interface ValidateTarget {
  readonly task: Task;
  /** The path as the user gave it (or relative to the workspace). */
  readonly path: string;
}

export interface ValidateOptions {
  /** nop and oracle trials per task (default 3). */
  readonly runs: number;
  readonly concurrency: number;
  readonly retries: number;
  readonly retryBaseMs?: number;
  readonly probes?: boolean;
  /** Run only these probes (by name); default all that apply. */
  readonly onlyProbes?: readonly string[];
  /** Output mutants per output file, from the solved snapshot (default 3; 0: none). */
  readonly mutants?: number;
  /** Environment variation, test order and the verifier run twice, from the solved snapshot (default on). */
  readonly behaviour?: boolean;
  /** Seed of the random test order. */
  readonly seed?: number;
  readonly signal?: AbortSignal;
  /**
   * The run's ledger when it is resumed (`validate --resume`): a check that reached a verdict there is
   * taken from it and never run again; one missing, cancelled or lost to infra runs again.
   */
  readonly prior?: readonly TrialRecord[];
  readonly onOutput?: (text: string) => void;
  /** Progress: a task's phase or a finished trial. */
  readonly onProgress?: (message: string, done: number, total: number) => void;
}

export const DEFAULT_MUTANTS = 3;

interface Planned {
  readonly target: ValidateTarget;
  readonly kind: string;
  readonly job: TrialJob;
  readonly behaviour?: BehaviourJob;
  /** Resumed: the tries the ledger already holds for this job (infra errors, cancellations). */
  readonly prior?: readonly TrialRecord[];
}

function readCapped(file: string, max = 1 << 20): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(max, fs.fstatSync(fd).size));
      fs.readSync(fd, buf, 0, buf.length, 0);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * Validates tasks by behaviour. Phase 1: build, nop × N (reward 0), oracle × N in fresh
 * containers (reward 1; the first oracle run's solved state is committed once), cheat probes.
 * Phase 2, from that snapshot: output mutants, the verifier twice in one container, the tests in
 * another order, two combined environment variations (and, only for a group whose verdict moved,
 * each of its variables alone). Builds run one at a time; trials of all tasks share the
 * concurrency budget through one work queue (a task's snapshot checks are queued as soon as its first
 * oracle run ends); snapshot images are removed before this returns.
 */
export async function validateTasks(runtime: ContainerRuntime, store: RunStore, targets: readonly ValidateTarget[], opts: ValidateOptions): Promise<TaskValidation[]> {
  const images = new SnapshotImages(runtime);
  const runner = new TrialRunner({ runtime, images }, store);
  const buildsDir = path.join(store.dir, 'builds');
  fs.mkdirSync(buildsDir, { recursive: true });
  const allowed = (name: string): boolean => opts.probes !== false && (!opts.onlyProbes || opts.onlyProbes.includes(name));
  const probeSet = [...REWARD_PROBES, ...CHEAT_PROBES].filter((p) => allowed(p.name));
  const mutants = opts.mutants ?? DEFAULT_MUTANTS;
  const behaviour = opts.behaviour !== false;
  const snapshots = hasSnapshots(runtime) && (mutants > 0 || behaviour || allowed('image-outputs')) ? runtime : undefined;
  const probesOf = (task: Task): RewardProbe[] => probeSet.filter((p) => !p.applies || p.applies(task));
  let total = targets.reduce((n, t) => n + opts.runs * 2 + probesOf(t.task).length, 0);
  let done = 0;

  const builds = new Map<string, { kind: string; message: string } | { sec: number }>();
  for (const t of targets) {
    if (opts.signal?.aborted) break;
    opts.onProgress?.(`${t.task.id}: building`, done, total);
    const started = Date.now();
    try {
      const img = await runner.images.ensure(t.task, { logFile: path.join(buildsDir, `${t.task.id}.log`), onLog: opts.onOutput, signal: opts.signal });
      builds.set(t.task.dir, { sec: img.built ? (Date.now() - started) / 1000 : 0 });
    } catch (e) {
      const err = e instanceof InfraError ? { kind: e.kind, message: e.message }
        : e instanceof PathOutsideTaskError ? { kind: e.rule, message: `${t.task.id}: ${e.message}` }
          : { kind: 'other', message: e instanceof Error ? e.message : String(e) };
      // An unreachable engine is not the task's fault: its trials are attempted (and recorded) as infra errors.
      if (err.kind !== 'engine-unreachable') builds.set(t.task.dir, err);
      opts.onOutput?.(`${t.task.id}: ${err.message}\n`);
    }
  }

  const solved = new Map<ValidateTarget, SolvedState | string>();
  const snapImages: string[] = [];
  const ledger = new ValidationLedger(opts.prior);
  // Resumed: tasks whose recorded solved state has no image any more (removed at the end of the
  // interrupted run, or never known): their snapshot checks still to run wait for a snapshot taken again.
  const stale = new Set<ValidateTarget>();
  const waiting = new Map<ValidateTarget, Planned[]>();
  if (opts.prior && snapshots) {
    for (const target of targets) {
      const first = ledger.state(target.path, 'oracle', 1).reached;
      if (!first) continue;
      // A string: the snapshot failed in that run, and that stands as its finding.
      const s = readSolved(path.join(store.dir, first.logs));
      if (s !== undefined) solved.set(target, s);
      const onEngine = typeof s === 'object' && (await runtime.imageExists(s.image).catch(() => false));
      // Found on the engine (a killed run leaves it): used, then removed with this run's.
      if (onEngine) snapImages.push(s.image);
      else if (first.outcome === 'passed' && typeof s !== 'string') stale.add(target);
    }
    // Snapshots of trials the kill left unrecorded (an oracle killed after its commit) go too.
    for (const img of recordedSnapshots(store.dir)) if (!snapImages.includes(img)) snapImages.push(img);
  }
  // Jobs in the order they were queued, and each job's tries: the analysis reads them per task.
  const planned: Planned[] = [];
  const results: TrialRecord[][] = [];
  const probeJob = (target: ValidateTarget, p: RewardProbe): Planned => ({
    target, kind: `probe:${p.name}`, job: { task: target.task, taskPath: target.path, agent: new HookAgent(`probe:${p.name}`), attempt: 1, label: `probe-${p.name}`, beforeVerifier: plantHook(p) },
  });

  const snapshotLabels = (target: ValidateTarget): Readonly<Record<string, string>> => ({ [LABEL]: '1', [LABEL_RUN]: store.id, [LABEL_TASK]: target.task.id });
  /** Resumed: an oracle trial that only takes the solved snapshot again (its verdict is no check's). */
  const retaken = new Map<ValidateTarget, SolvedState | string>();
  const snapshotJob = (target: ValidateTarget): Planned => ({
    target, kind: 'snapshot',
    job: {
      task: target.task, taskPath: target.path, agent: new OracleAgent(), attempt: 1, label: 'oracle-snapshot', snapshotted: true,
      firstTry: ledger.state(target.path, 'oracle-snapshot', 1).nextTry,
      beforeVerifier: snapshotHook(snapshots as NonNullable<typeof snapshots>, snapshotLabels(target), path.join(store.dir, 'snapshots'), (s) => {
        retaken.set(target, s);
        if (typeof s !== 'string') snapImages.push(s.image);
      }),
    },
  });

  /** The snapshot's checks, queued as soon as the first oracle run ends (when it passed: else it is no reference). */
  const afterSnapshot = (target: ValidateTarget, rec: TrialRecord | undefined): Planned[] => {
    const s = solved.get(target);
    if (s === undefined || typeof s === 'string') return [];
    if (rec?.outcome !== 'passed') { solved.set(target, 'the first oracle run did not pass, so its state is no reference'); return []; }
    const out: Planned[] = [];
    const img = allowed('image-outputs') ? imageOutputsProbe(s.outputs) : undefined;
    if (img) out.push(probeJob(target, img));
    const bjobs = mutants > 0 || behaviour
      ? behaviourJobs(runtime, images, target.task, s, { mutants, variations: behaviour, order: behaviour, stale: behaviour, seed: opts.seed })
      : [];
    for (const bj of bjobs) out.push({ target, kind: `check:${bj.kind}`, behaviour: bj, job: { task: bj.task, taskPath: target.path, agent: bj.agent, attempt: 1, label: bj.label, beforeVerifier: bj.hook } });
    return out;
  };
  /** An environment group whose verdict moved: each of its variables alone, to name the one. */
  const bisect = (p: Planned, rec: TrialRecord | undefined): Planned[] => {
    const s = solved.get(p.target);
    // Only a group is split: a single variable that moved the verdict is already named (splitting it
    // again would queue the same trial for ever).
    if (p.behaviour?.kind !== 'env' || p.kind === 'check:env-one' || (p.behaviour.variations ?? []).length < 2 || !rec || rec.outcome === 'passed' || rec.outcome === 'infra-error' || rec.outcome === 'cancelled' || !s || typeof s === 'string') return [];
    return (p.behaviour.variations ?? []).map((v) => {
      const bj = variationJob(images, p.target.task, s, [v], `env-${v.id}`);
      return { target: p.target, kind: 'check:env-one', behaviour: bj, job: { task: bj.task, taskPath: p.target.path, agent: bj.agent, attempt: 1, label: bj.label } };
    });
  };

  try {
    const first: Planned[] = [];
    for (const target of targets) {
      const b = builds.get(target.task.dir);
      if (b && 'kind' in b) continue;
      for (let i = 1; i <= opts.runs; i++) first.push({ target, kind: 'nop', job: { task: target.task, taskPath: target.path, agent: new NopAgent(), attempt: i, label: 'nop' } });
      for (let i = 1; i <= opts.runs; i++) {
        const hook = i === 1 && snapshots && target.task.solution.file
          ? snapshotHook(snapshots, snapshotLabels(target), path.join(store.dir, 'snapshots'), (s) => {
            solved.set(target, s);
            if (typeof s !== 'string') snapImages.push(s.image);
          })
          : undefined;
        first.push({ target, kind: 'oracle', job: { task: target.task, taskPath: target.path, agent: new OracleAgent(), attempt: i, label: 'oracle', beforeVerifier: hook, ...(hook ? { snapshotted: true } : {}) } });
      }
      for (const p of probesOf(target.task)) first.push(probeJob(target, p));
    }
    // The snapshotting oracle runs first (its checks follow it); then tasks interleave so a slow task
    // does not hold the whole budget at the end.
    const rank = (p: Planned): number => (p.kind === 'oracle' && p.job.attempt === 1 ? 0 : p.job.attempt);
    done += (targets.length - new Set(first.map((j) => j.target.task.dir)).size) * (opts.runs * 2);

    // One work queue for every phase, within the concurrency budget: a task's snapshot checks start
    // while other trials still run, instead of after a barrier.
    const queue: Planned[] = [];
    const runOpts = {
      // A trial's container is removed off its path once its verdict is saved (settled below).
      concurrency: 1, retries: opts.retries, retryBaseMs: opts.retryBaseMs, signal: opts.signal, onOutput: opts.onOutput, deferRemoval: true,
      onTrial: (r: { record: TrialRecord; retryable: boolean }) => {
        if (r.record.outcome !== 'infra-error' || !r.retryable) done++;
        opts.onProgress?.(`${r.record.taskId ?? r.record.task}: ${r.record.agent} ${r.record.trial} → ${r.record.outcome}`, done, total);
      },
    };
    /** What a finished job (run now, or taken from the ledger) makes next. */
    const followUps = (p: Planned, rec: TrialRecord | undefined): Planned[] => [...(p.kind === 'oracle' && p.job.attempt === 1 ? afterSnapshot(p.target, rec) : []), ...bisect(p, rec)];
    /** A job with a verdict in the ledger is kept as it is; any other is queued, its tries numbered on. */
    const enqueue = (p: Planned): void => {
      const state = ledger.state(p.target.path, p.job.label ?? p.kind, p.job.attempt);
      if (state.reached) {
        if (p.behaviour?.kind === 'stale') p.behaviour.firstRun = readFirstRun(path.join(store.dir, state.reached.logs));
        results[planned.push(p) - 1] = [...state.tries];
        done++;
        opts.onProgress?.(`${p.target.task.id}: ${p.job.label ?? p.kind} kept from the ledger (${state.reached.outcome})`, done, total);
        more(followUps(p, state.reached));
        return;
      }
      const q: Planned = state.tries.length ? { ...p, job: { ...p.job, firstTry: state.nextTry }, prior: state.tries } : p;
      if (p.behaviour && stale.has(p.target)) {
        const w = waiting.get(p.target);
        if (w) { w.push(q); return; }
        waiting.set(p.target, [q]);
        total++;
        queue.unshift(snapshotJob(p.target));
        return;
      }
      queue.push(q);
    };
    const more = (ps: readonly Planned[]): void => {
      total += ps.length;
      for (const p of ps) enqueue(p);
    };
    /** The snapshot taken again: the waiting checks run on it (or, with no solved state recorded, the snapshot's checks are planned from it). */
    const retook = (p: Planned, rec: TrialRecord | undefined): void => {
      const old = solved.get(p.target);
      const now = retaken.get(p.target);
      stale.delete(p.target);
      const w = waiting.get(p.target) ?? [];
      waiting.delete(p.target);
      if (typeof old !== 'object') {
        solved.set(p.target, now ?? 'the solved state could not be snapshotted again');
        more(afterSnapshot(p.target, rec));
        return;
      }
      // Not retaken: the waiting checks get no verdict (an error, run again by the next resume).
      if (rec?.outcome !== 'passed' || typeof now !== 'object') return;
      images.rebase(old.image, now.image);
      solved.set(p.target, { ...old, image: now.image });
      queue.push(...w);
    };
    const sorted = [...first].sort((a, b) => rank(a) - rank(b));
    for (const p of sorted) {
      // A task with no solved state recorded takes it again before its first-oracle follow-ups.
      if (p.kind === 'oracle' && p.job.attempt === 1 && stale.has(p.target) && solved.get(p.target) === undefined) {
        waiting.set(p.target, []);
        total++;
        queue.unshift(snapshotJob(p.target));
      }
      enqueue(p);
    }
    await new Promise<void>((resolve) => {
      let running = 0;
      const pump = (): void => {
        while (running < Math.max(1, opts.concurrency) && queue.length && !opts.signal?.aborted) {
          const p = queue.shift() as Planned;
          const at = planned.push(p) - 1;
          running++;
          void runner.runJob(p.job, runOpts).then((rs) => rs.map((r) => r.record), () => [] as TrialRecord[]).then((recs) => {
            results[at] = [...(p.prior ?? []), ...recs];
            const rec = recs[recs.length - 1];
            if (p.kind === 'snapshot') retook(p, rec);
            else more(followUps(p, rec));
            running--;
            pump();
          });
        }
        if (!running) resolve();
      };
      pump();
    });
  } finally {
    // Every trial's container is gone before this returns (and before the snapshots they ran on).
    await runner.close();
    if (hasSnapshots(runtime)) for (const img of snapImages) await runtime.removeImage(img).catch(() => undefined);
  }

  return targets.map((target) => {
    const mine = planned.map((j, i) => ({ j, rs: results[i] ?? [] })).filter(({ j }) => j.target === target);
    const last = (kind: string): TrialRecord[] => mine.filter(({ j }) => j.kind === kind).map(({ rs }) => rs[rs.length - 1]).filter((r): r is TrialRecord => !!r);
    const b = builds.get(target.task.dir);
    const probes = [...new Set(mine.filter(({ j }) => j.kind.startsWith('probe:')).map(({ j }) => j.kind.slice(6)))];
    const probeInfo = [...probeSet, ...(typeof solved.get(target) === 'object' ? [imageOutputsProbe((solved.get(target) as SolvedState).outputs)] : [])].filter((p): p is RewardProbe => !!p);
    const behaviourRuns = (kinds: readonly string[]): BehaviourRun[] => mine.filter(({ j }) => kinds.includes(j.kind) && j.behaviour).map(({ j, rs }) => {
      const record = rs[rs.length - 1];
      return { job: j.behaviour as BehaviourJob, record, stdout: record ? readCapped(path.join(store.dir, record.logs, 'verifier.stdout')) : '' };
    });
    const base = analyzeTask({
      task: target.task,
      path: target.path,
      buildError: b && 'kind' in b ? b : undefined,
      buildSec: b && 'sec' in b ? b.sec : undefined,
      // Each job's final try carries its verdict; earlier tries were infra errors, reported apart.
      nop: last('nop'),
      oracle: last('oracle'),
      probes: Object.fromEntries(probes.map((p) => [p, last(`probe:${p}`)])),
      probeDescriptions: Object.fromEntries(probeInfo.map((p) => [p.name, p.description])),
      probeFixes: Object.fromEntries(probeInfo.map((p) => [p.name, { fix: p.fix, ...(p.rule ? { rule: p.rule } : {}) }])),
      allTrials: mine.flatMap(({ rs }) => rs),
    });
    if (base.verdict === 'infra-error' && b && 'kind' in b) return base;
    const extra = analyzeBehaviour({
      task: target.task, solved: solved.get(target),
      runs: behaviourRuns(['check:mutant', 'check:stale', 'check:order', 'check:env']), bisect: behaviourRuns(['check:env-one']),
    });
    const checks = [...base.checks, ...extra.checks];
    const oracleNeverPassed = !last('oracle').some((r) => r.outcome === 'passed');
    return {
      ...base, checks, findings: [...base.findings, ...extra.findings], verdict: overallVerdict(checks, oracleNeverPassed),
      ...(extra.mutants ? { mutants: extra.mutants } : {}),
    };
  });
}
