import path from 'node:path';
import { loadTask } from '../loader/index';
import type { Finding } from '../model/finding';
import type { Task } from '../model/task';
import { repairRounds } from '../llm/repair';
import { failureReason, formatFeedback, formatFinding } from './feedback';
import { InfraGateError, judgeValidation, type Gates } from './gates';
import { parseDraft } from './layout';
import { ModelRequestError } from '../llm/faults';
import { Conversation, type MetaTurn } from './metaAgent';
import { requestPrompt } from './prompt';
import { buildReport, type YieldReport } from './report';
import { acceptInto, newGenerateRunId, newStagingDir, pruneEmptyStaging, removeStaging, writeDraft, writeRejected } from './staging';
import { addUsage, ZERO_USAGE, type GateFailure, type GateProgress, type GenerateRequest, type ProgressEvent, type TaskAttempt, type TaskDraft, type Usage } from './types';

/** What the pipeline needs of the meta-agent (MetaAgent; tests may pass their own). */
export interface MetaAgentLike {
  turn(conv: Conversation, signal: AbortSignal, onTokens?: (tokens: number) => void): Promise<MetaTurn>;
  batchFirstTurns?(convs: readonly Conversation[], signal: AbortSignal, onStatus?: (status: string) => void): Promise<(MetaTurn | Error)[]>;
}

export interface GenerateDeps {
  readonly agent: MetaAgentLike;
  readonly gates: Gates;
  readonly signal: AbortSignal;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Makes folders in the report relative (e.g. to the current folder). */
  readonly relativeTo?: string;
  readonly load?: (dir: string) => Promise<Task>;
}

const NOTHING: GateProgress = { auditClean: false, built: false, oraclePasses: false, nopFails: false, stable: false };

/** A refused key or a model that does not exist: every later task would fail the same way. */
function stopsRun(e: unknown): boolean {
  if (e instanceof ModelRequestError) return e.stopsRun;
  const status = (e as { status?: unknown } | null)?.status;
  return status === 401 || status === 403;
}

function rejectedText(req: GenerateRequest, slot: number, id: string | undefined, failures: readonly GateFailure[], lastDir: string | undefined): string {
  const lines = [
    `# Rejected: ${id ?? `task ${slot}`}`,
    '',
    `Generated for "${req.topic}" (${req.format}, ${req.difficulty}) by ${req.model}; rejected after ${failures.length} round(s) (at most ${req.rounds}).`,
    lastDir ? `The last draft is in \`${path.basename(path.dirname(lastDir))}/${path.basename(lastDir)}\` next to this file.` : 'No draft could be written.',
    '',
  ];
  failures.forEach((f, i) => {
    lines.push(`## Round ${i + 1}: ${f.gate} failed`, '', f.summary, '');
    for (const finding of f.findings) lines.push(formatFinding(finding));
    for (const c of f.checks ?? []) lines.push(`- check ${c.name}: ${c.status} — ${c.detail}`);
    if (f.findings.length || f.checks?.length) lines.push('');
  });
  return lines.join('\n');
}

/** Audit gate: error findings fail it; the warnings ride along so a repair can fix them too. */
function auditFailure(findings: readonly Finding[]): GateFailure | undefined {
  const errors = findings.filter((f) => f.severity === 'error');
  if (!errors.length) return undefined;
  return {
    gate: 'audit',
    summary: `${errors.length} error finding(s): ${[...new Set(errors.map((f) => f.rule))].join(', ')}`,
    findings: [...errors, ...findings.filter((f) => f.severity === 'warning')],
  };
}

/**
 * Generates `count` tasks: each drafted by the meta-agent, written to staging, audited, built and
 * validated; a failed gate goes back to the model as structured feedback, up to `rounds` rounds.
 * Accepted tasks are renamed into the output folder; rejected ones keep their staging folder with
 * REJECTED.md. Tasks go one at a time (Docker is the bottleneck). Never throws for a task's failure;
 * a cancelled request leaves nothing of the cancelled task behind.
 */
