import fs from 'node:fs';
import path from 'node:path';
import { DiskFullError, guardWrite, isDiskFull } from './diskFull';
import { unrecordedTrials } from './recover';
import type { TimeoutPolicy } from './timeoutPolicy';
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
  /** What an agent timeout means in this run (absent in runs written before the policy: `fail`). */
  readonly timeoutPolicy?: TimeoutPolicy;
  /** The share of attempts the run may lose to infrastructure before it exits non-zero. */
  readonly maxInfraRate?: number;
  /** The folder the task paths in `tasks` are relative to (a resume from elsewhere still finds them). */
  readonly cwd?: string;
  /** Each `run --resume` of this run: when, by which process, and how many attempts it had left. */
  readonly resumes?: readonly RunResume[];
  /** validate: the options that decide which checks run (a resume runs the same ones). */
  readonly validate?: ValidateSettings;
  /** Each task's folder digest when the run started (`taskDigest.ts`): a resume tells an edited task from the one measured. */
  readonly taskDigests?: Readonly<Record<string, string>>;
}

/** What `taskwright validate` checks besides nop and oracle, as run.json records it. */
export interface ValidateSettings {
  readonly probes: boolean;
  readonly onlyProbes?: readonly string[];
  readonly mutants: number;
  readonly behaviour: boolean;
  readonly seed: number;
}

export interface RunResume {
  readonly startedAt: string;
  readonly pid: number;
  readonly remaining: number;
  readonly finishedAt?: string;
  /** Tasks edited since the run started that the user chose to resume anyway (`--allow-changed-tasks`). */
  readonly changedTasks?: readonly string[];
}

export const TRIALS_FILE = 'trials.jsonl';
/** A trial record is a few KB; a line longer than this is not one. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
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
  try {
    guardWrite(file, () => fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`));
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.renameSync(tmp, file);
}

/**
 * Cuts a torn last line (a writer killed, or a disk that filled, mid-line) off `trials.jsonl`, so
 * the next append starts on a line of its own. Returns the bytes removed.
 */
