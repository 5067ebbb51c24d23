import type { Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { loadTask } from '../loader/index';
import { Conversation, toolUses, type ToolUse } from '../llm/conversation';
import { repairRounds } from '../llm/repair';
import { addUsage, ZERO_USAGE, type ModelCaller, type Usage } from '../llm/request';
import type { Finding } from '../model/finding';
import type { Task } from '../model/task';
import { findingLocation, formatFinding } from '../generate/feedback';
import { renderTexts, taskTexts } from '../review/files';
import { changesOf, removeScratch, scratchCopy, unifiedDiff, type FileChange } from './changes';

export const FIX_TOOL = 'submit_fix';

/**
 * Rechecks a changed copy of the task with the checker that reported the finding (the static audit,
 * a validation in Docker, a review): every finding it reports now.
 */
export type Recheck = (task: Task, signal: AbortSignal) => Promise<readonly Finding[]>;

export interface FixOptions {
  readonly caller: ModelCaller;
  readonly recheck: Recheck;
  /** Rounds in all, the first answer included (default 3). */
  readonly rounds?: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

export interface FixResult {
  /** `fixed`: the recheck no longer reports the finding and reports nothing worse than before. */
  readonly status: 'fixed' | 'not-fixed';
  readonly finding: Finding;
  readonly changes: readonly FileChange[];
  /** Unified diff of `changes` (empty when there are none). */
  readonly diff: string;
  readonly explanation: string;
  readonly rounds: number;
  /** Why each failed round was refused. */
  readonly failures: readonly string[];
  readonly usage: Usage;
  readonly costUsd: number | null;
}

export function fixTool(): Tool {
  return {
    name: FIX_TOOL,
    description: 'Submit the smallest change to the task that removes the finding: the complete new content of every file you change (and only those).',
    input_schema: {
      type: 'object', additionalProperties: false, required: ['explanation', 'files'],
      properties: {
        explanation: { type: 'string', description: 'One or two sentences: what was wrong and what the change does.' },
        files: {
          type: 'array', minItems: 1,
          items: {
            type: 'object', additionalProperties: false, required: ['path', 'content'],
            properties: {
              path: { type: 'string', description: 'Relative to the task folder, as shown.' },
              content: { type: 'string', description: 'The whole new file, not a diff.' },
            },
          },
        },
      },
    },
  };
}

const SYSTEM = [
  'You repair terminal-agent tasks (a Docker environment, an instruction, tests that decide the reward, a reference solution).',
  'You are given the task\'s files with line numbers and one finding about it. Make the smallest change that removes the defect the finding describes, keeping the task\'s intent: do not weaken the tests, do not change what the instruction asks, do not touch unrelated lines.',
  `Answer by calling ${FIX_TOOL} once, with the complete new content of each file you change (without the line numbers). The change is checked again before anyone sees it; if the finding is still reported you get the result and another try.`,
].join('\n');

function firstRequest(task: Task, finding: Finding): string {
  const { texts, skipped } = taskTexts(task);
  return [
    `Task ${task.id} (${task.format}). Its files:`, '', renderTexts(texts, skipped), '',
    'The finding to fix (file:line, 1-based):', formatFinding(finding), '',
    `Fix it and answer with ${FIX_TOOL}.`,
  ].join('\n');
}

/** The same finding: same rule, same file (its line may move with the fix). */
export function sameFinding(a: Finding, b: Finding): boolean {
  return a.rule === b.rule && (a.file ?? '') === (b.file ?? '');
}

const key = (f: Finding): string => `${f.rule}\0${f.file ?? ''}`;

interface FixTurn {
  readonly call?: ToolUse;
  readonly truncated: boolean;
}

/**
 * Asks the model for a fix of one finding and checks it on a scratch copy of the task with the
 * checker that found it, feeding the recheck back (through the shared repair loop) until the
 * finding is gone without new errors or warnings, or the rounds run out. Never writes the task.
 */
export async function fixFinding(task: Task, finding: Finding, o: FixOptions): Promise<FixResult> {
  const conv = new Conversation(firstRequest(task, finding));
  const before = await o.recheck(task, o.signal);
  const known = new Set(before.map(key));
  let usage: Usage = ZERO_USAGE;
  let cost: number | null = 0;
  let last: { changes: FileChange[]; explanation: string } = { changes: [], explanation: '' };
  const rounds = o.rounds ?? 3;

  const outcome = await repairRounds<FixTurn, string>({
    rounds,
    ask: async (round) => {
      o.onProgress?.(round === 1 ? `asking ${o.caller.model} for a fix of ${finding.rule} at ${findingLocation(finding)}` : `round ${round}/${rounds}: asking again`);
      const a = await o.caller.send({ system: SYSTEM, tools: [fixTool()], answerTool: FIX_TOOL, singleCall: true, maxTokens: 16_000, messages: conv.messages }, o.signal);
      usage = addUsage(usage, a.usage);
      cost = cost === null || a.costUsd === undefined ? null : cost + a.costUsd;
      conv.addAssistant(a.message);
      const call = toolUses(a.message.content).find((t) => t.name === FIX_TOOL);
      return { ...(call ? { call } : {}), truncated: a.truncated };
    },
    check: async (turn) => {
      if (turn.truncated) return 'the answer was cut at max_tokens: submit only the files you change, and keep them short';
      const input = (turn.call?.input ?? {}) as { explanation?: unknown; files?: unknown };
      const files = Array.isArray(input.files) ? input.files.flatMap((f: unknown) => {
        const o2 = (f ?? {}) as Record<string, unknown>;
        return typeof o2.path === 'string' && typeof o2.content === 'string' ? [{ path: o2.path, content: o2.content }] : [];
      }) : [];
      if (!turn.call || files.length === 0) return `no files came with the answer: call ${FIX_TOOL} with the complete new content of each file you change`;
      const { changes, problems } = changesOf(task.dir, files);
      if (problems.length) return `refused: ${problems.join('; ')}`;
      if (changes.length === 0) return 'the files you sent are the same as the task\'s: nothing changed';
      last = { changes, explanation: typeof input.explanation === 'string' ? input.explanation : '' };
      o.onProgress?.(`checking the change (${changes.map((c) => c.file).join(', ')}) on a copy of the task`);
      const copy = scratchCopy(task.dir, changes);
      try {
        const after = await o.recheck(await loadTask(copy), o.signal);
        const still = after.filter((f) => sameFinding(f, finding));
        const worse = after.filter((f) => !known.has(key(f)) && f.severity !== 'info');
        if (still.length === 0 && worse.length === 0) return undefined;
        return [
          ...(still.length ? ['The finding is still reported after your change:', ...still.map(formatFinding)] : []),
          ...(worse.length ? ['Your change introduces new findings:', ...worse.map(formatFinding)] : []),
          '', `Submit a corrected change with ${FIX_TOOL}.`,
        ].join('\n');
      } finally {
        removeScratch(copy);
      }
    },
    onFailure: (why, round) => o.onProgress?.(`round ${round}: ${why.split('\n')[0]}`),
    sendBack: (turn, why) => conv.addReply((call) => call.id === turn.call?.id, why, true, FIX_TOOL),
  });
  const ok = outcome.accepted !== undefined;
  return {
    status: ok ? 'fixed' : 'not-fixed', finding, changes: last.changes, diff: unifiedDiff(last.changes), explanation: last.explanation,
    rounds: outcome.rounds, failures: outcome.failures, usage, costUsd: cost,
  };
}
