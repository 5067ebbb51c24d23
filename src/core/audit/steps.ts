import type { Task, TaskVerifier } from '../model/task';

/**
 * The views the audit runs its rules on: the task itself (loaded through its first step) and, for a
 * multi-step Harbor task, one view per later step with that step's instruction, tests and solution.
 * Loader problems belong to the task and are reported once, from the first view.
 */
export function auditViews(task: Task): Task[] {
  const steps = task.steps;
  if (!steps || steps.length < 2) return [task];
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
