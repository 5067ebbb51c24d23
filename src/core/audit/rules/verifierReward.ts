/** How the verifier turns test results into reward: masked exit codes and pipelines, unconditional or missing rewards. */
import type { Fix, RelatedLocation } from '../../model/finding';
import { effectiveWords, errexitSetAt, optionsAt, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { SCRIPT_INTERPRETER, installOf, isPytestCommand, isTestCommand, rewardWriteOf } from './commands';
import { pathOfWord, resolveWord, workingDirAt } from './workingDir';
import { HARBOR_REWARD, cmdRange, scripts } from './verifierShared';

/** The reward is decided from the test command's status (Harbor verifiers write their own reward). */
function writesRewardFromStatus(ctx: AuditContext): boolean {
  return ctx.task.format === 'harbor';
}

/** A file of the tests a command runs (`python3 /tests/verify.py`, `bash ./check.sh`), as a task path. */
function scriptsRun(ctx: AuditContext, cmd: ShellCommand): string[] {
  return cmd.args.map((a) => a.value).filter((v) => /\.(py|sh|js|mjs|ts)$/.test(v))
    .map((v) => ctx.testsPathOf(v) ?? `${ctx.testsDir}/${v.replace(/^\.\//, '').replace(/^.*\//, '')}`);
}

/**
 * The program the command runs writes the reward file itself (a grader that scores and writes
 * reward.txt): its exit status is not what the reward is decided from, so masking it loses nothing.
 */
function writesRewardItself(ctx: AuditContext, cmd: ShellCommand): boolean {
  return scriptsRun(ctx, cmd).some((f) => {
    const t = ctx.text(f) ?? '';
    return /reward\.(txt|json)/.test(t) && /\b(write_text|write|dump|writeFileSync)\b|>\s*\S*reward/.test(t);
  });
}

export const exitCodeMasking: StaticRule = {
  id: 'exit-code-masking', class: 'misalignment', severity: 'error', fixable: true,
  title: 'The test command\'s failure is discarded (`|| true`) before the reward is decided',
  *check(ctx) {
    if (!writesRewardFromStatus(ctx)) return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        // Inside `$(…)` the status is the capture's, not what the reward is decided from.
        if (!isTestCommand(cmd) || !cmd.orTrue || cmd.inSubstitution || writesRewardItself(ctx, cmd)) continue;
        const later = script.tree.text.slice(cmd.end);
        if (!/\$\?|reward/.test(later)) continue;
        const src = script.tree.text;
        const tail = /^([^|\n]*?)(\s*\|\|\s*(true|:|exit\s+0))/.exec(src.slice(cmd.end));
        const fix: Fix | undefined = tail && !cmd.pipeline
          ? { title: 'Remove `|| true`', preferred: false, edits: [{ file, range: ctx.range(file, cmd.end + (tail[1]?.length ?? 0), cmd.end + tail[0].length), newText: '' }] }
          : undefined;
        yield {
          file, range: cmdRange(ctx, file, cmd),
          message: 'The test command ends in `|| true`, so the status the reward is decided from is always 0: failing work gets reward 1.',
          ...(fix ? { fix } : {}),
        };
      }
    }
  },
};

function pipefailFix(ctx: AuditContext, file: string): Fix {
  const text = ctx.text(file) ?? '';
  const line = text.startsWith('#!') ? 1 : 0;
  return { title: 'Add `set -o pipefail`', preferred: true, edits: [{ file, range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: 'set -o pipefail\n' }] };
}

export const pipelineStatusMasked: StaticRule = {
  id: 'pipeline-status-masked', class: 'misalignment', severity: 'error', fixable: true,
  title: 'The test command is piped (`| tee`) without `pipefail`, so its failure is lost',
  *check(ctx) {
    if (!writesRewardFromStatus(ctx)) return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        if (!isTestCommand(cmd) || !cmd.pipeline || cmd.pipeline.index === cmd.pipeline.length - 1 || writesRewardItself(ctx, cmd)) continue;
        if (optionsAt(script, cmd.start).pipefail) continue;
        const later = script.tree.text.slice(cmd.end);
        if (!(cmd.guarded || optionsAt(script, cmd.start).errexit || /\$\?|PIPESTATUS/.test(later))) continue;
        if (/PIPESTATUS/.test(later)) continue;
        yield {
          file, range: cmdRange(ctx, file, cmd),
          message: 'The pipeline\'s status is that of its last command, not of the tests: without `set -o pipefail` failing tests still give reward 1.',
          fix: pipefailFix(ctx, file),
        };
      }
    }
  },
};