export function repairTrialsFile(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r+');
  } catch {
    return 0;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 0;
    const buf = Buffer.alloc(64 * 1024);
    let end = size;
    // Walk back to the last newline; the whole file may be one torn line.
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = fs.readSync(fd, buf, 0, end - start, start);
      const i = buf.subarray(0, n).lastIndexOf(0x0a);
      if (i >= 0) {
        const keep = start + i + 1;
        if (keep === size) return 0;
        fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}

export class RunStore {
  private readonly fd: number;
  private readonly file: string;
  /** Bytes of `trials.jsonl` known to be whole records. */
  private size: number;
  /** Lines cut off by {@link repairTrialsFile} when the store was opened. */
  readonly repaired: number;

  private constructor(readonly dir: string, private params: RunParameters) {
    this.file = path.join(dir, TRIALS_FILE);
    this.repaired = repairTrialsFile(this.file);
    this.fd = fs.openSync(this.file, 'a');
    this.size = fs.fstatSync(this.fd).size;
  }

  static create(resultsDir: string, params: RunParameters): RunStore {
    const dir = path.join(resultsDir, params.id);
    guardWrite(dir, () => fs.mkdirSync(path.join(dir, 'trials'), { recursive: true }));
    writeJsonAtomic(path.join(dir, RUN_FILE), params);
    return new RunStore(dir, params);
  }

  /** Reopens an existing run folder to append to it (a torn last line is repaired first). */
  static open(dir: string): RunStore {
    const params = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE), 'utf8')) as RunParameters;
    return new RunStore(dir, params);
  }

  get id(): string {
    return this.params.id;
  }

  get parameters(): RunParameters {
    return this.params;
  }

  /**
   * Marks the run live again for a resume: `finishedAt` and the counts go (readers take the run for
   * one still going), and the resume is listed. The original parameters stay as they were.
   */
  /** Records a resume; `taskDigests` replaces the recorded digests of tasks resumed although edited (the next resume compares with these). */
  beginResume(resume: RunResume, taskDigests?: Readonly<Record<string, string>>): void {
    const { finishedAt: _f, counts: _c, ...rest } = this.params;
    const digests = taskDigests && this.params.taskDigests ? { taskDigests: { ...this.params.taskDigests, ...taskDigests } } : {};
    this.params = { ...rest, ...digests, resumes: [...(this.params.resumes ?? []), resume] };
    writeJsonAtomic(path.join(this.dir, RUN_FILE), this.params);
  }

  /**
   * The highest sequence number among the trial folders (`007-task-agent-a1` → 7): a runner on a
   * reopened store numbers its trials after it, so no folder or trial id is ever reused.
   */
  lastTrialSeq(): number {
    let max = 0;
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(this.dir, 'trials'));
    } catch {
      return 0;
    }
    for (const n of names) {
      const m = /^(\d+)-/.exec(n);
      if (m) max = Math.max(max, Number(m[1]));
    }
    return max;
  }

  /** Folder for one trial's logs (created); the record stores it relative to the run folder. */
  trialDir(trialId: string): string {
    const d = path.join(this.dir, 'trials', trialId);
    guardWrite(d, () => fs.mkdirSync(d, { recursive: true }));
    return d;
  }

  /**
   * Appends one finished trial as a single write, fsyncs, then checks the file grew by exactly the
   * line. A short or failed write (a full disk) is cut back off, so a record is either saved whole
   * or not at all, and a DiskFullError says which.
   */
  append(record: TrialRecord): void {
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      let off = 0;
      while (off < line.length) off += fs.writeSync(this.fd, line, off, line.length - off);
      fs.fsyncSync(this.fd);
      const now = fs.fstatSync(this.fd).size;
      if (now !== this.size + line.length) throw Object.assign(new Error(`${this.file} is ${now} bytes after the append, expected ${this.size + line.length}`), { code: 'EIO' });
      this.size = now;
    } catch (e) {
      // Never leave a partial line behind: the next reader would take it as damage, the next writer glue to it.
      try {
        fs.ftruncateSync(this.fd, this.size);
      } catch {
        // The file cannot even be truncated; the next open repairs it.
      }
      if (isDiskFull(e)) throw new DiskFullError(this.file, e);
      throw e;
    }
  }

  finish(counts: Readonly<Record<string, number>>): void {
    const finishedAt = new Date().toISOString();
    const resumes = this.params.resumes;
    const last = resumes?.[resumes.length - 1];
    this.params = {
      ...this.params, finishedAt, counts,
      ...(resumes && last && !last.finishedAt ? { resumes: [...resumes.slice(0, -1), { ...last, finishedAt }] } : {}),
    };
    try {
      writeJsonAtomic(path.join(this.dir, RUN_FILE), this.params);
    } finally {
      fs.closeSync(this.fd);
    }
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

/** One line of `trials.jsonl` into `out`; false when it is not a record (torn, foreign, empty is skipped). */
function parseLine(line: string, out: TrialRecord[]): boolean {
  if (!line.trim()) return true;
  try {
    const v: unknown = JSON.parse(line);
    if (isTrialRecord(v)) {
      out.push(v);
      return true;
    }
  } catch {
    // counted below
  }
  return false;
}

/** Parses `trials.jsonl` text; unreadable lines (a torn last line above all) are skipped and counted. */
export function parseTrialsJsonl(text: string): ReadTrialsResult {
  const trials: TrialRecord[] = [];
  let skipped = 0;
  for (const line of text.replace(/^\uFEFF/, '').split('\n')) if (!parseLine(line, trials)) skipped++;
  return { trials, skipped };
}

/**
 * Reads `trials.jsonl` a chunk at a time: a results file of any size (beyond V8's largest string)
 * is never held as one string. A byte-order mark at the start is accepted.
 */
export function readTrialsFile(file: string): ReadTrialsResult {
  const trials: TrialRecord[] = [];
  let skipped = 0;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { trials, skipped };
  }
  try {
    const buf = Buffer.alloc(4 * 1024 * 1024);
    let rest: Buffer = Buffer.alloc(0);
    let first = true;
    let dropping = false;
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) {
      let chunk: Buffer = rest.length ? Buffer.concat([rest, buf.subarray(0, n)]) : buf.subarray(0, n);
      if (first) {
        if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
        first = false;
      }
      let start = 0;
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, start)) {
        if (dropping) dropping = false;
        else if (!parseLine(chunk.toString('utf8', start, i), trials)) skipped++;
        start = i + 1;
      }
      rest = dropping ? Buffer.alloc(0) : Buffer.from(chunk.subarray(start));
      // No record is this long: the line is skipped (counted once) rather than grown without bound.
      if (rest.length > MAX_LINE_BYTES) {
        skipped++;
        dropping = true;
        rest = Buffer.alloc(0);
      }
    }
    if (rest.length && !dropping && !parseLine(rest.toString('utf8'), trials)) skipped++;
  } finally {
    fs.closeSync(fd);
  }
  return { trials, skipped };
}

/** Reads a run folder (or a `trials.jsonl` file directly). */
export function readRun(dirOrFile: string): ReadTrialsResult & { readonly params?: RunParameters } {
  const isFile = dirOrFile.endsWith('.jsonl');
  const dir = isFile ? path.dirname(dirOrFile) : dirOrFile;
  const file = isFile ? dirOrFile : path.join(dir, TRIALS_FILE);
  let params: RunParameters | undefined;
  try {
    params = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE), 'utf8').replace(/^\uFEFF/, '')) as RunParameters;
  } catch {
    params = undefined;
  }
  const parsed = readTrialsFile(file);
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
