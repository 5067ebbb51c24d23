import fs from 'node:fs';
import path from 'node:path';
import { unrecordedTrials } from './recover';
import { TRIAL_OUTCOMES, type TrialRecord } from './trial';

/**
 * The results store: `.taskwright/runs/<run-id>/` holds `run.json` (the run's parameters),
 * `trials.jsonl` (one line per finished trial, appended whole and fsynced, so a killed process loses
 * no finished trial) and `trials/<trial>/` with each trial's logs.
 */
export interface RunParameters {
  readonly id: string;
  readonly kind: 'run' | 'validate';
  readonly agent?: string;
  readonly model?: string;
  readonly checkpoint?: string;
  readonly tasks: readonly string[];
  readonly attempts?: number;
  readonly concurrency: number;
  readonly retries: number;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly endpoint?: string;
  readonly pid: number;
  readonly counts?: Readonly<Record<string, number>>;
}

export const TRIALS_FILE = 'trials.jsonl';
export const RUN_FILE = 'run.json';

export function defaultResultsDir(workspace: string): string {
  return path.join(workspace, '.taskwright', 'runs');
}

export function newRunId(kind: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  return `${stamp}-${kind}-${Math.random().toString(36).slice(2, 6)}`;
}

function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

export class RunStore {
  private readonly fd: number;

  private constructor(readonly dir: string, private params: RunParameters) {
    this.fd = fs.openSync(path.join(dir, TRIALS_FILE), 'a');
  }

  static create(resultsDir: string, params: RunParameters): RunStore {
    const dir = path.join(resultsDir, params.id);
    fs.mkdirSync(path.join(dir, 'trials'), { recursive: true });
    writeJsonAtomic(path.join(dir, RUN_FILE), params);
    return new RunStore(dir, params);
  }

  get id(): string {
    return this.params.id;
  }

  /** Folder for one trial's logs (created); the record stores it relative to the run folder. */
  trialDir(trialId: string): string {
    const d = path.join(this.dir, 'trials', trialId);
    fs.mkdirSync(d, { recursive: true });
    return d;
  }

  /** Appends one finished trial as a single write, then fsyncs: a line is either whole or the last, torn one. */
  append(record: TrialRecord): void {
    fs.writeSync(this.fd, `${JSON.stringify(record)}\n`);
    fs.fsyncSync(this.fd);
  }

  finish(counts: Readonly<Record<string, number>>): void {
    this.params = { ...this.params, finishedAt: new Date().toISOString(), counts };
    writeJsonAtomic(path.join(this.dir, RUN_FILE), this.params);
    fs.closeSync(this.fd);
  }
}

export interface ReadTrialsResult {
  readonly trials: TrialRecord[];
  /** Lines that could not be read: a torn last line (a killed writer) or a foreign line. */
  readonly skipped: number;
}

function isTrialRecord(v: unknown): v is TrialRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.trial === 'string' && typeof r.task === 'string' && typeof r.agent === 'string'
    && typeof r.attempt === 'number' && typeof r.outcome === 'string'
    && (TRIAL_OUTCOMES as readonly string[]).includes(r.outcome)
    && (r.reward === null || typeof r.reward === 'number');
}

/** Parses `trials.jsonl` text; unreadable lines (a torn last line above all) are skipped and counted. */
export function parseTrialsJsonl(text: string): ReadTrialsResult {
  const trials: TrialRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isTrialRecord(v)) trials.push(v);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { trials, skipped };
}

/** Reads a run folder (or a `trials.jsonl` file directly). */
export function readRun(dirOrFile: string): ReadTrialsResult & { readonly params?: RunParameters } {
  const isFile = dirOrFile.endsWith('.jsonl');
  const dir = isFile ? path.dirname(dirOrFile) : dirOrFile;
  const file = isFile ? dirOrFile : path.join(dir, TRIALS_FILE);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  let params: RunParameters | undefined;
  try {
    params = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE), 'utf8')) as RunParameters;
  } catch {
    params = undefined;
  }
  const parsed = parseTrialsJsonl(text);
  // Verdicts a killed process wrote to a trial folder but not yet to trials.jsonl still count.
  const recovered = unrecordedTrials(dir, parsed.trials);
  return { ...parsed, ...(recovered.length ? { trials: [...parsed.trials, ...recovered] } : {}), params };
}

/** Run folders under a results folder, newest first. */
export function listRuns(resultsDir: string): string[] {
  if (!fs.existsSync(resultsDir)) return [];
  return fs.readdirSync(resultsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(resultsDir, e.name, TRIALS_FILE)))
    .map((e) => path.join(resultsDir, e.name))
    .sort()
    .reverse();
}
