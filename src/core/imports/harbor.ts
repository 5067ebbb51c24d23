import fs from 'node:fs';
import path from 'node:path';
import type { RecordSet } from '../band/fromRecords';
import type { InfraKind, TrialOutcome, TrialRecord } from '../results/trial';
import { canonicalModel, isObject, num, obj, readJson, secondsBetween, str, subdirs, type JsonObject } from './json';

/**
 * Harbor job folders: `jobs/<job>/config.json` (JobConfig: `n_attempts`, agents…), `jobs/<job>/result.json`
 * (written at the end), and one folder per trial, `<task-name[:32]>__<shortuuid>/`, holding `config.json`
 * (TrialConfig) from the start and `result.json` (TrialResult) once it ends. Harbor deletes a trial's
 * folder before retrying it, so each trial folder is one attempt's last try.
 */

interface Mapped {
  readonly outcome: TrialOutcome;
  readonly infraKind?: InfraKind;
}

/**
 * Harbor exception types (`exception_info.exception_type`, the Python class name) → outcome.
 * Agent and verifier faults are the policy's failed attempt; anything else the harness raised
 * (environment start, agent install, copies, Docker) is infrastructure and leaves the denominator.
 */
export const HARBOR_EXCEPTIONS: Readonly<Record<string, Mapped>> = {
  AgentTimeoutError: { outcome: 'agent-timeout' },
  NonZeroAgentExitCodeError: { outcome: 'failed' },
  VerifierTimeoutError: { outcome: 'verifier-timeout' },
  RewardFileNotFoundError: { outcome: 'verifier-error' },
  RewardFileEmptyError: { outcome: 'verifier-error' },
  VerifierOutputParseError: { outcome: 'verifier-error' },
  CancelledError: { outcome: 'cancelled' },
  KeyboardInterrupt: { outcome: 'cancelled' },
  EnvironmentStartTimeoutError: { outcome: 'infra-error', infraKind: 'container-start' },
  AgentSetupTimeoutError: { outcome: 'infra-error', infraKind: 'harness-timeout' },
  AddTestsDirError: { outcome: 'infra-error', infraKind: 'copy-failed' },
  DownloadVerifierDirError: { outcome: 'infra-error', infraKind: 'copy-failed' },
};

/** A reward at (or within float noise of) 1 is a pass, as in the sandbox runner. */
const PASS = 1 - 1e-9;

/** The trial's reward: `rewards.reward`, else the only reward, else the smallest (every key must pass). */
export function harborReward(rewards: JsonObject | undefined): number | null {
  if (!rewards) return null;
  const main = num(rewards, 'reward');
  if (main !== undefined) return main;
  const vals = Object.values(rewards).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return vals.length ? Math.min(...vals) : null;
}

function isTrialResult(v: unknown): v is JsonObject {
  return isObject(v) && typeof v.task_name === 'string' && typeof v.trial_name === 'string';
}

/** A folder is a Harbor job when one of its sub-folders holds a trial `config.json`/`result.json`. */
export function isHarborJob(dir: string): boolean {
  if (fs.existsSync(path.join(dir, 'trials.jsonl'))) return false;
  return subdirs(dir).some((d) => {
    const r = readJson(path.join(dir, d, 'result.json'));
    if (isTrialResult(r)) return true;
    const c = readJson(path.join(dir, d, 'config.json'));
    return isObject(c) && isObject(c.task) && typeof c.trial_name === 'string';
  });
}

function taskPathOf(result: JsonObject | undefined, config: JsonObject | undefined): string | undefined {
  const fromId = str(obj(result, 'task_id'), 'path');
  const fromConfig = str(obj(config, 'task'), 'path') ?? str(obj(obj(result, 'config'), 'task'), 'path');
  return fromId ?? fromConfig;
}

function modelOf(result: JsonObject, config: JsonObject | undefined): string | undefined {
  const info = obj(obj(result, 'agent_info'), 'model_info');
  return canonicalModel(str(info, 'name')) ?? canonicalModel(str(obj(config ?? obj(result, 'config'), 'agent'), 'model_name'));
}

