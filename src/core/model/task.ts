import type { Finding } from './finding';
import type { Range } from './positions';

export type TaskFormat = 'tb1' | 'harbor';
export type Difficulty = 'easy' | 'medium' | 'hard' | 'unknown';

/** Where a configuration value was read: file relative to the task folder, and its exact text range. */
export interface FieldSource {
  readonly file: string;
  readonly range: Range;
  /** The key as written (e.g. to rename a legacy key); absent for list items and whole files. */
  readonly keyRange?: Range;
}

export interface TaskTimeouts {
  readonly agentSec: number;
  readonly verifierSec: number;
  readonly buildSec: number;
}

export interface TaskMetadata {
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly difficulty: Difficulty;
  readonly category: string;
  readonly tags: readonly string[];
  readonly estimatedDurationSec?: number;
  readonly expertTimeEstimateMin?: number;
  readonly juniorTimeEstimateMin?: number;
}

export interface TaskEnvironment {
  /** Dockerfile relative to the task folder, when one exists or is configured. */
  readonly dockerfile?: string;
  /** Build context folder relative to the task folder ('.' for TB1, 'environment' for Harbor). */
  readonly contextDir: string;
  readonly composeFile?: string;
  readonly dockerImage?: string;
  readonly cpus?: number;
  readonly memoryMb?: number;
  readonly storageMb?: number;
  readonly gpus?: number;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir?: string;
  /** 'none' unless the task asks for network (Harbor network_mode / allow_internet). */
  readonly networkMode?: string;
  /**
   * A Dockerfile found where the harness does not build from (`Dockerfile` at a Harbor task's root,
   * `environment/environment/Dockerfile`), when there is no environment: missing-environment points at
   * it, and the audit reads it (its folder as the build context) in place. Nothing builds it.
   */
  readonly misplacedDockerfile?: string;
}

export interface TaskVerifier {
  /** The script the harness runs: `run-tests.sh` (TB1) or `tests/test.sh` (Harbor). */
  readonly entry: string;
  readonly testsDir: string;
  /**
   * A multi-step Harbor task's task-level `tests/`, when the step has a `tests/` of its own: Harbor
   * uploads it to /tests first and the step's files over it (same names override), so its helpers
   * (and fallback test.sh) are the verifier's too. See {@link testsLayers}.
   */
  readonly sharedTestsDir?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user?: string;
  /** TB1 `parser_name` (default pytest); Harbor verifiers write their own reward. */
  readonly parserName?: string;
  readonly runTestsInSameShell?: boolean;
  /** Harbor `verifier.network_mode`, when set (else the environment's applies). */
  readonly networkMode?: string;
  /**
   * Harbor `verifier.environment_mode = "separate"`: the verifier runs in a fresh container of its
   * own (built from tests/), which receives only the declared artifacts, not the agent's filesystem.
   */
  readonly separate?: boolean;
  /**
   * The verifier script found where the harness does not look (`environment/tests/test.sh`,
   * `tests/tests/test.sh`), when `entry` is missing: the missing-test-entry finding points at it, and
   * the audit reads it (and its folder) in place so its own defects show before the move. Nothing runs it.
   */
  readonly misplacedEntry?: string;
}

export interface TaskAgentConfig {
  readonly user?: string;
  /** TB1 records the agent's terminal with asciinema unless `disable_asciinema: true`. */
  readonly recordsSession?: boolean;
  readonly networkMode?: string;
}

export type SolutionKind = 'script' | 'yaml';

export interface TaskSolution {
  /** `solution.sh` / `solution.yaml` (TB1) or `solution/solve.sh` (Harbor); absent when none exists. */
  readonly file?: string;
  readonly kind: SolutionKind;
  /** As {@link TaskVerifier.misplacedEntry}: a reference solution where the harness does not look, read by the audit only. */
  readonly misplacedFile?: string;
  /** For TB1 `solution.yaml`: the commands in order. */
  readonly commands?: readonly SolutionCommand[];
}

