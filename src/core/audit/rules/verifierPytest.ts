/** pytest runs whose output the harness cannot read (Terminal-Bench 1 needs `-rA`). */
import type { ShellCommand, ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { isPytestCommand } from './commands';
import { cmdRange, scripts } from './verifierShared';

/** The file `cmd`'s output was redirected to is later `cat`ed to the session. */
function printedBack(script: ShellScript, cmd: ShellCommand): boolean {
  const targets = new Set<string>();
  for (let p = cmd.node.parent; p; p = p.parent) {
    for (const r of p.children) {
      if (r.field !== 'redirect') continue;
      const d = r.children.find((c) => c.field === 'destination');
      if (d) targets.add(script.tree.text.slice(d.start, d.end).replace(/^["']|["']$/g, ''));
    }
  }
  for (const r of cmd.redirects) targets.add(r.target);
  return script.commands.some((c) => c.start > cmd.end && c.name === 'cat' && !c.stdoutCaptured && c.args.some((a) => targets.has(a.value)));
}

function iniHasRA(ctx: AuditContext): boolean {
  return ctx.textFiles().some((f) => /(pytest\.ini|pyproject\.toml|setup\.cfg|tox\.ini)$/.test(f) && /addopts[^\n]*-r\w*[AP]/.test(ctx.text(f) ?? ''));
}

export const tb1MissingRA: StaticRule = {
  id: 'tb1-missing-ra', class: 'infra', severity: 'error', fixable: true,
  title: 'Terminal-Bench 1 pytest parser: pytest runs without `-rA`',
  *check(ctx) {
    if (ctx.task.format !== 'tb1' || (ctx.task.verifier.parserName ?? 'pytest') !== 'pytest') return;
    if (iniHasRA(ctx)) return;
    for (const { file, script } of scripts(ctx)) {
      // A script that prints its own "short test summary info" block feeds the parser itself.
      if (script.commands.some((c) => (c.name === 'echo' || c.name === 'printf') && c.args.some((a) => /short test summary info/.test(a.value)))) continue;
      for (const cmd of script.commands) {
        if (!isPytestCommand(cmd)) continue;
        // Output sent to a file (and never printed back) or captured in `$(…)` is not what the parser reads.
        if (cmd.stdoutCaptured && !printedBack(script, cmd)) continue;
        const ws = cmd.args.map((a) => a.value);
        // `-rA`, `-rfEP`, or the flags as the next word (`-r fEsxXpP`): passed tests are listed (P/p/A).
        if (ws.some((w, i) => /^-r\w*[APp]/.test(w) || (w === '-r' && /[APp]/.test(ws[i + 1] ?? '')) || w === '--co' || w === '--collect-only')) continue;
        const pyWord = [cmd.nameWord, ...cmd.args].find((a) => /(^|\/)(pytest|py\.test)$/.test(a.value) || a.value === 'pytest');
        const at = pyWord ? ctx.range(file, pyWord.end, pyWord.end) : undefined;
        yield {
          file, range: cmdRange(ctx, file, cmd),
          message: 'The Terminal-Bench 1 pytest parser reads the "short test summary" lines, which list passing tests only with `-rA`: without it every test counts as failed.',
          ...(at ? { fix: { title: 'Add `-rA`', preferred: true, edits: [{ file, range: at, newText: ' -rA' }] } } : {}),
        };
      }
    }
  },
};
