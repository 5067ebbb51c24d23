import { callArgs, calleeName, stringValue, text } from '../../parse/python';
import { descendants, type SyntaxNode } from '../../parse/syntax';
import type { StaticRule } from '../rule';
import { PYTHON_STDLIB } from '../../parse/pythonStdlib';
import { imageLayout, madeByImage } from './imageLayout';
import { asserts, tests } from './pyTestFiles';

/** `sys.path.insert(0, "/app/src")`, `sys.path.append("/app")`: folders the tests import from. */
function importRoots(tree: Parameters<typeof text>[0], root: SyntaxNode): string[] {
  const out: string[] = [];
  for (const c of descendants(root, 'call')) {
    if (!/^sys\.path\.(insert|append)$/.test(calleeName(tree, c))) continue;
    const arg = callArgs(c).at(-1);
    const v = arg?.type === 'string' ? stringValue(tree, arg) : undefined;
    if (v?.startsWith('/')) out.push(v.replace(/\/+$/, ''));
  }
  return out;
}

/**
 * The tests put an agent-writable folder on `sys.path` and import a module the environment ships
 * there, which the instruction never hands to the agent as its work, then grade through that
 * module's own classes or functions (the model that loads the weights, the metric, the checker). The
 * agent runs as root in that folder: it can rewrite the module so the check measures whatever it
 * likes. The module the instruction asks the agent to write or fix is the work under test, not this.
 */
export const verifierImportsAgentModule: StaticRule = {
  id: 'verifier-imports-agent-module', class: 'misalignment', severity: 'warning',
  title: 'The tests grade through a shipped module the agent can edit',
  *check(ctx) {
    const prose = [ctx.instruction(), ...(ctx.task.steps ?? []).map((s) => s.instruction ?? '')].join('\n');
    // Without the instruction there is no telling the agent's assignment from the grader's code.
    if (prose.trim() === '') return;
    for (const tf of tests(ctx)) {
      const roots = importRoots(tf.tree, tf.tree.root).filter((r) => ctx.isAgentWritable(r) && !ctx.isReadOnlyMount(r));
      if (roots.length === 0) continue;
      for (const imp of descendants(tf.tree.root, 'import_from_statement')) {
        const mod = imp.children.find((c) => c.type === 'dotted_name');
        if (!mod) continue;
        const modName = text(tf.tree, mod);
        if (modName.includes('.')) continue;
        // A standard-library name (`from pathlib import Path`) is the interpreter's module unless the
        // image is seen to ship that very file: a folder of unknown content does not make it one.
        const ships = PYTHON_STDLIB.has(modName) ? (f: string) => imageLayout(ctx).files.has(f) : (f: string) => madeByImage(ctx, f);
        const file = roots.map((r) => `${r}/${modName}.py`).find(ships);
        if (!file) continue;
        // The agent's assignment: the instruction names the file (or the module) it is to change.
        if (new RegExp(`\\b${modName}(\\.py)?\\b`).test(prose)) continue;
        const names = imp.children.filter((c) => c.type === 'dotted_name' && c !== mod).map((c) => text(tf.tree, c));
        const aliased = descendants(imp, 'aliased_import').map((a) => text(tf.tree, a).split(/\s+as\s+/).pop() ?? '');
        const used = new Set([...names, ...aliased].filter(Boolean));
        if (used.size === 0) continue;
        // Graded through it: a test that asserts calls one of the imported names.
        const grades = tf.functions.some((fn) => fn.isTest && asserts(fn).length > 0
          && descendants(fn.body, 'call').some((c) => used.has(calleeName(tf.tree, c).split('.')[0] ?? '')));
        if (!grades) continue;
        yield {
          file: tf.file, range: ctx.range(tf.file, imp.start, imp.end),
          message: `The tests import ${[...used].join(', ')} from ${file}, which the image ships in a folder the agent can write and the instruction never gives the agent to change: the agent can rewrite it so the check measures what it likes. Ship the grading code with the tests (under /tests).`,
        };
      }
    }
  },
};
