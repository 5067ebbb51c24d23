import fs from 'node:fs';
import path from 'node:path';
import { isHarborJob, readHarborJob } from '../imports/harbor';
import { isTb1Run, readTb1Run } from '../imports/tb1';
import { readJson, subdirs } from '../imports/json';
import { RUN_FILE, TRIALS_FILE, readRun, type RunParameters } from '../results/store';
import { brokenFromValidateJson, brokenFromValidationTrials } from './broken';
import type { RecordSet } from './fromRecords';

export type ResultsKind = 'run' | 'results-root' | 'harbor-job' | 'harbor-jobs' | 'tb1-run' | 'tb1-runs' | 'validate-json';

export interface LoadedResults {
  /** Rollout trials, one set per run / job. */
  readonly sets: RecordSet[];
  /** Broken tasks from validate runs (or validate JSON) found among the inputs. */
  readonly broken: Map<string, string>;
  /** What each input was read as. */
  readonly inputs: { readonly path: string; readonly kind: ResultsKind }[];
  /** Torn or foreign lines skipped, folders that held nothing readable. */
  readonly warnings: string[];
}

const isRunDir = (d: string): boolean => fs.existsSync(path.join(d, TRIALS_FILE)) || fs.existsSync(path.join(d, RUN_FILE));

/** What a results path is: a run folder, a results folder of runs, a Harbor job (or jobs folder), a TB1 run (or runs folder). */
export function detectResults(p: string): ResultsKind | undefined {
  if (!fs.existsSync(p)) return undefined;
  if (fs.statSync(p).isFile()) {
    if (p.endsWith('.jsonl')) return 'run';
    const v = readJson(p);
    return typeof v === 'object' && v !== null && Array.isArray((v as { tasks?: unknown }).tasks) ? 'validate-json' : undefined;
  }
  if (isRunDir(p)) return 'run';
  const workspaceRuns = path.join(p, '.taskwright', 'runs');
  if (fs.existsSync(workspaceRuns)) return 'results-root';
  if (isTb1Run(p)) return 'tb1-run';
  if (isHarborJob(p)) return 'harbor-job';
  const kids = subdirs(p).map((d) => path.join(p, d));
  if (kids.some(isRunDir)) return 'results-root';
  if (kids.some(isHarborJob)) return 'harbor-jobs';
  if (kids.some(isTb1Run)) return 'tb1-runs';
  return undefined;
}

function loadRun(dir: string, out: LoadedResults): void {
  const { trials, skipped, params } = readRun(dir);
  const where = dir.endsWith('.jsonl') ? path.dirname(dir) : dir;
  if (skipped > 0) out.warnings.push(`${path.join(where, TRIALS_FILE)}: skipped ${skipped} unreadable line(s) (a torn last line is normal after a kill)`);
  const p: RunParameters | undefined = params;
  if (p?.kind === 'validate') {
    for (const [k, v] of brokenFromValidationTrials(trials)) out.broken.set(k, v);
    return;
  }
  out.sets.push({
    source: where,
    records: trials,
    finished: p === undefined || p.finishedAt !== undefined,
    ...(p?.attempts !== undefined ? { expectedAttempts: p.attempts } : {}),
    ...(p?.retries !== undefined ? { retries: p.retries } : {}),
  });
}

/** Loads every results path given to `taskwright band` (or the editor's import), detecting each kind. */
export function loadResults(paths: readonly string[]): LoadedResults {
  const out: LoadedResults = { sets: [], broken: new Map(), inputs: [], warnings: [] };
  for (const raw of paths) {
    const p = path.resolve(raw);
    const kind = detectResults(p);
    if (!kind) {
      out.warnings.push(`${raw}: not a run folder, results folder, Harbor job or TB1 run`);
      continue;
    }
    out.inputs.push({ path: p, kind });
    switch (kind) {
      case 'run': loadRun(p, out); break;
      case 'results-root': {
        const root = fs.existsSync(path.join(p, '.taskwright', 'runs')) ? path.join(p, '.taskwright', 'runs') : p;
        for (const d of subdirs(root)) if (isRunDir(path.join(root, d))) loadRun(path.join(root, d), out);
        break;
      }
      case 'harbor-job': out.sets.push(readHarborJob(p)); break;
      case 'harbor-jobs': for (const d of subdirs(p)) if (isHarborJob(path.join(p, d))) out.sets.push(readHarborJob(path.join(p, d))); break;
      case 'tb1-run': out.sets.push(readTb1Run(p)); break;
      case 'tb1-runs': for (const d of subdirs(p)) if (isTb1Run(path.join(p, d))) out.sets.push(readTb1Run(path.join(p, d))); break;
      case 'validate-json': for (const [k, v] of brokenFromValidateJson(readJson(p))) out.broken.set(k, v); break;
    }
  }
  return out;
}
