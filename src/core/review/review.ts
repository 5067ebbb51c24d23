import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { toolUses } from '../llm/conversation';
import type { ModelCaller, Usage } from '../llm/request';
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

/** Reviews one task (or reads its review from the cache when nothing changed). */
export async function reviewTask(task: Task, o: ReviewOptions): Promise<TaskReview> {
  const { texts, skipped } = taskTexts(task);
  const key = reviewKey(texts, o.rubric, o.caller.model);
  const cacheFile = o.cacheDir ? path.join(o.cacheDir, `${key}.json`) : undefined;
  let entry: CacheEntry | undefined;
  let cached = false;
  let truncated = false;
  if (cacheFile && fs.existsSync(cacheFile)) {
    try { entry = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as CacheEntry; cached = true; } catch { entry = undefined; }
  }
  if (!entry) {
    const a = await o.caller.send({
      system: reviewSystem(o.rubric), tools: [reviewTool(o.rubric)], answerTool: REVIEW_TOOL, singleCall: true, maxTokens: 8000,
      messages: [{ role: 'user', content: `Task ${task.id} (${task.format}). Its files:\n\n${renderTexts(texts, skipped)}\n\nReview it against every criterion and answer with report_review.` }],
    }, o.signal, o.onTokens);
    truncated = a.truncated;
    const call = toolUses(a.message.content).find((t) => t.name === REVIEW_TOOL);
    entry = { answers: parseAnswers(call?.input), usage: a.usage, costUsd: a.costUsd ?? null };
    if (cacheFile && !truncated && call) {
      fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
      fs.writeFileSync(cacheFile, JSON.stringify(entry));
    }
  }
  const { findings, unsupportedClaims } = findingsOf(entry.answers, o.rubric, texts);
  return {
    task: task.id, model: o.caller.model, findings, answers: entry.answers, unsupported: unsupportedClaims.length, unsupportedClaims,
    usage: cached ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } : entry.usage, costUsd: cached ? 0 : entry.costUsd, cached,
    ...(truncated ? { truncated } : {}),
  };
}
