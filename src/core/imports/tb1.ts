import fs from 'node:fs';
import path from 'node:path';
import type { RecordSet } from '../band/fromRecords';
import type { InfraKind, TrialOutcome, TrialRecord } from '../results/trial';
import { canonicalModel, isObject, num, readJson, secondsBetween, str, subdirs, type JsonObject } from './json';

/**
 * Terminal-Bench 1 runs: `runs/<run-id>/run_metadata.json` (RunMetadata: `agent_name`, `model_name`,
 * `n_attempts`, `end_time`…), `runs/<run-id>/results.json` (BenchmarkResults: `results` = every
 * TrialResults so far) and `runs/<run-id>/<task-id>/<trial-name>/results.json` per trial, where the
 * trial name is `<task-id>.<attempt>-of-<n>.<run-id>`.
 */

interface Mapped {
  readonly outcome: TrialOutcome;
  readonly infraKind?: InfraKind;
}

/**
 * TB1 `failure_mode` → outcome. TB1 itself counts every one of these as unresolved; here harness-side
 * modes leave the denominator. `unknown_agent_error` is raised both for an agent's crash and for a
 * harness fault (a dead container, a tmux failure), so it is `possibly-infra`: kept out of attempts,
 * shown apart — never a plain failure. `parse_error` is what TB1 reports when the pane capture it parses
 * came back empty, which happens after tests that passed: possibly infra too, not the policy's failure.
 */
export const TB1_FAILURE_MODES: Readonly<Record<string, Mapped>> = {
  agent_timeout: { outcome: 'agent-timeout' },
  test_timeout: { outcome: 'verifier-timeout' },
  parse_error: { outcome: 'infra-error', infraKind: 'possibly-infra' },
  fatal_llm_parse_error: { outcome: 'failed' },
  context_length_exceeded: { outcome: 'failed' },
  output_length_exceeded: { outcome: 'failed' },
  unknown_agent_error: { outcome: 'infra-error', infraKind: 'possibly-infra' },
  unknown: { outcome: 'infra-error', infraKind: 'possibly-infra' },
  agent_installation_failed: { outcome: 'infra-error', infraKind: 'other' },
  setup_timeout: { outcome: 'infra-error', infraKind: 'harness-timeout' },
};

export function isTb1Run(dir: string): boolean {
  if (fs.existsSync(path.join(dir, 'run_metadata.json')) || fs.existsSync(path.join(dir, 'tb.lock'))) return true;
  const r = readJson(path.join(dir, 'results.json'));
  return isObject(r) && Array.isArray(r.results);
}

function isTrialResults(v: unknown): v is JsonObject {
  return isObject(v) && typeof v.trial_name === 'string' && typeof v.task_id === 'string';
}

/** Attempt number from `<task>.<attempt>-of-<n>.<run-id>`; undefined for other names. */
export function tb1Attempt(trialName: string, taskId: string): number | undefined {
  if (!trialName.startsWith(`${taskId}.`)) return undefined;
  const m = /^(\d+)-of-(\d+)(\.|$)/.exec(trialName.slice(taskId.length + 1));
  return m ? Number(m[1]) : undefined;
}

export function classifyTb1(isResolved: unknown, failureMode: string | undefined): Mapped {
  const mode = failureMode ?? 'unset';
  const mapped = TB1_FAILURE_MODES[mode];
  if (mapped) return mapped;
  if (isResolved === true) return { outcome: 'passed' };
  if (isResolved === false) return { outcome: 'failed' };
  // Never graded and no mode set: the harness stopped before the tests — not the agent's verdict.
  return mode === 'unset' ? { outcome: 'infra-error', infraKind: 'possibly-infra' } : { outcome: 'verifier-error' };
}

function toRecord(r: JsonObject, runDir: string, agent: string, model: string | undefined, fallbackAttempt: number): TrialRecord {
  const taskId = str(r, 'task_id')!;
  const trial = str(r, 'trial_name')!;
  const mode = str(r, 'failure_mode');
  const { outcome, infraKind } = classifyTb1(r.is_resolved, mode);
  const input = num(r, 'total_input_tokens');
  const output = num(r, 'total_output_tokens');
  const trialDir = path.join(runDir, taskId, trial);
  return {
    trial,
    task: taskId,
    taskId,
    agent,
    ...(model ? { model } : {}),
    attempt: tb1Attempt(trial, taskId) ?? fallbackAttempt,
    outcome,
    reward: outcome === 'passed' ? 1 : outcome === 'failed' || outcome === 'agent-timeout' ? (r.is_resolved === true ? 1 : 0) : null,
    startedAt: str(r, 'trial_started_at') ?? '',
    durations: {
      build: null,
      agent: secondsBetween(r.agent_started_at, r.agent_ended_at),
      verifier: secondsBetween(r.test_started_at, r.test_ended_at),
    },
    ...(outcome === 'infra-error' ? { infra: { kind: infraKind ?? 'other', message: `TB1 failure_mode ${mode ?? 'unset'}` } } : {}),
    logs: fs.existsSync(trialDir) ? path.relative(runDir, trialDir) : '',
    ...(outcome !== 'infra-error' && mode && mode !== 'none' && mode !== 'unset' ? { error: `TB1 failure_mode ${mode}` } : {}),
    ...(input !== undefined && output !== undefined ? { usage: { input, output } } : {}),
  };
}

/** Reads a TB1 run folder: the run's `results.json` plus any per-trial `results.json` it does not list yet. */
export function readTb1Run(runDir: string): RecordSet {
  const meta = readJson(path.join(runDir, 'run_metadata.json'));
  const m = isObject(meta) ? meta : undefined;
  const agent = `tb1:${str(m, 'agent_name') ?? 'unknown'}`;
  const model = canonicalModel(str(m, 'model_name'));
  const byTrial = new Map<string, JsonObject>();
  const run = readJson(path.join(runDir, 'results.json'));
  if (isObject(run) && Array.isArray(run.results)) {
    for (const r of run.results) if (isTrialResults(r)) byTrial.set(str(r, 'trial_name')!, r);
  }
  for (const task of subdirs(runDir)) {
    for (const trial of subdirs(path.join(runDir, task))) {
      if (byTrial.has(trial)) continue;
      const r = readJson(path.join(runDir, task, trial, 'results.json'));
      if (isTrialResults(r)) byTrial.set(trial, r);
    }
  }
  const counters = new Map<string, number>();
  const records = [...byTrial.values()]
    .sort((a, b) => str(a, 'trial_name')!.localeCompare(str(b, 'trial_name')!))
    .map((r) => {
      const id = str(r, 'task_id')!;
      const n = (counters.get(id) ?? 0) + 1;
      counters.set(id, n);
      return toRecord(r, runDir, agent, model, n);
    });
  const finished = typeof m?.end_time === 'string';
  const nAttempts = num(m, 'n_attempts');
  return { source: runDir, records, finished, ...(nAttempts !== undefined ? { expectedAttempts: nAttempts } : {}) };
}
