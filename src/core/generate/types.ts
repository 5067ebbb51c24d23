import type { Finding } from '../model/finding';
import type { TaskFormat } from '../model/task';
import type { CheckResult } from '../validate/types';
import type { Usage } from '../llm/request';

export type GenDifficulty = 'easy' | 'medium' | 'hard';
export const GEN_DIFFICULTIES: readonly GenDifficulty[] = ['easy', 'medium', 'hard'];
/** The difficulty asked for when none is given: `taskwright generate`'s default and the editor's first choice. */
export const DEFAULT_GEN_DIFFICULTY: GenDifficulty = 'medium';

/** One request to the meta-agent: `count` tasks on `topic`, each repaired for at most `rounds` rounds. */
export interface GenerateRequest {
  readonly topic: string;
  readonly count: number;
  readonly format: TaskFormat;
  readonly difficulty: GenDifficulty;
  /** Accepted tasks land here (absolute path); rejected ones stay under `<outDir>/.staging/`. */
  readonly outDir: string;
  readonly model: string;
  /** Generation rounds per task, the first included (1 = no repair). */
  readonly rounds: number;
  /** First round through the Message Batches API (half price, asynchronous). */
  readonly batch?: boolean;
  /** Policy agent spec whose pass@2 must put the task in band (optional calibration). */
  readonly calibrate?: string;
}

/** One file of a generated task, path relative to the task folder (POSIX). */
export interface GeneratedFile {
  readonly path: string;
  readonly content: string;
}

/** What the meta-agent returns through the `submit_task` tool. */
export interface TaskDraft {
  readonly id: string;
  readonly summary: string;
  readonly files: readonly GeneratedFile[];
}

export type GateName = 'truncated' | 'schema' | 'audit' | 'build' | 'nop' | 'oracle' | 'agreement' | 'reward-isolation' | 'calibration';

/** The first gate a draft failed, with what the model needs to repair it. */
export interface GateFailure {
  readonly gate: GateName;
  readonly summary: string;
  readonly findings: readonly Finding[];
  /** Validation checks, when the task got that far. */
  readonly checks?: readonly CheckResult[];
  /** Build or verifier output, trimmed. */
  readonly logs?: string;
}

/** How far one draft got through the gates (each flag implies the ones before it were reached). */
export interface GateProgress {
  readonly auditClean: boolean;
  readonly built: boolean;
  readonly oraclePasses: boolean;
  readonly nopFails: boolean;
  /** Verdicts agree across identical runs and reward isolation holds. */
  readonly stable: boolean;
  readonly inBand?: boolean;
}

export { type Usage, ZERO_USAGE, addUsage } from '../llm/request';

export type TaskOutcome = 'accepted' | 'rejected' | 'cancelled' | 'error';

/** The story of one generated task. */
export interface TaskAttempt {
  /** 1-based slot in the request. */
  readonly slot: number;
  readonly id?: string;
  readonly outcome: TaskOutcome;
  readonly rounds: number;
  /** Best progress over its rounds (the last round's, since repairs only move forward when they work). */
  readonly progress: GateProgress;
  /** Accepted: the task folder; rejected: the staging folder holding REJECTED.md. */
  readonly dir?: string;
  readonly reasons: readonly string[];
  readonly usage: Usage;
  readonly costUsd?: number;
  /** Failed gate of every round, in order. */
  readonly failures: readonly GateFailure[];
}

export type Stage = 'generating' | 'batch' | 'writing' | 'audit' | 'build' | 'validate' | 'calibrate' | 'repair' | 'accepted' | 'rejected';

export interface ProgressEvent {
  readonly slot: number;
  readonly round: number;
  readonly stage: Stage;
  readonly message: string;
  /** Output tokens (or streamed characters / 4 while streaming) of the current generation. */
  readonly tokens?: number;
}
