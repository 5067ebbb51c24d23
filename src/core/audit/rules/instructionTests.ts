/**
 * tests-unavailable-to-agent: the instruction has the agent run or read a file under /tests, which
 * Harbor uploads only after the agent's turn (for the verifier).
 */
import type { StaticRule } from '../rule';
import { imageFills } from './imageLayout';

/** A command that runs or reads the path right after it: `pytest /tests/x.py`, `python3 /tests/check.py`, `cat /tests/x`. */
const RUN_OR_READ = /\b(pytest|py\.test|python3?(?:\s+-m\s+pytest)?|bash|sh|node|npx|cat|less|head|diff|source)\s+((?:-[\w-]+(?:[= ][^\s`'"]+)?\s+)*)(\/tests\/[\w./-]+)/g;

/** Words of a sentence that describes how the task is graded. */
const GRADING = /\b(grad(e|ed|er|ing)|verif(y|ied|ier|ication)|evaluat\w*|scor(e|ed|ing)|harness|will be (run|checked|tested)|are run|is run|(is|are|will be) checked|tested (by|with)|hidden)\b/i;

/** A step the agent is told to take: a sentence or list item that starts with the verb, or says "you can". */
const IMPERATIVE = /^\s*(?:[-*]|\d+[.)])?\s*(?:\*\*[^*]*\*\*\s*[-—:]?\s*)?(run|use|execute|try|iterate|call|invoke|check|re-?run|test)\b|\byou (can|may|should|might)\b|\bwhile iterating\b|\b(iterate|check your work) with\b/i;

export const testsUnavailableToAgent: StaticRule = {
  id: 'tests-unavailable-to-agent', class: 'invalidity', severity: 'warning',
  title: 'The instruction has the agent run or read a file under /tests, which exists only after the agent\'s turn',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    const file = ctx.task.instructionFile;
    const text = ctx.instruction();
    if (!text || !file) return;
    // An image that already holds /tests gives the agent that copy (tests-copied-into-image weighs that).
    if (imageFills(ctx, '/tests')) return;
    const shipped = new Set(ctx.task.files);
    for (const m of text.matchAll(RUN_OR_READ)) {
      const p = m[3] ?? '';
      if (!shipped.has(ctx.testsPathOf(p) ?? '')) continue;
      const at = (m.index ?? 0) + m[0].length - p.length;
      // "Your work is graded by `pytest /tests/test_outputs.py`" tells how grading runs; only a step the
      // agent is to take is a defect.
      const sentence = text.slice(Math.max(text.lastIndexOf('\n', m.index ?? 0), text.lastIndexOf('. ', m.index ?? 0)) + 1, at);
      if (GRADING.test(sentence) || !IMPERATIVE.test(sentence)) continue;
      yield { file, range: ctx.range(file, at, at + p.length),
        message: `The instruction has the agent use ${p}, but Harbor uploads tests/ to /tests only after the agent finishes, for the verifier: during the agent's turn the file is not there. Give the agent its own copy (an example test in the image), or drop the step.` };
      return;
    }
  },
};