function toRecord(trialDir: string, jobDir: string, result: JsonObject, attempt: number): TrialRecord {
  const exception = obj(result, 'exception_info');
  const excType = str(exception, 'exception_type');
  const reward = harborReward(obj(obj(result, 'verifier_result'), 'rewards'));
  let outcome: TrialOutcome;
  let infra: TrialRecord['infra'];
  if (excType !== undefined) {
    // An exception type this table does not know may be the harness's or the agent's: shown apart as
    // possibly infra (never dropped from the counts, never a plain failure), with its name kept.
    const mapped = HARBOR_EXCEPTIONS[excType] ?? { outcome: 'infra-error', infraKind: 'possibly-infra' };
    outcome = mapped.outcome;
    if (mapped.outcome === 'infra-error') {
      const known = excType in HARBOR_EXCEPTIONS ? '' : 'unknown exception type ';
      infra = { kind: mapped.infraKind ?? 'other', message: `${known}${excType}: ${str(exception, 'exception_message') ?? ''}`.trim() };
    }
  } else if (reward === null) {
    outcome = 'verifier-error';
  } else {
    outcome = reward >= PASS ? 'passed' : 'failed';
  }
  const agentInfo = obj(result, 'agent_info');
  const agentResult = obj(result, 'agent_result');
  const model = modelOf(result, undefined);
  const input = num(agentResult, 'n_input_tokens');
  const output = num(agentResult, 'n_output_tokens');
  const cache = num(agentResult, 'n_cache_tokens');
  const cost = num(agentResult, 'cost_usd');
  const phase = (key: string): number | null => {
    const t = obj(result, key);
    return secondsBetween(t?.started_at, t?.finished_at);
  };
  const taskName = str(result, 'task_name')!;
  return {
    trial: str(result, 'trial_name')!,
    task: taskPathOf(result, undefined) ?? taskName,
    taskId: taskName,
    agent: `harbor:${str(agentInfo, 'name') ?? 'unknown'}`,
    ...(model ? { model } : {}),
    attempt,
    outcome,
    reward: outcome === 'infra-error' || outcome === 'cancelled' ? null : reward,
    startedAt: str(result, 'started_at') ?? '',
    durations: { build: phase('environment_setup'), agent: phase('agent_execution'), verifier: phase('verifier') },
    ...(infra ? { infra } : {}),
    logs: path.relative(jobDir, trialDir),
    ...(excType !== undefined && outcome !== 'infra-error' ? { error: `${excType}: ${str(exception, 'exception_message') ?? ''}`.trim() } : {}),
    ...(input !== undefined && output !== undefined ? { usage: { input, output, ...(cache !== undefined ? { cacheRead: cache } : {}) } } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
  };
}

/** Reads one Harbor job folder into trial records; trial folders without a result mark their task pending. */
export function readHarborJob(jobDir: string): RecordSet {
  const jobConfig = readJson(path.join(jobDir, 'config.json'));
  const jobResult = readJson(path.join(jobDir, 'result.json'));
  const finished = isObject(jobResult) && typeof jobResult.finished_at === 'string';
  const found: { dir: string; result: JsonObject }[] = [];
  const pendingTasks = new Set<string>();
  for (const d of subdirs(jobDir)) {
    const trialDir = path.join(jobDir, d);
    const result = readJson(path.join(trialDir, 'result.json'));
    if (isTrialResult(result) && (result.finished_at !== null || finished)) {
      found.push({ dir: trialDir, result });
      continue;
    }
    const config = readJson(path.join(trialDir, 'config.json'));
    if (isObject(config) && isObject(config.task) && !finished) {
      const p = taskPathOf(undefined, config);
      const name = isTrialResult(result) ? str(result, 'task_name') : undefined;
      if (name) pendingTasks.add(name);
      if (p) { pendingTasks.add(p); pendingTasks.add(path.basename(p)); }
    }
  }
  // Harbor has no attempt numbers: number each task's trials by start time.
  found.sort((a, b) => (str(a.result, 'started_at') ?? '').localeCompare(str(b.result, 'started_at') ?? '') || a.dir.localeCompare(b.dir));
  const seen = new Map<string, number>();
  const records = found.map(({ dir, result }) => {
    const name = str(result, 'task_name')!;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return toRecord(dir, jobDir, result, n);
  });
  const nAttempts = num(isObject(jobConfig) ? jobConfig : undefined, 'n_attempts');
  return {
    source: jobDir,
    records,
    finished,
    ...(!finished && nAttempts !== undefined ? { expectedAttempts: nAttempts } : {}),
    ...(pendingTasks.size ? { pendingTasks } : {}),
  };
}
