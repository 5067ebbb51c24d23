import fs from 'node:fs';
import path from 'node:path';
import type { Finding, Severity } from '../model/finding';
import type { CheckResult, TaskValidation, ValidationVerdict } from '../validate/types';
import { guardWrite } from './diskFull';
import { listRuns, RUN_FILE, type RunParameters } from './store';

/**
 * A validation run's verdicts, kept beside its trials (`<run>/validation.json`) so that whoever reads
 * the store later (the editor after a reload, a CI step) sees what the validation concluded, not only
 * the trials it ran. The trials themselves stay in `trials.jsonl`.
 */
export const VALIDATION_FILE = 'validation.json';

export type StoredValidation = Omit<TaskValidation, 'trials'>;

const VERDICTS: readonly ValidationVerdict[] = ['valid', 'invalid', 'misaligned', 'brittle', 'infra-error'];
const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** Writes the verdicts of a validation run (atomically: a reader never sees half a file). */
export function writeValidations(runDir: string, results: readonly TaskValidation[]): void {
  const file = path.join(runDir, VALIDATION_FILE);
  const tasks: StoredValidation[] = results.map(({ trials: _trials, ...rest }) => rest);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    guardWrite(file, () => fs.writeFileSync(tmp, `${JSON.stringify({ version: 1, tasks }, null, 2)}\n`));
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

function isFinding(v: unknown): v is Finding {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Record<string, unknown>;
  return typeof f.rule === 'string' && typeof f.message === 'string' && (SEVERITIES as readonly unknown[]).includes(f.severity)
    && (f.file === undefined || typeof f.file === 'string');
}

function isCheck(v: unknown): v is CheckResult {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return typeof c.name === 'string' && typeof c.status === 'string';
}

/** A file written by another version, or by hand, is data: only well-formed entries are kept. */
function parseStored(v: unknown): StoredValidation | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const t = v as Record<string, unknown>;
  if (typeof t.path !== 'string' || typeof t.id !== 'string' || !(VERDICTS as readonly unknown[]).includes(t.verdict)) return undefined;
  if (!Array.isArray(t.findings) || !Array.isArray(t.checks)) return undefined;
  return { ...(t as unknown as StoredValidation), findings: t.findings.filter(isFinding), checks: t.checks.filter(isCheck) };
}

/** The verdicts of one validation run, or undefined when it has none (unfinished, or older than this file). */
export function readValidations(runDir: string): StoredValidation[] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(runDir, VALIDATION_FILE), 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  const tasks = (raw as { tasks?: unknown }).tasks;
  if (!Array.isArray(tasks)) return undefined;
  return tasks.map(parseStored).filter((t): t is StoredValidation => t !== undefined);
}

export interface LatestValidation {
  readonly runDir: string;
  readonly startedAt: string;
  readonly validation: StoredValidation;
}

/** Each task's latest validation in a results folder, keyed by the task path as the run recorded it. */
export function latestValidations(resultsDir: string): Map<string, LatestValidation> {
  const out = new Map<string, LatestValidation>();
  for (const runDir of listRunsWithValidations(resultsDir)) {
    let params: Partial<RunParameters> = {};
    try {
      params = JSON.parse(fs.readFileSync(path.join(runDir, RUN_FILE), 'utf8')) as RunParameters;
    } catch {
      // A run without run.json is still read; it sorts as the oldest.
    }
    const startedAt = typeof params.startedAt === 'string' ? params.startedAt : '';
    for (const validation of readValidations(runDir) ?? []) {
      const had = out.get(validation.path);
      if (!had || had.startedAt < startedAt) out.set(validation.path, { runDir, startedAt, validation });
    }
  }
  return out;
}

function listRunsWithValidations(resultsDir: string): string[] {
  return listRuns(resultsDir).filter((d) => fs.existsSync(path.join(d, VALIDATION_FILE)));
}
