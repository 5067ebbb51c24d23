import path from 'node:path';
import type { Task, TaskVerifier } from '../model/task';

/**
 * The views the audit runs its rules on: the task itself (loaded through its first step) and, for a
 * multi-step Harbor task, one view per later step with that step's instruction, tests and solution.
 * Loader problems belong to the task and are reported once, from the first view.
 */
export function auditViews(task: Task): Task[] {
  const steps = task.steps;
  if (!steps || steps.length < 2) return [readInPlace(task)];
  const strategy = task.multiStepRewardStrategy;
  const views: Task[] = [];
  steps.forEach((st, index) => {
    const step = { name: st.name, index, final: index === steps.length - 1, ...(strategy !== undefined ? { rewardStrategy: strategy } : {}) };
    if (index === 0) { views.push({ ...task, step }); return; }
    const { instruction: _first, fields, ...rest } = task;
    const { instruction: _field, ...otherFields } = fields;
    views.push({
      ...rest,
      instructionFile: st.instructionFile,
      ...(st.instruction !== undefined ? { instruction: st.instruction } : {}),
      // The instruction's source range is the first step's: later steps locate text by search.
      fields: otherFields,
      verifier: { ...withoutShared(task.verifier), entry: st.verifierEntry, testsDir: st.testsDir, ...(st.sharedTestsDir !== undefined ? { sharedTestsDir: st.sharedTestsDir } : {}) },
      solution: { ...task.solution, ...(st.solutionFile !== undefined ? { file: st.solutionFile } : {}) },
      problems: [],
      step,
    });
  });
  return views;
}

function withoutShared(v: TaskVerifier): TaskVerifier {
  const { sharedTestsDir: _shared, ...rest } = v;
  return rest;
}

/**
 * A verifier script, solution or Dockerfile the loader found where the harness does not look (its missing-*
 * finding points there) is audited where it stands: the maintainer's fix is to move it, and its own
 * defects (an unguarded test run under `set -e`, pytest open to a planted conftest) move with it.
 * A misplaced script's folder stands in for tests/ unless it is the task root; a misplaced
 * Dockerfile's folder is its build context. Sandbox runs never see this view.
 */
function readInPlace(task: Task): Task {
  const v = task.verifier;
  const entry = v.misplacedEntry !== undefined && !task.files.includes(v.entry) ? v.misplacedEntry : undefined;
  const solution = task.solution.file === undefined ? task.solution.misplacedFile : undefined;
  const env = task.environment;
  const dockerfile = env.dockerfile === undefined ? env.misplacedDockerfile : undefined;
  if (entry === undefined && solution === undefined && dockerfile === undefined) return task;
  // A script at the task root keeps tests/ as its tests folder: the root holds everything else too.
  const dir = entry === undefined ? '.' : path.posix.dirname(entry);
  return {
    ...task,
    // A misplaced Dockerfile's own folder is the context its COPY lines were written against.
    ...(dockerfile !== undefined ? { environment: { ...env, dockerfile, contextDir: path.posix.dirname(dockerfile) } } : {}),
    ...(entry !== undefined ? { verifier: { ...withoutShared(v), entry, ...(dir !== '.' ? { testsDir: dir } : {}) } } : {}),
    ...(solution !== undefined ? { solution: { ...task.solution, file: solution } } : {}),
  };
}
