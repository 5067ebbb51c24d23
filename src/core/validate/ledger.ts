import fs from 'node:fs';
import path from 'node:path';
import { groupTries, jobState, type JobState } from '../results/attempts';
import { recordTaskKey } from '../results/taskKey';
import type { TrialRecord } from '../results/trial';
import type { VerifierVerdict } from '../sandbox/formats';
import type { OutputFile, SolvedState } from './solved';

/**
 * A validation's ledger is the run's `trials.jsonl`, like a rollout's: every try of every check is
 * one record, and `check` (the job's label) with the task and attempt names the check. A resumed
 * validation reads it once: a check that reached a verdict is taken from it and never run again, one
 * that is missing, cancelled or ended in infra errors runs again with its tries numbered on
 * (`jobState`, the rule `run --resume` uses per attempt).
 *
 * Two things a check's verdict is read with live outside the record, so they are written beside it
 * in its trial folder: the oracle's solved state (`solved.json`: its outputs plan the snapshot
 * checks) and the stale-state check's first verifier run (`first-run.json`).
 */
export const SOLVED_FILE = 'solved.json';
export const FIRST_RUN_FILE = 'first-run.json';

const keyOf = (task: string, check: string, attempt: number): string => `${recordTaskKey({ task })}\u0000${check}\u0000${attempt}`;

export class ValidationLedger {
  private readonly tries: Map<string, TrialRecord[]>;

  /** `records`: the run's ledger (a fresh validation has none). Records without `check` are not checks. */
  constructor(records: readonly TrialRecord[] = []) {
    this.tries = groupTries(records, (r) => (r.check === undefined ? undefined : keyOf(r.task, r.check, r.attempt)));
  }

  get empty(): boolean {
    return this.tries.size === 0;
  }

  state(task: string, check: string, attempt: number): JobState {
    return jobState(this.tries.get(keyOf(task, check, attempt)) ?? []);
  }
}

function writeJson(file: string, value: unknown): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, `${JSON.stringify(value)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The solved state a snapshotting oracle trial took, or why it could not (a string). */
export function writeSolved(logDir: string, s: SolvedState | string): void {
  writeJson(path.join(logDir, SOLVED_FILE), typeof s === 'string' ? { error: s } : s);
}

const isOutput = (v: unknown): v is OutputFile => {
  const o = v as Partial<OutputFile> | null;
  return typeof o === 'object' && o !== null && typeof o.path === 'string' && typeof o.size === 'number' && typeof o.sha256 === 'string'
    && typeof o.named === 'boolean' && (o.text === undefined || typeof o.text === 'string');
};

/** undefined when the trial folder has none (a trial from before, or the hook never ran). */
export function readSolved(logDir: string): SolvedState | string | undefined {
  const v = readJson(path.join(logDir, SOLVED_FILE)) as Record<string, unknown> | undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  if (typeof v.error === 'string') return v.error;
  if (typeof v.image !== 'string' || !Array.isArray(v.outputs) || !v.outputs.every(isOutput) || !Array.isArray(v.locales)) return undefined;
  return {
    image: v.image, outputs: v.outputs, locales: v.locales.filter((l): l is string => typeof l === 'string'),
    ...(typeof v.pythonSite === 'string' ? { pythonSite: v.pythonSite } : {}),
  };
}

/**
 * Every snapshot image the run's trial folders name, those of trials a kill left unrecorded too: a
 * resumed validation removes them when it ends (the ones it still uses, after their checks).
 */
export function recordedSnapshots(runDir: string): string[] {
  const dir = path.join(runDir, 'trials');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const n of names) {
    const s = readSolved(path.join(dir, n));
    if (typeof s === 'object') out.add(s.image);
  }
  return [...out];
}

export function writeFirstRun(logDir: string, v: VerifierVerdict): void {
  writeJson(path.join(logDir, FIRST_RUN_FILE), v);
}

export function readFirstRun(logDir: string): VerifierVerdict | undefined {
  const v = readJson(path.join(logDir, FIRST_RUN_FILE)) as Partial<VerifierVerdict> | undefined;
  if (typeof v !== 'object' || v === null || typeof v.detail !== 'string' || !(v.reward === null || typeof v.reward === 'number')) return undefined;
  return { reward: v.reward, detail: v.detail, ...(typeof v.countedSkips === 'number' ? { countedSkips: v.countedSkips } : {}) };
}
