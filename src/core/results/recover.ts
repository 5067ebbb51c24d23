import fs from 'node:fs';
import path from 'node:path';
import { repairTrialsFile, RUN_FILE, TRIALS_FILE, type RunParameters } from './store';
import { TRIAL_OUTCOMES, type TrialRecord } from './trial';

/**
 * Closing the window between a verdict and its line in `trials.jsonl`: the trial writes its whole
 * record into its own log folder (`record.json`, fsynced) before the line is appended and before
 * its container is removed. A process killed in between leaves the record there; the next reader
 * counts it and the next runner on the results folder appends it, so a verdict that exists is
 * never lost.
 */
export const RECORD_FILE = 'record.json';

export function writeRecordFile(logDir: string, record: TrialRecord): void {
  const file = path.join(logDir, RECORD_FILE);
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, `${JSON.stringify(record)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function readRecordFile(file: string): TrialRecord | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as TrialRecord;
    return typeof v.trial === 'string' && (TRIAL_OUTCOMES as readonly string[]).includes(v.outcome) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Records a run folder's trial folders hold that its `trials.jsonl` lacks (marked `recovered`). */
export function unrecordedTrials(runDir: string, recorded: readonly Pick<TrialRecord, 'trial'>[]): TrialRecord[] {
  const trialsDir = path.join(runDir, 'trials');
  if (!fs.existsSync(trialsDir)) return [];
  const have = new Set(recorded.map((r) => r.trial));
  const out: TrialRecord[] = [];
  for (const name of fs.readdirSync(trialsDir).sort()) {
    if (have.has(name)) continue;
    const r = readRecordFile(path.join(trialsDir, name, RECORD_FILE));
    if (r && !have.has(r.trial)) out.push({ ...r, recovered: true });
  }
  return out;
}

function recordedIds(file: string): { trial: string }[] {
  if (!fs.existsSync(file)) return [];
  const ids: { trial: string }[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    try {
      const v = JSON.parse(line) as { trial?: unknown };
      if (typeof v.trial === 'string') ids.push({ trial: v.trial });
    } catch { /* a torn or foreign line */ }
  }
  return ids;
}

/**
 * Appends the unrecorded verdicts of runs that are over (finished, or their owner is gone) under a
 * results folder. Returns how many records were recovered. A run still going is left to its owner.
 */
export function recoverRuns(resultsDir: string, isLive: (params: RunParameters | undefined, runDir: string) => boolean): number {
  if (!fs.existsSync(resultsDir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(resultsDir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = path.join(resultsDir, e.name);
    const file = path.join(dir, TRIALS_FILE);
    if (!fs.existsSync(file)) continue;
    let params: RunParameters | undefined;
    try { params = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE), 'utf8')) as RunParameters; } catch { params = undefined; }
    if (isLive(params, dir)) continue;
    const missing = unrecordedTrials(dir, recordedIds(file));
    if (!missing.length) continue;
    // A torn last line (the killed writer) is cut first: it must neither swallow the first recovered
    // record nor stay behind as a damaged line in the middle of the ledger.
    repairTrialsFile(file);
    const fd = fs.openSync(file, 'a');
    try {
      fs.writeSync(fd, missing.map((r) => JSON.stringify(r)).join('\n') + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    n += missing.length;
  }
  return n;
}
