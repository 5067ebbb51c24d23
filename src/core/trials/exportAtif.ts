import fs from 'node:fs';
import path from 'node:path';
import { trialLogsDir } from '../results/runs';
import { readRun } from '../results/store';
import type { TrialRecord } from '../results/trial';
import { toAtif, validateAtif } from './atif';
import { readTrajectoryLines, TRAJECTORY_JSONL } from './taskwright';

export interface AtifExportResult {
  /** Files written, absolute. */
  readonly written: readonly string[];
  /** Trials with nothing to export (an oracle or nop wrote no trajectory), with why. */
  readonly skipped: readonly { readonly trial: string; readonly reason: string }[];
}

export interface AtifExportOptions {
  /** Taskwright's version (ATIF's `agent.version` names the harness that ran the agent). */
  readonly version: string;
  /** The instruction of a task path as the run recorded it, when the task folder is found. */
  readonly instructionOf?: (task: string) => Promise<string | undefined>;
}

/** A file name from a trial id: what a record holds is data, never a path. */
function fileNameOf(trial: string): string {
  return `${trial.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || 'trial'}.json`;
}

/**
 * Writes one ATIF trajectory per trial of a Taskwright run folder (`<out>/<trial>.json`), each
 * checked against the ATIF shape before it is written (a failure is a bug here, so it throws).
 */
export async function exportRunAtif(runDir: string, outDir: string, opts: AtifExportOptions): Promise<AtifExportResult> {
  const { trials } = readRun(runDir);
  const written: string[] = [];
  const skipped: { trial: string; reason: string }[] = [];
  fs.mkdirSync(outDir, { recursive: true });
  const instructions = new Map<string, string | undefined>();
  for (const t of trials as readonly TrialRecord[]) {
    const file = path.join(trialLogsDir(runDir, t), TRAJECTORY_JSONL);
    if (!fs.existsSync(file)) {
      skipped.push({ trial: t.trial, reason: `${t.agent} wrote no ${TRAJECTORY_JSONL}` });
      continue;
    }
    if (!instructions.has(t.task)) instructions.set(t.task, await opts.instructionOf?.(t.task));
    const instruction = instructions.get(t.task);
    const { entries } = readTrajectoryLines(fs.readFileSync(file, 'utf8'));
    const atif = toAtif({
      trial: t.trial, agent: t.agent, agentVersion: opts.version, ...(t.model ? { model: t.model } : {}),
      ...(instruction !== undefined ? { instruction } : {}), entries, outcome: t.outcome, reward: t.reward,
    });
    const errors = validateAtif(JSON.parse(JSON.stringify(atif)) as unknown);
    if (errors.length) throw new Error(`the ATIF written for ${t.trial} is not valid: ${errors.join('; ')}`);
    const dest = path.join(outDir, fileNameOf(t.trial));
    fs.writeFileSync(dest, `${JSON.stringify(atif, null, 2)}\n`);
    written.push(dest);
  }
  return { written, skipped };
}
