import fs from 'node:fs';
import path from 'node:path';
import { readHarborJob } from '../imports/harbor';
import type { TrialRecord } from '../results/trial';
import { stepsFromAtif, validateAtif } from './atif';
import { isObject, readJson, readLog, readSmall, readVerifier, str, textOf } from './files';
import type { LogView, TrialHeader, TrialView } from './model';
import { readTaskwrightTrial } from './taskwright';

/** Where Harbor writes a trial's ATIF trajectory (relative to its trial folder). */
export const HARBOR_TRAJECTORY = 'agent/trajectory.json';

/** Whether a folder is a Harbor trial (its own result.json, or an agent/trajectory.json). */
export function isHarborTrial(dir: string): boolean {
  return fs.existsSync(path.join(dir, HARBOR_TRAJECTORY)) || (fs.existsSync(path.join(dir, 'result.json')) && fs.existsSync(path.join(dir, 'config.json')));
}

function headerFromResult(dir: string, result: unknown, atif: unknown): TrialHeader {
  const r = isObject(result) ? result : {};
  const cfg = isObject(r.config) && isObject(r.config.agent) ? r.config.agent : {};
  const agent = isObject(atif) && isObject(atif.agent) ? atif.agent : {};
  const model = str(cfg.model_name) ?? str(agent.model_name);
  const task = str(r.task_name) ?? path.basename(dir).split('__')[0] ?? path.basename(dir);
  return { trial: str(r.trial_name) ?? path.basename(dir), task, taskId: task, agent: str(cfg.name) ?? str(agent.name) ?? 'unknown', ...(model ? { model } : {}), reward: null };
}

/** The importer's record of a trial read alone (a restored viewer): its job is the folder above it. */
function importedRecord(root: string): TrialRecord | undefined {
  try {
    return readHarborJob(path.dirname(root)).records.find((r) => r.trial === path.basename(root));
  } catch {
    return undefined;
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').slice(-1)[0] ?? '';
}

/**
 * One Harbor trial folder (`jobs/<job>/<task>__<id>`) as the viewer shows it: the ATIF trajectory,
 * the verifier's `test-stdout.txt` and reward files, the exception and the trial log. The header comes
 * from the importer's record when the caller has it (the same one the Runs view and the band count).
 */
export function readHarborTrial(dir: string, given?: TrialRecord): TrialView {
  const root = path.resolve(dir);
  const record = given ?? importedRecord(root);
  const notes: string[] = [];
  const atif = readJson(root, HARBOR_TRAJECTORY);
  let steps: TrialView['steps'] = [];
  let instruction: string | undefined;
  let usage: TrialHeader['usage'];
  let costUsd: number | undefined;
  if (atif !== undefined) {
    const problems = validateAtif(atif);
    if (problems.length) notes.push(`${HARBOR_TRAJECTORY} is not quite ATIF (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}): shown as far as it reads`);
    const read = stepsFromAtif(atif);
    steps = read.steps;
    instruction = read.instruction;
    usage = read.usage;
    costUsd = read.costUsd;
  } else if (fs.existsSync(path.join(root, HARBOR_TRAJECTORY))) {
    notes.push(`${HARBOR_TRAJECTORY} could not be read as JSON`);
  }
  const base: TrialHeader = record
    ? {
        trial: record.trial, task: record.task, taskId: record.taskId ?? path.basename(record.task), agent: record.agent,
        ...(record.model ? { model: record.model } : {}), attempt: record.attempt, outcome: record.outcome, reward: record.reward,
        durations: record.durations, startedAt: record.startedAt,
        ...(record.infra ? { infra: record.infra } : {}), ...(record.error ? { error: record.error } : {}),
        ...(record.usage ? { usage: record.usage } : {}), ...(record.costUsd !== undefined ? { costUsd: record.costUsd } : {}),
      }
    : headerFromResult(root, readJson(root, 'result.json'), atif);
  const header: TrialHeader = { ...base, ...(!base.usage && usage ? { usage } : {}), ...(base.costUsd === undefined && costUsd !== undefined ? { costUsd } : {}) };
  const rewards = ['verifier/reward.txt', 'verifier/reward.json'].flatMap((f) => {
    const text = readSmall(root, f);
    return text === undefined ? [] : [{ file: f, text: text.trim() }];
  });
  const verifier = readVerifier(root, 'verifier/test-stdout.txt', fs.existsSync(path.join(root, 'verifier/test-stderr.txt')) ? 'verifier/test-stderr.txt' : undefined);
  const exception = readLog(root, 'exception.txt');
  const log: LogView | undefined = readLog(root, 'trial.log');
  if (exception) notes.push(`Harbor recorded an exception (exception.txt): ${lastLine(textOf(exception))}`);
  return {
    source: 'harbor', dir: root, header,
    ...(instruction !== undefined ? { instruction } : {}),
    ...(atif !== undefined ? { trajectoryFile: HARBOR_TRAJECTORY } : {}),
    steps, ...(verifier ? { verifier } : {}), ...(log ? { agentLog: log } : {}), rewards, notes,
  };
}

/** A trial folder of either kind. */
export function readTrialFolder(dir: string, record?: TrialRecord): TrialView {
  return isHarborTrial(dir) ? readHarborTrial(dir, record) : readTaskwrightTrial(dir, record);
}
