import fs from 'node:fs';
import path from 'node:path';
import { RECORD_FILE, readRecordFile } from '../results/recover';
import type { TrialRecord } from '../results/trial';
import { isObject, num, readLog, readSmall, readVerifier, splitCuts, str } from './files';
import type { TrialHeader, TrialStep, TrialView } from './model';

/** Written by the terminal agent (src/core/agents/terminal.ts), one JSON object a line. */
export const TRAJECTORY_JSONL = 'trajectory.jsonl';

/** One line of `trajectory.jsonl`, as far as the viewer and the ATIF export read it. */
export type TrajectoryEntry = Record<string, unknown> & { readonly type: string };

/** The lines of a `trajectory.jsonl` that parse (a torn last line is counted, not thrown). */
export function readTrajectoryLines(text: string): { entries: TrajectoryEntry[]; skipped: number } {
  const entries: TrajectoryEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (isObject(v) && typeof v.type === 'string') entries.push(v as TrajectoryEntry);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** The agent appends "[exit code N]" (and the timeout) to what the model sees; the viewer shows them apart. */
function stripExitLine(output: string): string {
  return output.replace(/\n?\[exit code -?\d+\]( \(timed out[^)\n]*\))?\s*$/, '');
}

/**
 * Steps from the terminal agent's entries: one per command, tool error or nudge, each carrying the
 * text and reasoning of the model turn that asked for it (a turn with several calls gives them to its
 * first step); a turn that called no command (the final submit) is a message step of its own.
 */
export function stepsFromEntries(entries: readonly TrajectoryEntry[]): { steps: TrialStep[]; end?: TrajectoryEntry; start?: TrajectoryEntry } {
  const steps: TrialStep[] = [];
  let pending: { message?: string; reasoning?: string; at?: string; used: boolean } | undefined;
  let end: TrajectoryEntry | undefined;
  let start: TrajectoryEntry | undefined;
  const push = (s: Omit<TrialStep, 'index'>): void => {
    steps.push({ index: steps.length + 1, ...s });
  };
  const flush = (): void => {
    if (pending && !pending.used && (pending.message || pending.reasoning)) {
      push({ kind: 'message', ...(pending.at ? { at: pending.at } : {}), ...(pending.message ? { message: pending.message } : {}), ...(pending.reasoning ? { reasoning: pending.reasoning } : {}) });
    }
    pending = undefined;
  };
  const turnText = (): Pick<TrialStep, 'message' | 'reasoning'> => {
    if (!pending || pending.used) return {};
    pending.used = true;
    return { ...(pending.message ? { message: pending.message } : {}), ...(pending.reasoning ? { reasoning: pending.reasoning } : {}) };
  };
  for (const e of entries) {
    const at = str(e.t);
    const when = at ? { at } : {};
    switch (e.type) {
      case 'start':
        start = e;
        break;
      case 'model': {
        flush();
        const message = str(e.text)?.trim();
        const reasoning = str(e.reasoning)?.trim();
        pending = { ...(message ? { message } : {}), ...(reasoning ? { reasoning } : {}), ...when, used: false };
        break;
      }
      case 'bash': {
        const exitCode = num(e.exitCode);
        const duration = num(e.durationMs);
        push({
          kind: 'command', ...when, tool: 'bash', command: str(e.command) ?? '', exitCode: exitCode ?? null,
          ...(e.timedOut === true ? { timedOut: true } : {}), ...(duration !== undefined ? { durationMs: duration } : {}),
          output: splitCuts(stripExitLine(str(e.output) ?? '')), ...turnText(),
        });
        break;
      }
      case 'tool-error':
        push({ kind: 'tool-error', ...when, ...(str(e.tool) ? { tool: str(e.tool) } : {}), error: str(e.error) ?? 'tool error', ...turnText() });
        break;
      case 'nudge':
        push({ kind: 'nudge', ...when, ...turnText() });
        break;
      case 'end':
        flush();
        end = e;
        break;
      default:
        break;
    }
  }
  flush();
  return { steps, ...(end ? { end } : {}), ...(start ? { start } : {}) };
}

function headerOf(record: TrialRecord | undefined, dir: string, end: TrajectoryEntry | undefined, start: TrajectoryEntry | undefined): TrialHeader {
  const usage = isObject(end?.usage) ? end.usage : undefined;
  const endUsage = usage && num(usage.input) !== undefined && num(usage.output) !== undefined ? { input: num(usage.input)!, output: num(usage.output)! } : undefined;
  const model = record?.model ?? str(start?.model);
  const u = record?.usage ?? endUsage;
  const cost = record?.costUsd ?? num(end?.costUsd);
  const steps = record?.steps ?? num(end?.steps);
  const note = str(end?.note);
  return {
    trial: record?.trial ?? path.basename(dir),
    task: record?.task ?? '',
    taskId: record?.taskId ?? (record ? path.basename(record.task) : path.basename(dir)),
    agent: record?.agent ?? str(start?.agent) ?? 'unknown',
    ...(model ? { model } : {}),
    ...(record ? { attempt: record.attempt, outcome: record.outcome, durations: record.durations, startedAt: record.startedAt } : {}),
    ...(record?.try ? { try: record.try } : {}),
    reward: record?.reward ?? null,
    ...(u ? { usage: u } : {}),
    ...(cost !== undefined ? { costUsd: cost } : {}),
    ...(steps !== undefined ? { steps } : {}),
    ...(record?.infra ? { infra: record.infra } : {}),
    ...(record?.error ?? str(end?.error) ? { error: record?.error ?? str(end?.error) } : {}),
    ...(note ? { agentEnd: note } : {}),
  };
}

/**
 * One Taskwright trial folder (`.taskwright/runs/<run>/trials/<trial>`) as the viewer shows it. The
 * record comes from the run's `trials.jsonl` when the caller has it, else from the folder's own
 * `record.json`.
 */
export function readTaskwrightTrial(dir: string, given?: TrialRecord): TrialView {
  const root = path.resolve(dir);
  const record = given ?? readRecordFile(path.join(root, RECORD_FILE));
  const notes: string[] = [];
  let steps: TrialStep[] = [];
  let end: TrajectoryEntry | undefined;
  let start: TrajectoryEntry | undefined;
  let trajectoryFile: string | undefined;
  const tj = path.join(root, TRAJECTORY_JSONL);
  if (fs.existsSync(tj)) {
    trajectoryFile = TRAJECTORY_JSONL;
    const { entries, skipped } = readTrajectoryLines(fs.readFileSync(tj, 'utf8'));
    if (skipped) notes.push(`${skipped} line(s) of ${TRAJECTORY_JSONL} could not be read`);
    ({ steps, end, start } = stepsFromEntries(entries));
  }
  if (!record) notes.push(`no record for this trial (${RECORD_FILE} is missing): header from the trajectory only`);
  const rewards = ['reward.txt', 'reward.json'].flatMap((f) => {
    const text = readSmall(root, f);
    return text === undefined ? [] : [{ file: f, text: text.trim() }];
  });
  const verifier = readVerifier(root, 'verifier.stdout', 'verifier.stderr', 'verdict.txt');
  const build = readLog(root, 'build.log');
  const agentLog = readLog(root, 'agent.log');
  return {
    source: 'taskwright', dir: root, header: headerOf(record, root, end, start),
    ...(trajectoryFile ? { trajectoryFile } : {}), steps,
    ...(verifier ? { verifier } : {}), ...(build ? { build } : {}), ...(agentLog ? { agentLog } : {}),
    rewards, notes,
  };
}