export const unconditionalReward: StaticRule = {
  id: 'unconditional-reward', class: 'misalignment', severity: 'error',
  title: 'The verifier writes reward 1 whatever the tests say',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    // Under multi_step_reward_strategy "final" only the last step's reward is the task's reward:
    // an earlier step that always passes grades nothing, which is a choice, not a defect.
    const step = ctx.task.step;
    if (step && !step.final && step.rewardStrategy === 'final') return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const rw = rewardWriteOf(cmd);
        if (!rw || rw.value === undefined || !/^(1(\.0+)?|\{.*:\s*1(\.0+)?\s*\})$/.test(rw.value)) continue;
        if (cmd.conditional || cmd.guarded || cmd.inFunction) continue;
        if (optionsAt(script, cmd.start).errexit) continue;
        const before = script.commands.filter((c) => c.end <= cmd.start);
        // Any earlier exit path (`|| exit 1`, an `if … exit`) means reaching this line proves something.
        if (before.some((c) => c.name === 'exit' || c.name === 'return')) continue;
        yield {
          file, range: cmdRange(ctx, file, cmd),
          message: 'Reward 1 is written on every path through the script, whatever the tests decided: a null agent gets full reward.',
        };
      }
    }
  },
};

/** Where `set -e` (or `set -o errexit`) that governs `cmd` was turned on: shown beside the finding, as readers point there. */
function errexitAt(ctx: AuditContext, file: string, script: ShellScript, cmd: ShellCommand): RelatedLocation[] {
  const at = errexitSetAt(script, cmd.start);
  const on = at === undefined ? undefined : script.commands.find((c) => c.start === at);
  return on ? [{ file, range: cmdRange(ctx, file, on), message: '`set -e` is turned on here' }] : [];
}

export const rewardNotWrittenOnFailure: StaticRule = {
  id: 'reward-not-written-on-failure', class: 'infra', severity: 'warning',
  title: '`set -e` stops the verifier before it writes reward 0',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    for (const { file, script } of scripts(ctx)) {
      const rewards = script.commands.filter((c) => rewardWriteOf(c));
      if (rewards.length === 0) continue;
      let reported = false;
      // A trap on EXIT or ERR writes a reward however the script ends.
      const trapped = script.commands.some((c) => c.name === 'trap' && /EXIT|ERR/.test(c.args.map((a) => a.value).join(' ')));
      // A reward written on every path before the command (a fallback 0) is what a failure leaves.
      // One written on a branch (`if [ ! -f out ]; then echo 0 > reward; exit 0; fi`) covers nothing after it.
      const fallbackBefore = (c: ShellCommand): boolean => rewards.some((r) => r.end <= c.start && !r.conditional && !r.inFunction);
      for (const cmd of script.commands) {
        // `set -e` spares only a command whose status is examined (an if condition, the left of
        // `&&`/`||`): one in an if branch or after the last `&&` still ends the script when it fails.
        if (!isTestCommand(cmd) || cmd.guarded || cmd.orTrue || cmd.inFunction || cmd.inSubstitution) continue;
        const opts = optionsAt(script, cmd.start);
        if (!opts.errexit) continue;
        if (cmd.pipeline && !opts.pipefail && cmd.pipeline.index < cmd.pipeline.length - 1) continue;
        if (!rewards.some((r) => r.start > cmd.end) || fallbackBefore(cmd)) continue;
        if (trapped) continue;
        reported = true;
        yield {
          file, range: cmdRange(ctx, file, cmd), related: errexitAt(ctx, file, script, cmd),
          message: 'With `set -e` in effect, a failing test run exits the script here, before the reward is written: the trial ends without a reward instead of with 0.',
        };
      }
      // An install (pip, npm, apt-get, playwright) that fails under `set -e` ends the script just the
      // same: reported once, at the first unguarded one, unless a reward (a fallback 0) is already
      // written before it or a trap writes one on exit. When the test run is reported already, the one
      // fix (a fallback 0 first, or a trap) covers the installs too, so they are not repeated.
      if (reported || trapped) continue;
      // Ends the script under `set -e` when it fails, with no reward written before it and one after it.
      const unguarded = (c: ShellCommand): boolean => !c.guarded && !c.orTrue && !c.conditional && !c.inSubstitution && !c.inFunction && optionsAt(script, c.start).errexit
        && !fallbackBefore(c) && rewards.some((r) => r.start > c.end);
      // The agent's own program, run before the tests (`python3 /app/solve.py > out.txt`): when the
      // agent's work is broken it fails, and `set -e` turns that failure into no verdict at all.
      const agentRun = script.commands.find((c) => unguarded(c) && !c.pipeline && (runsAgentProgram(ctx, script, c) || isCheck(c)));
      if (agentRun) {
        const what = isCheck(agentRun) ? 'checks the agent\'s work here' : 'runs the agent\'s program here';
        yield {
          file, range: cmdRange(ctx, file, agentRun), related: errexitAt(ctx, file, script, agentRun),
          message: `With \`set -e\` in effect, \`${agentRun.name}\` ${what}: when the agent's work is wrong it fails, the script exits before any reward is written, and a failed attempt becomes a trial without a verdict (counted as infra, not as the agent's failure). Write 0 to the reward file first, or guard the command.`,
        };
        continue;
      }
      const install = script.commands.find((c) => (installOf(c) !== undefined || isPlaywrightInstall(c.name, c.args.map((a) => a.value))) && unguarded(c));
      if (install) {
        yield {
          file, range: cmdRange(ctx, file, install), related: errexitAt(ctx, file, script, install),
          message: 'With `set -e` in effect, a failing install here (a registry or network hiccup) exits the script before any reward is written: the trial ends without a reward instead of with 0. Write 0 to the reward file first, or guard the install.',
        };
      }
    }
  },
};