export interface SolutionCommand {
  readonly command: string;
  readonly minTimeoutSec?: number;
  readonly block?: boolean;
  readonly append_enter?: boolean;
}

/** One step of a multi-step Harbor task (`[[steps]]`, files under `steps/<name>/`). */
export interface TaskStep {
  readonly name: string;
  readonly instructionFile: string;
  readonly instruction?: string;
  /** The step's `tests/test.sh`, or the task-level one Harbor falls back to. */
  readonly verifierEntry: string;
  readonly testsDir: string;
  /** The task-level `tests/` uploaded under the step's own (see {@link TaskVerifier.sharedTestsDir}). */
  readonly sharedTestsDir?: string;
  readonly solutionFile?: string;
}

/** Which step an audit view of a multi-step task looks at. */
export interface StepView {
  readonly name: string;
  readonly index: number;
  readonly final: boolean;
  /** `multi_step_reward_strategy` (Harbor: how step rewards make the task's reward). */
  readonly rewardStrategy?: string;
}

/**
 * One task, in either public format, loaded as far as its files allow. A malformed task still loads:
 * what could not be read becomes a `problem` (class `invalidity`) with the parser's position.
 */
export interface Task {
  /** Folder name (TB1 and Harbor both identify tasks by folder). */
  readonly id: string;
  /** Absolute path of the task folder. */
  readonly dir: string;
  readonly format: TaskFormat;
  /** `task.yaml` or `task.toml`. */
  readonly configFile: string;
  /** File holding the instruction: `task.yaml` (TB1) or `instruction.md` (Harbor). */
  readonly instructionFile: string;
  readonly instruction?: string;
  readonly metadata: TaskMetadata;
  readonly timeouts: TaskTimeouts;
  readonly environment: TaskEnvironment;
  readonly verifier: TaskVerifier;
  readonly agent: TaskAgentConfig;
  readonly solution: TaskSolution;
  /** Harbor `schema_version` (or `version`) when given. */
  readonly schemaVersion?: string;
  /** Source position of every configuration field read, keyed by its dotted path (e.g. `verifier.timeout_sec`). */
  readonly fields: Readonly<Record<string, FieldSource>>;
  /** Every file in the task folder, relative, POSIX separators, sorted. */
  readonly files: readonly string[];
  readonly problems: readonly Finding[];
  /** Every step of a multi-step Harbor task, in order; the task itself is loaded through the first. */
  readonly steps?: readonly TaskStep[];
  readonly multiStepRewardStrategy?: string;
  /** Set on the per-step views the audit makes of a multi-step task. */
  readonly step?: StepView;
}

/**
 * The folders whose files the harness uploads to the verifier's tests folder, in upload order: a
 * later folder's file replaces an earlier one's of the same relative path (Harbor's multi-step
 * layering of the task-level tests/ under a step's own).
 */
export function testsLayers(verifier: Pick<TaskVerifier, 'testsDir' | 'sharedTestsDir'>): string[] {
  const own = verifier.testsDir.replace(/\/+$/, '') || 'tests';
  const shared = verifier.sharedTestsDir?.replace(/\/+$/, '');
  return shared && shared !== own ? [shared, own] : [own];
}

/**
 * The task files the verifier sees under its tests folder, each once: `file` is the task file,
 * `rel` its path below the tests folder. A step's own file wins over the shared one of the same path.
 */
export function mountedTestFiles(task: Pick<Task, 'files' | 'verifier'>): { file: string; rel: string }[] {
  const byRel = new Map<string, string>();
  for (const dir of testsLayers(task.verifier)) {
    for (const f of task.files) if (f.startsWith(`${dir}/`)) byRel.set(f.slice(dir.length + 1), f);
  }
  return [...byRel].map(([rel, file]) => ({ file, rel }));
}
