import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Message, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { sendBatch, type BatchItem, type BatchOptions } from '../llm/batch';
import { toolUses } from '../llm/conversation';
import { ZERO_USAGE, type ModelCaller, type ModelRequest, type Usage } from '../llm/request';
import type { Finding } from '../model/finding';
import type { Task } from '../model/task';
import { locateQuote, type Evidence } from './evidence';
import { renderTexts, taskTexts, type TaskText } from './files';
import type { Rubric } from './rubric';

export const REVIEW_TOOL = 'report_review';

export type Verdict = 'pass' | 'fail' | 'not-applicable';

export interface CriterionAnswer {
  readonly id: string;
  readonly verdict: Verdict;
  readonly reason: string;
  readonly evidence: readonly Evidence[];
}

export interface TaskReview {
  readonly task: string;
  readonly model: string;
  readonly findings: readonly Finding[];
  readonly answers: readonly CriterionAnswer[];
  /** Failures dropped because no quote was found at the cited place. */
  readonly unsupported: number;
  readonly unsupportedClaims: readonly string[];
  readonly usage: Usage;
  readonly costUsd: number | null;
  /** Served from the cache (no request made). */
  readonly cached: boolean;
  readonly truncated?: boolean;
}

export function reviewTool(rubric: Rubric): Tool {
  return {
    name: REVIEW_TOOL,
    description: 'Report the review: one entry per rubric criterion, with the verdict, a one-line reason, and for a failure the evidence as file, 1-based line range and the exact quoted text.',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['criteria'],
      properties: {
        criteria: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'verdict', 'reason', 'evidence'],
            properties: {
              id: { type: 'string', enum: rubric.criteria.map((c) => c.id) },
              verdict: { type: 'string', enum: ['pass', 'fail', 'not-applicable'] },
              reason: { type: 'string', description: 'One line.' },
              evidence: {
                type: 'array',
                items: {
                  type: 'object', additionalProperties: false, required: ['file', 'startLine', 'endLine', 'quote'],
                  properties: {
                    file: { type: 'string', description: 'Path relative to the task folder, as shown.' },
                    startLine: { type: 'integer', minimum: 1 }, endLine: { type: 'integer', minimum: 1 },
                    quote: { type: 'string', description: 'Text copied exactly from those lines.' },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}

export function reviewSystem(rubric: Rubric): string {
  return [
    'You review terminal-agent tasks (a Docker environment, an instruction, tests that decide the reward, a reference solution) for defects that only a careful reader of the instruction AND the tests can see.',
    'Answer every criterion below through the report_review tool: pass, fail or not-applicable, a one-line reason, and for every failure the evidence — the file, the 1-based line range and text quoted exactly from those lines (the files are shown with line numbers; do not include the numbers in the quote). A failure whose quote is not found at that place is discarded.',
    'Fail only for a real defect you can point at. Do not repeat mechanical lint.',
    '',
    '## Criteria',
    ...rubric.criteria.map((c) => `- ${c.id}: ${c.question}`),
  ].join('\n');
}

/** The cache key: the task's files, the rubric and the model. */
export function reviewKey(texts: readonly TaskText[], rubric: Rubric, model: string): string {
  const h = createHash('sha256');
  h.update(`model\0${model}\0rubric\0${rubric.source}\0`);
  for (const t of texts) h.update(`${t.file}\0${t.text}\0`);
  return h.digest('hex');
}

function parseAnswers(input: unknown): CriterionAnswer[] {
  const list = (input as { criteria?: unknown } | undefined)?.criteria;
  if (!Array.isArray(list)) return [];
  return list.flatMap((x: unknown) => {
    const o = (x ?? {}) as Record<string, unknown>;
    const verdict = o.verdict === 'fail' || o.verdict === 'pass' || o.verdict === 'not-applicable' ? o.verdict : undefined;
    if (typeof o.id !== 'string' || !verdict) return [];
    const evidence = Array.isArray(o.evidence) ? (o.evidence as Record<string, unknown>[]).map((e) => ({
      file: String(e.file ?? ''), startLine: Number(e.startLine), endLine: Number(e.endLine), quote: String(e.quote ?? ''),
    })) : [];
    return [{ id: o.id, verdict, reason: typeof o.reason === 'string' ? o.reason : '', evidence }];
  });
}

/**
 * Turns the model's answers into findings: a failure becomes `review-<criterion>` at the first
 * quote found at its cited place (other found quotes become related locations); a failure with no
 * quote found is dropped and counted as an unsupported claim.
 */
export function findingsOf(answers: readonly CriterionAnswer[], rubric: Rubric, texts: readonly TaskText[]): { findings: Finding[]; unsupportedClaims: string[] } {
  const byFile = new Map(texts.map((t) => [t.file, t.text]));
  const findings: Finding[] = [];
  const unsupportedClaims: string[] = [];
  for (const a of answers) {
    if (a.verdict !== 'fail') continue;
    const c = rubric.criteria.find((x) => x.id === a.id);
    if (!c) continue;
    const found = a.evidence.flatMap((e) => {
      const text = byFile.get(e.file.replace(/^\.\//, ''));
      const r = text === undefined ? undefined : locateQuote(text, e);
      return r ? [{ file: e.file.replace(/^\.\//, ''), range: r }] : [];
    });
    const first = found[0];
    if (!first) { unsupportedClaims.push(`${a.id}: ${a.reason}`); continue; }
    findings.push({
      rule: `review-${c.id}`, class: c.class, severity: c.severity, source: 'review', file: first.file, range: first.range,
      message: a.reason || c.question,
      ...(found.length > 1 ? { related: found.slice(1).map((f) => ({ file: f.file, range: f.range, message: 'also cited' })) } : {}),
    });
  }
  return { findings, unsupportedClaims };
}

export interface ReviewOptions {
  readonly caller: ModelCaller;
  readonly rubric: Rubric;
  /** Folder of cached reviews (by content hash); none: no cache. */
  readonly cacheDir?: string;
  readonly signal: AbortSignal;
  readonly onTokens?: (n: number) => void;
}

interface CacheEntry { readonly answers: CriterionAnswer[]; readonly usage: Usage; readonly costUsd: number | null }

interface Prepared {
  readonly task: Task;
  readonly texts: readonly TaskText[];
  readonly cacheFile?: string;
  readonly cachedEntry?: CacheEntry;
  readonly request: ModelRequest;
}

function prepare(task: Task, o: ReviewOptions): Prepared {
  const { texts, skipped } = taskTexts(task);
  const key = reviewKey(texts, o.rubric, o.caller.model);
  const cacheFile = o.cacheDir ? path.join(o.cacheDir, `${key}.json`) : undefined;
  let cachedEntry: CacheEntry | undefined;
  if (cacheFile && fs.existsSync(cacheFile)) {
    try { cachedEntry = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as CacheEntry; } catch { cachedEntry = undefined; }
  }
  const request: ModelRequest = {
    system: reviewSystem(o.rubric), tools: [reviewTool(o.rubric)], answerTool: REVIEW_TOOL, singleCall: true, maxTokens: 8000,
    messages: [{ role: 'user', content: `Task ${task.id} (${task.format}). Its files:\n\n${renderTexts(texts, skipped)}\n\nReview it against every criterion and answer with report_review.` }],
  };
  return { task, texts, ...(cacheFile ? { cacheFile } : {}), ...(cachedEntry ? { cachedEntry } : {}), request };
}

/** The model's answer as a cache entry, written to the cache unless it was cut or called no tool. */
function entryOf(p: Prepared, message: Message, usage: Usage, costUsd: number | undefined, truncated: boolean): CacheEntry {
  const call = toolUses(message.content).find((t) => t.name === REVIEW_TOOL);
  const entry: CacheEntry = { answers: parseAnswers(call?.input), usage, costUsd: costUsd ?? null };
  if (p.cacheFile && !truncated && call) {
    fs.mkdirSync(path.dirname(p.cacheFile), { recursive: true });
    fs.writeFileSync(p.cacheFile, JSON.stringify(entry));
  }
  return entry;
}

function finish(p: Prepared, o: ReviewOptions, entry: CacheEntry, cached: boolean, truncated: boolean): TaskReview {
  const { findings, unsupportedClaims } = findingsOf(entry.answers, o.rubric, p.texts);
  return {
    task: p.task.id, model: o.caller.model, findings, answers: entry.answers, unsupported: unsupportedClaims.length, unsupportedClaims,
    usage: cached ? ZERO_USAGE : entry.usage, costUsd: cached ? 0 : entry.costUsd, cached,
    ...(truncated ? { truncated } : {}),
  };
}

/** Reviews one task (or reads its review from the cache when nothing changed). */
export async function reviewTask(task: Task, o: ReviewOptions): Promise<TaskReview> {
  const p = prepare(task, o);
  if (p.cachedEntry) return finish(p, o, p.cachedEntry, true, false);
  const a = await o.caller.send(p.request, o.signal, o.onTokens);
  return finish(p, o, entryOf(p, a.message, a.usage, a.costUsd, a.truncated), false, a.truncated);
}

/**
 * Reviews many tasks with one Message Batch (half price) for those not in the cache. An item the
 * batch could not answer is reviewed again, streamed (a fault of the batch is not the task's).
 */
export async function reviewTasksBatch(tasks: readonly Task[], o: ReviewOptions & BatchOptions): Promise<TaskReview[]> {
  const prepared = tasks.map((t) => prepare(t, o));
  const todo = prepared.map((p, i) => ({ p, id: `review-${i + 1}` })).filter((x) => !x.p.cachedEntry);
  const items = todo.length ? await sendBatch(o.caller, todo.map((x) => ({ id: x.id, request: x.p.request })), o.signal, o) : new Map<string, BatchItem>();
  const out: TaskReview[] = [];
  for (const [i, p] of prepared.entries()) {
    if (p.cachedEntry) { out.push(finish(p, o, p.cachedEntry, true, false)); continue; }
    const item = items.get(`review-${i + 1}`);
    if (!item || item instanceof Error) {
      o.onStatus?.(`${p.task.id}: ${item?.message ?? 'no result in the batch'}; reviewing it streamed`);
      out.push(await reviewTask(p.task, o));
      continue;
    }
    const truncated = item.message.stop_reason === 'max_tokens';
    out.push(finish(p, o, entryOf(p, item.message, item.usage, item.costUsd, truncated), false, truncated));
  }
  return out;
}