/**
 * A check that fails when the work is wrong, run as a statement of its own: `diff`, `cmp`, `grep -q`,
 * `test`, `jq -e`, or Python fed from a heredoc (`python3 - <<EOF … sys.exit(1)`). (`[ … ]` is a test
 * expression in the parsed script, not a command: not seen here.)
 */
function isCheck(cmd: ShellCommand): boolean {
  const n = cmd.name ?? '';
  const w = cmd.args.map((a) => a.value);
  if (/^(diff|cmp|test)$/.test(n)) return true;
  if (n === 'grep' && w.some((x) => /^-[a-zA-Z]*q/.test(x))) return true;
  if (n === 'jq' && w.some((x) => /^-[a-zA-Z]*e/.test(x))) return true;
  // `python3 - <<EOF` and `python3 <<EOF` both run the heredoc as the program.
  return /^python[\d.]*$/.test(n) && (w.length === 0 || w[0] === '-') && cmd.stdinHeredoc;
}

/** The command runs a program or script from where the agent works (`/app/cli`, `python3 /app/solve.py`, `./run.sh` in /app). */
function runsAgentProgram(ctx: AuditContext, script: ShellScript, cmd: ShellCommand): boolean {
  if (isTestCommand(cmd)) return false;
  const w = cmd.args.map((a) => a.value);
  const interpreter = SCRIPT_INTERPRETER.test(cmd.name ?? '');
  const target = interpreter ? w.find((x) => !x.startsWith('-')) : cmd.name;
  // `python3 -m mod`, `python3 -c CODE`, `java -jar x.jar` (the jar is the target): only a path counts.
  if (target === undefined || (interpreter && w.some((x) => x === '-c' || x === '-m' || x === '-e'))) return false;
  // A program named by a path (`./cli`, `/app/bin/run`), or a script file an interpreter runs (`python3 solve.py`).
  const isPath = /\//.test(target) || (interpreter && /\.(py|js|mjs|sh|rb|pl|jar)$/.test(target));
  if (!isPath || /^\/(tests|logs|oracle|solution|usr|bin|opt\/venv)\//.test(target) || target.includes('$')) return false;
  const cwd = workingDirAt(ctx, script, cmd);
  const abs = pathOfWord(target, cwd);
  return abs !== undefined && ctx.isAgentWritable(abs) && !/^\/tmp\//.test(abs);
}

/** `playwright install …` / `npx playwright install …`: a download of browsers at verification time. */
function isPlaywrightInstall(name: string, args: readonly string[]): boolean {
  const w = name === 'npx' ? args.filter((a) => !a.startsWith('-')) : [name, ...args];
  return /^playwright(@\S+)?$/.test(w[0] ?? '') && w[1] === 'install';
}

/**
 * `echo 0 > /logs/verifier/reward.txt || echo 0 > ./reward.txt`: a write run only when a write to the
 * harness's reward file failed already. It is a fallback, not where the reward goes.
 */
function fallbackOfRewardWrite(script: ShellScript, cmd: ShellCommand): boolean {
  const text = script.tree.text;
  for (let p = cmd.node.parent; p && p.type !== 'program'; p = p.parent) {
    if (p.type !== 'list') continue;
    const [left, right] = p.children.filter((c) => c.named);
    if (!left || !right || cmd.start < right.start || !/^\s*\|\|/.test(text.slice(left.end, right.start))) continue;
    const earlier = script.commands.filter((c) => c.start >= left.start && c.end <= left.end);
    if (earlier.some((c) => { const w = rewardWriteOf(c); return w !== undefined && HARBOR_REWARD.test(w.target); })) return true;
  }
  return false;
}

/** Python that writes a literal reward path: `Path('reward.txt').write_text(…)`, `open("/app/reward.json", "w")`. */
const PY_REWARD_WRITE = /\b(?:Path\(\s*(['"])([^'"\n]*\breward\.(?:txt|json))\1\s*\)\s*\.write_(?:text|bytes)\(|open\(\s*(['"])([^'"\n]*\breward\.(?:txt|json))\3\s*,\s*['"][wa])/g;

/**
 * Reward writes in Python (the tests, or a heredoc of the verifier script) when nothing in the
 * verifier names /logs/verifier: a relative `reward.txt` lands in the working folder, an absolute path
 * elsewhere is not read. With /logs/verifier named anywhere the write may be a copy, or the folder the
 * script runs in: left alone.
 */
function* pythonRewardWrites(ctx: AuditContext): Generator<{ file: string; start: number; end: number; target: string }> {
  const files = [...ctx.verifierScripts, ...ctx.testPython];
  const mounted = new Set(ctx.mountedTests.map((m) => m.file));
  if (ctx.textFiles().some((f) => (f === ctx.task.verifier.entry || mounted.has(f)) && (ctx.text(f) ?? '').includes('/logs/verifier'))) return;
  for (const file of files) {
    const t = ctx.text(file) ?? '';
    for (const m of t.matchAll(PY_REWARD_WRITE)) {
      const target = m[2] ?? m[4] ?? '';
      if (HARBOR_REWARD.test(target)) continue;
      yield { file, start: m.index, end: m.index + m[0].length, target };
    }
  }
}

export const rewardPathMismatch: StaticRule = {
  id: 'reward-path-mismatch', class: 'infra', severity: 'error',
  title: 'The reward is written somewhere the harness does not read',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    for (const w of pythonRewardWrites(ctx)) {
      yield { file: w.file, range: ctx.range(w.file, w.start, w.end), message: `Python writes the reward to ${w.target}${w.target.startsWith('/') ? '' : ' (the working folder)'}, and nothing in the verifier names /logs/verifier: the harness reads /logs/verifier/reward.txt (or reward.json), so no trial gets a verdict. Write the absolute path.` };
    }
    for (const { file, script } of scripts(ctx)) {
      // A script that also writes the reward where the harness reads it (or to a folder it finds at run
      // time) makes the other writes extra copies ("for compatibility"): they decide nothing.
      // Same value, same run: `echo "$R" > "$DIR/reward.txt"` then `echo "$R" > reward.txt`.
      const said = (c: ShellCommand): string => c.args.map((a) => a.value).join(' ');
      const kept = new Set(script.commands.filter((c) => { const t = rewardWriteOf(c)?.target; return t !== undefined && (t.includes('$') || HARBOR_REWARD.test(t)); }).map(said));
      for (const cmd of script.commands) {
        const rw = rewardWriteOf(cmd);
        if (!rw || rw.target.includes('$') || fallbackOfRewardWrite(script, cmd) || kept.has(said(cmd))) continue;
        if (!rw.target.startsWith('/')) {
          // `echo 1 > reward.txt`: lands in the working folder, which is /logs/verifier only after a `cd` there.
          if (!/^(\.\/)?reward\.(txt|json)$/.test(rw.target)) continue;
          const cwd = workingDirAt(ctx, script, cmd);
          const abs = cwd === undefined ? undefined : resolveWord(rw.target, cwd);
          if (abs !== undefined && HARBOR_REWARD.test(abs)) continue;
          yield { file, range: cmdRange(ctx, file, cmd), message: `The reward goes to the relative path ${rw.target}, ${abs !== undefined ? `that is ${abs}` : 'in a working folder this script does not fix'}, but the harness reads /logs/verifier/reward.txt (or reward.json): write the absolute path.` };
          continue;
        }
        if (HARBOR_REWARD.test(rw.target)) continue;
        yield { file, range: cmdRange(ctx, file, cmd), message: `The reward goes to ${rw.target}, but the harness reads /logs/verifier/reward.txt (or reward.json).` };
      }
    }
  },
};

/** A program the image installs, run by absolute path (`/usr/local/bin/verify-task`), not an interpreter or a test runner. */
function programRun(c: ShellCommand): string | undefined {
  // effectiveWords drops the wrappers (`exec`, `timeout 60`…) and keeps the program's base name: the
  // word it started from, counted from the end, is the path as written.
  const words = [c.name, ...c.args.map((a) => a.value)];
  const prog = words[words.length - effectiveWords(c).length] ?? '';
  // Installed in the image (not the agent's /app or /tmp): something the verifier's image brings.
  return /^\/(usr|opt|bin|sbin|srv)\//.test(prog)
    && !/\/(python[\d.]*|bash|sh|node|pytest|uv|uvx|pip3?|npm|npx|java|go|cargo|dotnet|ruby|perl|Rscript)$/.test(prog) ? prog : undefined;
}

export const noRewardWritten: StaticRule = {
  id: 'no-reward-written', class: 'infra', severity: 'error',
  title: 'Nothing in the verifier writes a reward file',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    const entry = ctx.task.verifier.entry;
    if (ctx.text(entry) === undefined) return;
    const tests = ctx.task.verifier.testsDir || 'tests';
    // Every file the verifier gets under /tests counts: a multi-step task's shared tests/ helpers too.
    const mounted = new Set(ctx.mountedTests.map((m) => m.file));
    const any = ctx.textFiles().some((f) => (f === entry || mounted.has(f)) && /reward/i.test(ctx.text(f) ?? ''));
    if (any) return;
    // Anchored where a reader points: the test run whose verdict nothing turns into a reward (the
    // entry's first test command), else the file.
    const script = ctx.shell(entry);
    // Grading handed to a program the task does not contain (`exec /usr/local/bin/verify-task`, from the
    // verifier's image): it may write the reward; the files cannot say, so a note.
    const handedTo = script?.commands.map(programRun).find((p) => p !== undefined);
    if (handedTo) {
      yield { file: entry, severity: 'info', message: `${entry} hands grading to ${handedTo}, which the task does not contain, and no file under ${tests}/ mentions a reward: make sure ${handedTo} writes /logs/verifier/reward.txt (or reward.json), or every trial ends without a verdict.` };
      return;
    }
    const run = script?.commands.find((c) => isTestCommand(c));
    const where = run ? `; ${isPytestCommand(run) ? 'this pytest run' : 'this test run'} decides pass or fail, but its status never becomes a reward` : '';
    yield {
      file: entry, ...(run ? { range: cmdRange(ctx, entry, run) } : {}),
      message: `${entry} never writes /logs/verifier/reward.txt (or reward.json), and no file under ${tests}/ mentions a reward${where}: every trial ends without a verdict.`,
    };
  },
};

export const rewardJsonNotObject: StaticRule = {
  id: 'reward-json-not-object', class: 'infra', severity: 'error',
  title: 'A bare number is written to reward.json, which Harbor reads as an object of named rewards',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        if (cmd.name !== 'echo' && cmd.name !== 'printf') continue;
        const rw = rewardWriteOf(cmd);
        // Only a write the harness may read: /logs/verifier/reward.json, or a folder the script finds at run time.
        if (!rw || !/(^|\/)reward\.json$/.test(rw.target) || !(HARBOR_REWARD.test(rw.target) || rw.target.includes('$'))) continue;
        const words = cmd.args.map((a) => a.value).filter((v) => !/^-[neE]+$/.test(v));
        if (words.some((v) => v.includes('{') && !/^\$\{\w+\}$/.test(v))) continue;
        // A variable that may hold JSON (`R=$(python3 -c 'print(json.dumps(…))')`, `R='{"reward": 1}'`) is not known to be bare.
        const vars = words.flatMap((v) => [...v.matchAll(/\$\{?(\w+)\}?/g)].map((m) => m[1] ?? ''));
        if (vars.some((v) => new RegExp(`(^|[\\s;])${v}=[^\\n]*(\\{|json|jq)`, 'i').test(script.tree.text))) continue;
        // Harbor reads reward.json before reward.txt and validates it as {"name": number}: a bare
        // number fails that, and the trial ends in a verifier error instead of a score.
        const literal = rw.value !== undefined && !rw.value.startsWith('{');
        yield {
          file, range: cmdRange(ctx, file, cmd), ...(literal ? {} : { severity: 'warning' as const }),
          message: `This writes ${literal ? `the bare number ${rw.value}` : 'a bare value'} to ${rw.target}; Harbor reads reward.json first and expects an object of named rewards ({"reward": 1.0}), so the trial ends in a verifier error instead of a score. Write {"reward": …} there, or the number to reward.txt only.`,
        };
      }
    }
  },
};