export async function generateTasks(req: GenerateRequest, deps: GenerateDeps): Promise<YieldReport> {
  const { signal } = deps;
  const load = deps.load ?? ((dir: string) => loadTask(dir));
  const runId = newGenerateRunId();
  const attempts: TaskAttempt[] = [];
  const emit = (e: ProgressEvent): void => deps.onProgress?.(e);
  const convs = Array.from({ length: req.count }, (_, i) => new Conversation(requestPrompt(req.topic, req.difficulty, i + 1, req.count, [])));

  let firstTurns: (MetaTurn | Error)[] | undefined;
  let stopAll: string | undefined;
  if (req.batch && deps.agent.batchFirstTurns && !signal.aborted) {
    emit({ slot: 0, round: 1, stage: 'batch', message: `submitting ${req.count} first round(s) as a message batch` });
    try {
      firstTurns = await deps.agent.batchFirstTurns(convs, signal, (status) => emit({ slot: 0, round: 1, stage: 'batch', message: status }));
    } catch (e) {
      if (!signal.aborted) stopAll = `the message batch failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  const ids: string[] = [];
  for (let slot = 1; slot <= req.count; slot++) {
    const conv = convs[slot - 1] as Conversation;
    if (!firstTurns && ids.length) {
      // Without a batch, later tasks are told what exists already, so the set does not repeat itself.
      conv.setFirst(requestPrompt(req.topic, req.difficulty, slot, req.count, ids));
    }
    let usage: Usage = ZERO_USAGE;
    let cost: number | undefined = 0;
    const failures: GateFailure[] = [];
    let progress = NOTHING;
    let id: string | undefined;
    let lastDir: string | undefined;
    let round = 0;
    const stagingDir = newStagingDir(req.outDir, runId, slot);
    const finish = (outcome: TaskAttempt['outcome'], reasons: string[], dir?: string): void => {
      attempts.push({ slot, ...(id ? { id } : {}), outcome, rounds: round, progress, ...(dir ? { dir } : {}), reasons, usage, ...(cost !== undefined ? { costUsd: cost } : {}), failures });
    };
    if (signal.aborted || stopAll) {
      removeStaging(stagingDir);
      finish(signal.aborted ? 'cancelled' : 'error', [stopAll ?? 'cancelled']);
      continue;
    }
    try {
      let accepted: string | undefined;
      const evaluate = async (turn: MetaTurn, r: number): Promise<GateFailure | undefined> => {
        if (turn.truncated) {
          // Never read a cut answer as a task with missing files: say what happened.
          progress = NOTHING;
          return { gate: 'truncated', summary: `the answer was truncated at max_tokens (${turn.usage.output} output tokens) before the task was complete`, findings: [] };
        }
        const parsed = parseDraft(turn.input, req.format);
        if (!parsed.draft) {
          progress = NOTHING;
          return { gate: 'schema', summary: turn.input === undefined ? `the answer did not call submit_task (stop reason ${turn.stopReason ?? 'unknown'})` : parsed.problems.join('; '), findings: [] };
        }
        const draft: TaskDraft = parsed.draft;
        id = draft.id;
        emit({ slot, round: r, stage: 'writing', message: `task ${slot}: writing ${draft.id} (${draft.files.length} files) to staging` });
        const dir = writeDraft(stagingDir, r, draft, req.format);
        lastDir = dir;
        const task = await load(dir);
        emit({ slot, round: r, stage: 'audit', message: `task ${slot}: auditing ${draft.id}` });
        const audit = auditFailure(await deps.gates.audit(task, signal));
        if (audit) { progress = NOTHING; return audit; }
        emit({ slot, round: r, stage: 'build', message: `task ${slot}: building and validating ${draft.id}` });
        const validation = await deps.gates.validate(task, signal, (m) => emit({ slot, round: r, stage: 'validate', message: `task ${slot}: ${m}` }));
        signal.throwIfAborted();
        const judged = judgeValidation(validation);
        progress = judged.progress;
        if (judged.failure) return judged.failure;
        if (deps.gates.calibrate && req.calibrate) {
          emit({ slot, round: r, stage: 'calibrate', message: `task ${slot}: calibrating ${draft.id} on ${req.calibrate}` });
          const c = await deps.gates.calibrate(task, signal, (m) => emit({ slot, round: r, stage: 'calibrate', message: `task ${slot}: ${m}` }));
          signal.throwIfAborted();
          progress = { ...progress, inBand: c.band === 'in-band' };
          if (c.band !== 'in-band') {
            return { gate: 'calibration', summary: `${req.calibrate} solved ${c.successes} of ${c.attempts} attempt(s): ${c.band}`, findings: [] };
          }
        }
        accepted = acceptInto(dir, req.outDir, draft.id);
        return undefined;
      };

      const outcome = await repairRounds<MetaTurn, GateFailure>({
        rounds: req.rounds,
        ask: async (r) => {
          round = r;
          const stage = r === 1 ? 'generating' : 'repair';
          emit({ slot, round: r, stage, message: r === 1 ? `task ${slot}/${req.count}: generating` : `task ${slot}/${req.count}: repairing (round ${r}/${req.rounds})`, tokens: 0 });
          let pre = r === 1 ? firstTurns?.[slot - 1] : undefined;
          if (pre instanceof Error) {
            // A batch item that failed is asked again, streamed (a fault of the batch is not the task's).
            emit({ slot, round: r, stage, message: `task ${slot}/${req.count}: ${pre.message}; asking again, streamed` });
            pre = undefined;
          }
          const turn = pre ?? await deps.agent.turn(conv, signal, (tokens) => emit({ slot, round: r, stage, message: `task ${slot}/${req.count}: ${stage} — ${tokens} tokens`, tokens }));
          usage = addUsage(usage, turn.usage);
          cost = cost === undefined || turn.costUsd === undefined ? undefined : cost + turn.costUsd;
          conv.addAnswer(turn);
          return turn;
        },
        check: evaluate,
        onFailure: (failure, r) => {
          failures.push(failure);
          emit({ slot, round: r, stage: failure.gate === 'audit' ? 'audit' : 'validate', message: `task ${slot}: ${failureReason(failure)}` });
        },
        sendBack: (turn, failure, r) => conv.addFeedback(turn, formatFeedback(failure, r, req.rounds)),
      });
      round = outcome.rounds;

      if (accepted) {
        ids.push(path.basename(accepted));
        removeStaging(stagingDir);
        emit({ slot, round, stage: 'accepted', message: `task ${slot}: accepted ${path.basename(accepted)}` });
        finish('accepted', [], accepted);
      } else {
        if (id) ids.push(id);
        writeRejected(stagingDir, rejectedText(req, slot, id, failures, lastDir));
        emit({ slot, round, stage: 'rejected', message: `task ${slot}: rejected after ${round} round(s)` });
        finish('rejected', failures.map(failureReason), stagingDir);
      }
    } catch (e) {
      round = Math.max(1, Math.min(round, req.rounds));
      if (signal.aborted) {
        // A cancelled task leaves nothing: not in the output folder, not in staging.
        removeStaging(stagingDir);
        finish('cancelled', ['cancelled']);
        continue;
      }
      const message = e instanceof InfraGateError ? `infrastructure error (not the task's fault): ${e.message}` : `error: ${e instanceof Error ? e.message : String(e)}`;
      writeRejected(stagingDir, `${rejectedText(req, slot, id, failures, lastDir)}\n## Stopped\n\n${message}\n`);
      finish('error', [...failures.map(failureReason), message], stagingDir);
      if (stopsRun(e)) stopAll = message;
    }
  }
  pruneEmptyStaging(req.outDir, runId);
  return buildReport(req, attempts, deps.relativeTo);
}
