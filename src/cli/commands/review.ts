import path from 'node:path';
import fs from 'node:fs';
import { fingerprint } from '../../core/audit/fingerprint';
import { DEFAULT_DOCS_URL, sarifLog, sarifResult, sarifRoot, sarifRules } from '../../core/audit/sarif';
import type { Task } from '../../core/model/task';
import { credentialsFrom, envSecrets, MISSING_KEY } from '../../core/llm/client';
import { ModelRequestError } from '../../core/llm/faults';
import { connect } from '../../core/llm/index';
import { findingToJson } from '../../core/report/findingJson';
import { loadRubric, RubricError } from '../../core/review/rubric';
import { reviewTask, reviewTasksBatch, type TaskReview } from '../../core/review/review';
import { boolOpt, choiceOpt, stringOpt, UsageError, type CliCommand, type CliIo, type ParsedArgs } from '../command';
import { loadPriceOverrides } from '../prices';
import { loadTargets } from '../targets';
import { VERSION } from '../version';

const FORMATS = ['text', 'json', 'sarif'] as const;

export const reviewCommand: CliCommand = {
  name: 'review',
  summary: 'Review tasks with Claude against a rubric; every finding quotes the task\'s own text at file:line',
  usage: [
    'taskwright review PATH... [--model M] [--rubric FILE] [--format text|json|sarif] [--batch] [--base-url URL]',
    '',
    '  --model M     Anthropic model (default: $TASKWRIGHT_MODEL, else the newest active Sonnet listed by GET /v1/models)',
    '  --rubric FILE a TOML or YAML rubric ([[criteria]] id, question, class, severity); `extends = "default"` adds to the default',
    '  --format      text (default), json, or sarif',
  '  --batch       send the tasks not in the cache as one Message Batch (half price; polled until it ends)',
    '',
    'A failed criterion whose quoted evidence is not at the cited lines is dropped and counted as an unsupported claim.',
    'Reviews are cached in .taskwright/review-cache by the content hash of the task files, the rubric and the model.',
    'Exit status: 0 no finding, 1 a review finding (or a request failed), 2 usage errors.',
  ].join('\n'),
  options: { model: { type: 'string' }, rubric: { type: 'string' }, format: { type: 'string' }, batch: { type: 'boolean' }, 'base-url': { type: 'string' } },
  async run(args: ParsedArgs, io: CliIo): Promise<number> {
    const format = choiceOpt(args, 'format', FORMATS, 'text');
    let rubric;
    try { rubric = loadRubric(stringOpt(args, 'rubric') ? path.resolve(io.cwd, stringOpt(args, 'rubric') as string) : undefined); } catch (e) {
      if (e instanceof RubricError) throw new UsageError(e.message);
      throw e;
    }
    const base = stringOpt(args, 'base-url');
    const credentials = credentialsFrom(envSecrets(io.env), io.env, base ? { baseURL: base } : {});
    if (!credentials.apiKey && !credentials.authToken) throw new UsageError(MISSING_KEY);
    const targets = await loadTargets(args.positionals, io);
    const asked = stringOpt(args, 'model') ?? (io.env.TASKWRIGHT_MODEL || undefined);
    const reviews: { review: TaskReview; path: string; task: Task }[] = [];
    try {
      const { caller } = await connect({
        credentials, ...(asked ? { model: asked, modelSource: stringOpt(args, 'model') ? '--model' : 'TASKWRIGHT_MODEL' } : {}),
        prices: loadPriceOverrides(io), onNotice: (line) => io.err(`[model] ${line}`), signal: io.signal,
      });
      const cacheDir = path.join(io.cwd, '.taskwright', 'review-cache');
      if (boolOpt(args, 'batch')) {
        io.err(`[review] ${targets.length} task(s) as one message batch`);
        const pollMs = io.env.TASKWRIGHT_BATCH_POLL_MS ? Number(io.env.TASKWRIGHT_BATCH_POLL_MS) : undefined;
        const done = await reviewTasksBatch(targets.map((t) => t.task), { caller, rubric, cacheDir, signal: io.signal, onStatus: (l) => io.err(`[review] ${l}`), ...(pollMs ? { pollMs } : {}) });
        done.forEach((review, i) => { const t = targets[i]; if (t) reviews.push({ review, path: t.path, task: t.task }); });
      } else {
        for (const t of targets) {
          io.err(`[review] ${t.path}`);
          reviews.push({ review: await reviewTask(t.task, { caller, rubric, cacheDir, signal: io.signal }), path: t.path, task: t.task });
        }
      }
    } catch (e) {
      if (e instanceof ModelRequestError) {
        io.err(`taskwright review: ${e.message}`);
        return e.fault.kind === 'model-not-found' ? 2 : 1;
      }
      throw e;
    }
    const tokens = reviews.reduce((n, r) => ({ input: n.input + r.review.usage.input, output: n.output + r.review.usage.output }), { input: 0, output: 0 });
    const cost = reviews.every((r) => r.review.costUsd !== null) ? reviews.reduce((c, r) => c + (r.review.costUsd ?? 0), 0) : null;
    if (format === 'json') {
      io.out(JSON.stringify({
        version: 1, tool: 'taskwright', rubric: rubric.name,
        tasks: reviews.map((r) => ({
          path: r.path, id: r.task.id, model: r.review.model, cached: r.review.cached, unsupported: r.review.unsupported,
          tokens: r.review.usage, costUsd: r.review.costUsd, findings: r.review.findings.map((f) => ({ ...findingToJson(f), source: 'review' })),
        })),
        tokens, costUsd: cost,
      }, null, 2));
    } else if (format === 'sarif') {
      io.out(JSON.stringify(reviewSarif(reviews, io.cwd), null, 2));
    } else {
      const lines: string[] = [];
      for (const r of reviews) {
        const rv = r.review;
        lines.push(`${r.path} (${rv.model}${rv.cached ? ', cached' : ''})${rv.findings.length ? '' : '  ok'}`);
        for (const f of rv.findings) lines.push(`  ${path.posix.join(r.path, f.file ?? '')}${f.range ? `:${f.range.start.line + 1}:${f.range.start.character + 1}` : ''}  ${f.severity}  ${f.rule}  ${f.message}`);
        if (rv.unsupported) lines.push(`  ${rv.unsupported} unsupported claim(s) dropped (quote not found at the cited lines)`);
        lines.push(`  tokens in ${rv.usage.input}, out ${rv.usage.output}; cost ${rv.costUsd === null ? 'unknown' : `$${rv.costUsd.toFixed(4)}`}`);
      }
      lines.push('', `${reviews.length} task(s): ${reviews.reduce((n, r) => n + r.review.findings.length, 0)} finding(s); tokens in ${tokens.input}, out ${tokens.output}; cost ${cost === null ? 'unknown (no public price for this model)' : `$${cost.toFixed(4)}`}`);
      io.out(lines.join('\n'));
    }
    return reviews.some((r) => r.review.findings.length) ? 1 : 0;
  },
};

/** Review findings as SARIF, through the audit's own SARIF builder (relative URIs, https help pages). */
function reviewSarif(reviews: readonly { review: TaskReview; path: string; task: Task }[], cwd: string): object {
  const root = sarifRoot(cwd, reviews.map((r) => r.path));
  const used = new Set(reviews.flatMap((r) => r.review.findings.map((f) => f.rule)));
  const { ids, rules } = sarifRules(used, process.env.TASKWRIGHT_DOCS_URL || DEFAULT_DOCS_URL);
  const results: object[] = [];
  for (const r of reviews) {
    const rel = path.relative(root, path.resolve(cwd, r.path)).split(path.sep).join('/') || '.';
    const textOf = (file: string): string | undefined => { try { return fs.readFileSync(path.join(r.task.dir, file), 'utf8'); } catch { return undefined; } };
    const t = { id: r.task.id, dataset: path.posix.dirname(rel), rel, configFile: r.task.configFile };
    for (const f of fingerprint(r.review.findings, textOf)) results.push(sarifResult(t, f, ids.indexOf(f.rule)));
  }
  return sarifLog(rules, root, VERSION, results);
}
