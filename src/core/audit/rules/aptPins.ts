// apt pins that break: a revision from an update pocket disappears when the next update supersedes it.
import type { StaticRule } from '../rule';
import { installOf } from './commands';
import { dfFile, runCmdRange, runCommands } from './dockerfile';

/**
 * Revisions from an update pocket, which the archive drops when the next update supersedes them:
 * Debian stable/security updates (`+deb12u2`, `~deb12u1`, backports `~bpo12+1`) and Ubuntu SRUs
 * (`ubuntu10.6`, `build1.1`, `~22.04.1`). A release-pocket revision (`-7ubuntu1`, `-1build5`,
 * `7.3.0-2`, a binNMU `+b1`) stays in its release for the release's life: pinning it keeps building.
 */
const UPDATE_REVISION = /[+~]deb\d+u\d+|~bpo\d|ubuntu\d+\.\d|build\d+\.\d|~\d\d\.\d\d(\.\d+)?$/;

export const aptExactVersionPin: StaticRule = {
  id: 'apt-exact-version-pin', class: 'brittleness', severity: 'warning',
  title: 'An apt package is pinned to an exact Debian/Ubuntu revision',
  *check(ctx) {
    const df = ctx.dockerfile();
    const file = dfFile(ctx);
    const report = (spec: string) => `\`${spec}\` pins a revision from an update pocket (a point release, security update or SRU): the archive drops it when the next update supersedes it, so the build breaks months later. Pin the base image by digest or use a snapshot mirror instead.`;
    if (df) {
      for (const { run, cmd } of runCommands(df)) {
        const inst = installOf(cmd);
        if (inst?.manager !== 'apt') continue;
        for (const p of inst.packages) {
          const ver = p.spec.split('=')[1];
          if (!ver || !UPDATE_REVISION.test(ver)) continue;
          const w = cmd.args[p.argIndex];
          yield { file, range: w ? df.lines.rangeOf(run.instruction.argsOffset + w.start, run.instruction.argsOffset + w.end) : runCmdRange(df, run, cmd), message: report(p.spec) };
        }
      }
    }
    const sol = ctx.solutionScript;
    const script = ctx.shell(sol);
    if (sol && script) {
      for (const cmd of script.commands) {
        const inst = installOf(cmd);
        if (inst?.manager !== 'apt') continue;
        for (const p of inst.packages) {
          const ver = p.spec.split('=')[1];
          const w = cmd.args[p.argIndex];
          if (ver && UPDATE_REVISION.test(ver) && w) yield { file: sol, range: ctx.range(sol, w.start, w.end), message: report(p.spec) };
        }
      }
    }
  },
};
