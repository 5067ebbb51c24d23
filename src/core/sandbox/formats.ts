import type { Task } from '../model/task';
import { parsePytestSummary } from './pytestSummary';

/**
 * What each public format's harness does around the agent, kept as data: the environment the
 * container starts with, where the tests go, the command that verifies, and how the verdict is read.
 */
export interface VerifierVerdict {
  /** Null when no reward could be read (a verifier error). */
  readonly reward: number | null;
  readonly detail: string;
  readonly countedSkips?: number;
}

export interface FormatPlan {
  readonly containerEnv: Readonly<Record<string, string>>;
  /** Folders created before the agent runs. */
  readonly mkdirs: readonly string[];
  /** Where the tests folder goes after the agent phase. */
  readonly testsTarget: string;
  /** Extra single files copied next to the tests: [task-relative path, name inside testsTarget]. */
  readonly extraTestFiles: readonly (readonly [string, string])[];
  readonly verifyCommand: readonly string[];
  readonly verifierTimeoutSec: number;
  readonly verifierEnv: Readonly<Record<string, string>>;
  /** Folder read back after the verifier (its files are kept in the trial's logs), if any. */
  readonly rewardDir?: string;
  verdict(stdout: string, stderr: string, exitCode: number, files: Readonly<Record<string, string | undefined>>): VerifierVerdict;
}

export const TB1_TEST_DIR = '/tests';
export const TB1_LOGS_DIR = '/logs';
export const TB1_AGENT_LOGS_DIR = '/agent-logs';
export const HARBOR_VERIFIER_DIR = '/logs/verifier';

function tb1Plan(task: Task, imageName: string, containerName: string): FormatPlan {
  return {
    // The variables TB1's docker-compose files are written against, with the container-side values;
    // TEST_DIR is what TB1's default compose file exports into the client container.
    containerEnv: {
      ...task.environment.env,
      TEST_DIR: TB1_TEST_DIR,
      T_BENCH_TEST_DIR: TB1_TEST_DIR,
      T_BENCH_CONTAINER_LOGS_PATH: TB1_LOGS_DIR,
      T_BENCH_CONTAINER_AGENT_LOGS_PATH: TB1_AGENT_LOGS_DIR,
      T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME: imageName,
      T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME: containerName,
      T_BENCH_TASK_DOCKER_NAME_PREFIX: `tw_${task.id}`,
    },
    mkdirs: [TB1_LOGS_DIR, TB1_AGENT_LOGS_DIR, TB1_TEST_DIR],
    testsTarget: TB1_TEST_DIR,
    extraTestFiles: [[task.verifier.entry, 'run-tests.sh']],
    verifyCommand: ['bash', `${TB1_TEST_DIR}/run-tests.sh`],
    verifierTimeoutSec: task.timeouts.verifierSec,
    verifierEnv: { ...task.verifier.env },
    verdict(stdout, stderr) {
      const s = parsePytestSummary(`${stdout}\n${stderr}`);
      if (!s.found) return { reward: 0, detail: 'no pytest short test summary in the output (TB1: parse error, unresolved)' };
      const skips = s.countedSkips ? `; ${s.countedSkips} skipped/xfailed counted as passed` : '';
      return {
        reward: s.resolved ? 1 : 0,
        detail: `${s.passed}/${s.tests.length} tests passed${skips}`,
        countedSkips: s.countedSkips,
      };
    },
  };
}

/** Harbor reads `reward.txt` (a number) or `reward.json` (`{"reward": x}` or one numeric field). */
export function parseHarborReward(files: Readonly<Record<string, string | undefined>>): { reward: number | null; detail: string } {
  const txt = files['reward.txt'];
  if (txt !== undefined) {
    const n = Number(txt.trim());
    if (txt.trim() !== '' && Number.isFinite(n)) return { reward: n, detail: `reward.txt = ${txt.trim()}` };
    return { reward: null, detail: `reward.txt is not a number: ${JSON.stringify(txt.slice(0, 80))}` };
  }
  const json = files['reward.json'];
  if (json !== undefined) {
    try {
      const v: unknown = JSON.parse(json);
      if (typeof v === 'number') return { reward: v, detail: `reward.json = ${v}` };
      if (v && typeof v === 'object') {
        const rec = v as Record<string, unknown>;
        const r = typeof rec.reward === 'number' ? rec.reward : undefined;
        const nums = Object.values(rec).filter((x): x is number => typeof x === 'number');
        const value = r ?? (nums.length === 1 ? nums[0] : undefined);
        if (value !== undefined) return { reward: value, detail: `reward.json reward = ${value}` };
      }
      return { reward: null, detail: 'reward.json has no numeric reward' };
    } catch {
      return { reward: null, detail: 'reward.json is not valid JSON' };
    }
  }
  return { reward: null, detail: 'the verifier wrote neither /logs/verifier/reward.txt nor reward.json' };
}

function harborPlan(task: Task): FormatPlan {
  return {
    containerEnv: { ...task.environment.env },
    mkdirs: ['/logs/agent', HARBOR_VERIFIER_DIR, '/tests'],
    testsTarget: '/tests',
    extraTestFiles: [],
    verifyCommand: ['bash', '/tests/test.sh'],
    verifierTimeoutSec: task.timeouts.verifierSec,
    verifierEnv: { ...task.verifier.env },
    rewardDir: HARBOR_VERIFIER_DIR,
    verdict(_stdout, _stderr, _exitCode, files) {
      return parseHarborReward(files);
    },
  };
}

export function planFor(task: Task, imageName: string, containerName: string): FormatPlan {
  return task.format === 'tb1' ? tb1Plan(task, imageName, containerName) : harborPlan(task);
}
