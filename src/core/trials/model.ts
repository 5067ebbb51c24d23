import type { PytestTestResult } from '../sandbox/pytestSummary';
import type { TrialDurations, TrialOutcome } from '../results/trial';

/**
 * One trial as the trial viewer shows it, whoever ran it (Taskwright or Harbor): plain data, built in
 * the core from the trial's folder and posted as is to the webview (it holds no functions or classes).
 */

/** A piece of an output: text as recorded, or the place where bytes were cut (by the agent or by the reader). */
export type OutputPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'cut'; readonly note: string };

export type StepKind = 'command' | 'message' | 'tool-error' | 'nudge' | 'user' | 'system';

export interface TrialStep {
  /** 1-based position in the viewer (not the agent's own step counter). */
  readonly index: number;
  readonly kind: StepKind;
  /** ISO time the step was recorded, when it was. */
  readonly at?: string;
  /** The tool the step called (`bash`, Harbor's `bash_command`, …). */
  readonly tool?: string;
  readonly command?: string;
  /** null: the command ran but its exit code is unknown (ATIF records none). */
  readonly exitCode?: number | null;
  readonly timedOut?: boolean;
  readonly durationMs?: number;
  readonly output?: readonly OutputPart[];
  /** What the model said in the turn that led to this step. */
  readonly message?: string;
  /** The model's reasoning in that turn, where the provider returned it. */
  readonly reasoning?: string;
  readonly error?: string;
}

/** A log file as shown: its text (head and tail when large, the cut marked) and its size on disk. */
export interface LogView {
  /** Relative to the trial folder (POSIX). */
  readonly file: string;
  readonly parts: readonly OutputPart[];
  readonly bytes: number;
}

export interface VerifierView {
  readonly stdout?: LogView;
  readonly stderr?: LogView;
  /** The `short test summary info` lines of `pytest -rA`, in order. */
  readonly tests: readonly PytestTestResult[];
  /** Names of the tests that FAILED or ERRORed (or XPASSed): what the reader looks for first. */
  readonly failing: readonly string[];
  /** Taskwright's verdict file (`verdict.txt`), when there is one. */
  readonly verdict?: string;
}

export interface TrialHeader {
  readonly trial: string;
  readonly task: string;
  readonly taskId: string;
  readonly agent: string;
  readonly model?: string;
  readonly attempt?: number;
  readonly try?: number;
  readonly outcome?: TrialOutcome;
  readonly reward: number | null;
  readonly durations?: TrialDurations;
  readonly startedAt?: string;
  readonly usage?: { readonly input: number; readonly output: number; readonly cacheRead?: number; readonly cacheWrite?: number };
  readonly costUsd?: number;
  /** The agent's own step count, when it recorded one. */
  readonly steps?: number;
  readonly infra?: { readonly kind: string; readonly message: string };
  readonly error?: string;
  /** How the agent's phase ended (`submitted`, `step limit (20) reached`, …), when recorded. */
  readonly agentEnd?: string;
}

export interface TrialView {
  readonly source: 'taskwright' | 'harbor';
  /** Absolute trial folder. */
  readonly dir: string;
  readonly header: TrialHeader;
  /** The instruction the agent was given, when the trajectory holds it (ATIF's first user step). */
  readonly instruction?: string;
  /** The trajectory file read (relative), undefined when the agent wrote none (oracle, nop, a program). */
  readonly trajectoryFile?: string;
  readonly steps: readonly TrialStep[];
  readonly verifier?: VerifierView;
  readonly build?: LogView;
  readonly agentLog?: LogView;
  readonly rewards: readonly { readonly file: string; readonly text: string }[];
  /** What could not be read, said once each (a torn trajectory line, an unknown ATIF version). */
  readonly notes: readonly string[];
}
