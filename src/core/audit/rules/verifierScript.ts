import type { Fix, TextEdit } from '../../model/finding';
import type { Range } from '../../model/positions';
import { effectiveWords, optionsAt, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { downloadOf, installOf, isPytestCommand, isTestCommand, rewardWriteOf } from './commands';
import { resolveWord, workingDirAt } from './workingDir';

const HARBOR_REWARD = /^\/logs\/verifier\/reward\.(txt|json)$/;

function* scripts(ctx: AuditContext): Generator<{ file: string; script: ShellScript }> {
  for (const file of ctx.verifierScripts) {
    const script = ctx.shell(file);
    if (script) yield { file, script };
  }
}

function cmdRange(ctx: AuditContext, file: string, cmd: ShellCommand): Range {
  return ctx.range(file, cmd.start, cmd.end);
}

function verifierHasNetwork(ctx: AuditContext): boolean {
  const modes = [ctx.task.environment.networkMode, ctx.task.agent.networkMode];
  return modes.some((m) => m !== undefined && m !== 'none');
}

/** Moves `pip install pkg==v` from the verifier into the Dockerfile (appends a RUN line). */
function moveInstallFix(ctx: AuditContext, file: string, cmd: ShellCommand, specs: readonly string[]): Fix | undefined {
  const dockerfile = ctx.task.environment.dockerfile;
  const dfText = ctx.text(dockerfile);
  if (!dockerfile || dfText === undefined || cmd.pipeline || cmd.conditional || cmd.guarded) return undefined;
  const lines = ctx.lines(file);
  const start = lines.positionAt(cmd.start);
  const lineText = lines.text.slice(lines.offsetAt({ line: start.line, character: 0 }), lines.offsetAt(lines.lineRange(start.line).end));
  // Only whole-line commands: removing part of a `a && b` line is not mechanical.
  if (lineText.trim() !== lines.text.slice(cmd.start, cmd.end).trim()) return undefined;
  const dfLines = ctx.lines(dockerfile);
  const end = dfLines.positionAt(dfText.length);
  const sep = dfText.endsWith('\n') || dfText.length === 0 ? '' : '\n';
  const edits: TextEdit[] = [
    { file, range: { start: { line: start.line, character: 0 }, end: { line: start.line + 1, character: 0 } }, newText: '' },
    { file: dockerfile, range: { start: end, end }, newText: `${sep}RUN pip install --no-cache-dir ${specs.join(' ')}\n` },
  ];
  return { title: `Install ${specs.join(' ')} in the image instead of at test time`, edits, preferred: false };
}

/** `pip install`, `python3 -m pip install`, `apt-get install`…: the words up to the verb. */
function installLabel(cmd: ShellCommand): string {
  const w = effectiveWords(cmd);
  const verb = w.findIndex((x) => x === 'install' || x === 'add' || x === 'i');
  return verb > 0 ? w.slice(0, verb + 1).join(' ') : (w[0] ?? 'install');
}

export const testTimeNetworkInstall: StaticRule = {
  id: 'test-time-network-install', class: 'brittleness', severity: 'warning', fixable: true,
  title: 'The verifier installs packages or downloads files while grading',
  *check(ctx) {
    const severity = verifierHasNetwork(ctx) ? 'info' : 'warning';
    for (const { file, script } of scripts(ctx)) {
      // One finding per script, at the first command that needs the network; the others are related.
      const hits: { cmd: ShellCommand; what: string; pipSpecs?: string[] }[] = [];
      for (const cmd of script.commands) {
        const inst = installOf(cmd);
        if (inst && (inst.packages.length > 0 || inst.fromFile)) {
          const pinnedPip = inst.manager === 'pip' && inst.packages.length > 0 && inst.packages.every((p) => p.pinned) && !inst.fromFile;
          hits.push({ cmd, what: installLabel(cmd), ...(pinnedPip ? { pipSpecs: inst.packages.map((p) => p.spec) } : {}) });
          continue;
        }
        const dl = downloadOf(cmd);
        if (dl) hits.push({ cmd, what: `${dl.kind === 'clone' ? 'git clone' : effectiveWords(cmd)[0] ?? 'download'} ${dl.url}` });
      }
      const first = hits[0];
      if (!first) continue;
      const fix = hits.length === 1 && first.pipSpecs ? moveInstallFix(ctx, file, first.cmd, first.pipSpecs) : undefined;
      const more = hits.length > 1 ? ` (and ${hits.length - 1} more command${hits.length > 2 ? 's' : ''} that need the network)` : '';
      yield {
        file, range: cmdRange(ctx, file, first.cmd), severity,
        message: `The verifier runs \`${first.what}\` at grading time${more}: the reward then depends on package indexes and hosts being reachable. Install what the tests need in the image.`,
        ...(hits.length > 1 ? { related: hits.slice(1).map((h) => ({ file, range: cmdRange(ctx, file, h.cmd), message: `also needs the network: ${h.what}` })) } : {}),
        ...(fix ? { fix } : {}),
      };
    }
  },
};

export const unpinnedTestDependency: StaticRule = {
  id: 'unpinned-test-dependency', class: 'brittleness', severity: 'warning',
  title: 'The verifier installs a dependency without pinning its version',
  *check(ctx) {
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const inst = installOf(cmd);
        if (inst && inst.manager !== 'apt') {
          for (const p of inst.packages.filter((x) => !x.pinned)) {
            const w = cmd.args[p.argIndex];
            yield {
              file, range: w ? ctx.range(file, w.start, w.end) : cmdRange(ctx, file, cmd),
              message: `\`${p.spec}\` is installed at test time without a version: the verifier changes whenever a new release appears. Pin it (\`${p.name}==<version>\`).`,
            };
          }
        }
        const dl = downloadOf(cmd);
        if (dl && (/\/raw\/(master|main)\/|refs\/heads\/|\/(master|main)\/|\/latest\//.test(dl.url))) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `${dl.url} points at a moving branch or "latest": the downloaded content changes over time. Use a tag or commit SHA.` };
        } else if (dl?.kind === 'clone') {
          const w = effectiveWords(cmd);
          const pinnedClone = w.includes('--branch') || w.includes('-b') || script.commands.some((c) => c.start > cmd.start && c.name === 'git' && c.args.some((a) => a.value === 'checkout'));
          if (!pinnedClone) yield { file, range: cmdRange(ctx, file, cmd), message: `\`git clone ${dl.url}\` takes whatever the default branch holds at grading time. Clone a tag (\`--branch <tag>\`) or check out a commit.` };
        }
      }
    }
  },
};

/** The reward is decided from the test command's status (Harbor verifiers write their own reward). */
function writesRewardFromStatus(ctx: AuditContext): boolean {
  return ctx.task.format === 'harbor';
}

export const exitCodeMasking: StaticRule = {
  id: 'exit-code-masking', class: 'misalignment', severity: 'error', fixable: true,
  title: 'The test command\'s failure is discarded (`|| true`) before the reward is decided',
  *check(ctx) {
    if (!writesRewardFromStatus(ctx)) return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        if (!isTestCommand(cmd) || !cmd.orTrue) continue;
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
        if (!isTestCommand(cmd) || !cmd.pipeline || cmd.pipeline.index === cmd.pipeline.length - 1) continue;
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

export const rewardNotWrittenOnFailure: StaticRule = {
  id: 'reward-not-written-on-failure', class: 'infra', severity: 'warning',
  title: '`set -e` stops the verifier before it writes reward 0',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    for (const { file, script } of scripts(ctx)) {
      const rewards = script.commands.filter((c) => rewardWriteOf(c));
      if (rewards.length === 0) continue;
      for (const cmd of script.commands) {
        if (!isTestCommand(cmd) || cmd.guarded || cmd.orTrue || cmd.conditional || cmd.inSubstitution) continue;
        const opts = optionsAt(script, cmd.start);
        if (!opts.errexit) continue;
        if (cmd.pipeline && !opts.pipefail && cmd.pipeline.index < cmd.pipeline.length - 1) continue;
        if (!rewards.some((r) => r.start > cmd.end)) continue;
        if (script.commands.some((c) => c.name === 'trap' && /EXIT|ERR/.test(c.args.map((a) => a.value).join(' ')))) continue;
        yield {
          file, range: cmdRange(ctx, file, cmd),
          message: 'With `set -e` in effect, a failing test run exits the script here, before the reward is written: the trial ends without a reward instead of with 0.',
        };
      }
    }
  },
};

export const rewardPathMismatch: StaticRule = {
  id: 'reward-path-mismatch', class: 'infra', severity: 'error',
  title: 'The reward is written somewhere the harness does not read',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const rw = rewardWriteOf(cmd);
        if (!rw || !rw.target.startsWith('/') || rw.target.includes('$')) continue;
        if (HARBOR_REWARD.test(rw.target)) continue;
        yield { file, range: cmdRange(ctx, file, cmd), message: `The reward goes to ${rw.target}, but the harness reads /logs/verifier/reward.txt (or reward.json).` };
      }
    }
  },
};

export const noRewardWritten: StaticRule = {
  id: 'no-reward-written', class: 'infra', severity: 'error',
  title: 'Nothing in the verifier writes a reward file',
  *check(ctx) {
    if (ctx.task.format !== 'harbor') return;
    const entry = ctx.task.verifier.entry;
    if (ctx.text(entry) === undefined) return;
    const tests = ctx.task.verifier.testsDir || 'tests';
    const any = ctx.textFiles().some((f) => (f === entry || f.startsWith(`${tests}/`)) && /reward/i.test(ctx.text(f) ?? ''));
    if (any) return;
    yield { file: entry, message: `${entry} never writes /logs/verifier/reward.txt (or reward.json), and no file under ${tests}/ mentions a reward: every trial ends without a verdict.` };
  },
};

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
      for (const cmd of script.commands) {
        if (!isPytestCommand(cmd)) continue;
        const ws = cmd.args.map((a) => a.value);
        if (ws.some((w) => /^-r\w*[AP]/.test(w) || w === '--co' || w === '--collect-only')) continue;
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

/** pytest options that take a separate value word (so the value is not read as a path to collect). */
const PYTEST_VALUE_OPTS = new Set(['-k', '-m', '-p', '-o', '-c', '-W', '--tb', '--rootdir', '--confcutdir', '--basetemp', '--junitxml', '--junit-xml', '--ctrf', '--json-report-file', '--log-file', '--durations', '--maxfail', '--deselect', '--ignore', '--ignore-glob', '--timeout', '--override-ini', '--config-file', '--color', '--import-mode', '-n', '--dist', '--cov', '--cov-report', '--html', '--report-log']);

/** The words after the pytest program itself (`pytest …`, `python -m pytest …`, `uvx … pytest …`). */
function pytestArgs(words: readonly string[]): string[] {
  const i = words.findIndex((w, k) => /^(py\.?test)([=@].*)?$/.test(w) && (k === 0 || words[k - 1] !== '--with' && words[k - 1] !== '-w' && words[k - 1] !== '--from'));
  return i < 0 ? [] : words.slice(i + 1);
}

/** The paths pytest is asked to collect (`file.py`, `dir/`, `file.py::test`), as written. */
function collectTargets(args: readonly string[]): { paths: string[]; opaque: boolean } {
  const out: string[] = [];
  let opaque = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] ?? '';
    if (w.startsWith('-')) { if (PYTEST_VALUE_OPTS.has(w)) i++; continue; }
    // Values of options not in the table (`--reruns 3`) are not paths: keep only path-like words.
    const target = w.split('::')[0] ?? w;
    if (/\.py$|\/|^\.{1,2}$|^tests?$/.test(target)) out.push(target);
    else if (/[$`*]/.test(target)) opaque = true;
  }
  return { paths: out, opaque };
}

/** `python -P`, `-I` or `PYTHONSAFEPATH`: the current folder is not put on sys.path. */
function safePath(ctx: AuditContext, file: string, cmd: ShellCommand, words: readonly string[]): boolean {
  const py = words.findIndex((w) => /^python(3(\.\d+)?)?$/.test(w));
  const flags = words.slice(py + 1, words.indexOf('-m', py));
  return flags.some((f) => /^-[A-Za-z]*[PI]/.test(f)) || /PYTHONSAFEPATH=\S/.test(ctx.text(file)?.slice(0, cmd.end) ?? '');
}

export const pytestCollectionHijack: StaticRule = {
  id: 'pytest-collection-hijack', class: 'misalignment', severity: 'warning',
  title: 'pytest collects from a folder the agent can write (conftest.py / pytest.ini planting)',
  *check(ctx) {
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        if (!isPytestCommand(cmd)) continue;
        const words = effectiveWords(cmd);
        const ws = pytestArgs(words);
        const noConftest = ws.includes('--noconftest');
        const ownConfig = ws.some((w) => w === '-c' || w.startsWith('--config-file'));
        const cwd = workingDirAt(ctx, script, cmd);
        const cwdWritable = cwd !== undefined && ctx.isAgentWritable(cwd);
        // `python -m pytest` puts the current folder first on sys.path: a planted pytest.py there *is* pytest.
        const viaModule = words.some((w, i) => /^python(3(\.\d+)?)?$/.test(w) && words[i + 1] === '-m' && words[i + 2] === 'pytest');
        if (viaModule && cwdWritable && !safePath(ctx, file, cmd, words)) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `\`python -m pytest\` runs in ${cwd}, which the agent can write: Python imports modules from the current folder first, so a planted ${cwd}/pytest.py replaces pytest and can exit 0 without running a test (--noconftest does not prevent it). Run the \`pytest\` entry point, \`cd /tests\` first, or use \`python -P -m pytest\`.` };
          continue;
        }
        if (noConftest && ownConfig) continue;
        const { paths: targets, opaque } = collectTargets(ws);
        const resolved = cwd === undefined ? targets.filter((t) => t.startsWith('/')) : targets.map((t) => resolveWord(t, cwd)).filter((t): t is string => t !== undefined);
        const writable = resolved.find((t) => ctx.isAgentWritable(t) && !t.startsWith('/logs/'));
        if (writable) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `pytest collects ${writable}, which the agent can write: a planted conftest.py or pytest.ini there can skip every test and make pytest exit 0. Copy the tests to /tests at verification time and run with \`--noconftest -c /dev/null\`.` };
          continue;
        }
        // No path at all: pytest collects (and reads its ini and conftest.py from) the current folder.
        if (targets.length === 0 && !opaque && cwdWritable && !ws.some((w) => w.startsWith('--pyargs'))) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `pytest runs without a path in ${cwd}, which the agent can write: it collects whatever test files, conftest.py and pytest.ini the agent leaves there. Name the verifier's test file under /tests and add \`--noconftest -c /dev/null\`.` };
          continue;
        }
        const rootdir = ws.find((w) => w.startsWith('--rootdir='))?.split('=')[1] ?? (ws.includes('--rootdir') ? ws[ws.indexOf('--rootdir') + 1] : undefined);
        if (rootdir && ctx.isAgentWritable(rootdir)) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `\`--rootdir ${rootdir}\` is agent-writable: an ini file planted there configures the verifier's pytest.` };
        }
      }
    }
  },
};

export const verifierRunsAgentWritableCode: StaticRule = {
  id: 'verifier-runs-agent-writable-code', class: 'misalignment', severity: 'warning',
  title: 'The verifier runs a test script that lives in the agent\'s workspace',
  *check(ctx) {
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const w = effectiveWords(cmd);
        const n = w[0] ?? '';
        const target = /^(bash|sh|python3?|make)$/.test(n) ? w.slice(1).find((x) => !x.startsWith('-')) : n.includes('/') ? n : cmd.nameWord.value;
        if (!target || !target.startsWith('/') || !ctx.isAgentWritable(target)) continue;
        if (!/(test|check|verif|grade|judge|eval)[^/]*$/i.test(target)) continue;
        yield { file, range: cmdRange(ctx, file, cmd), message: `The verifier runs ${target}, which sits where the agent can rewrite it: the agent can make the judge say yes.` };
      }
    }
  },
};

export const missingTestDepsInImage: StaticRule = {
  id: 'missing-test-deps-in-image', class: 'brittleness', severity: 'info',
  title: 'The verifier runs pytest, but nothing installs it',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    if (df.froms.some((f) => /t-bench|terminal-bench|pytest|harbor/i.test(f.image))) return;
    // A requirements file may carry it: its content is not followed, so stay quiet.
    const fromFile = df.runs.some((r) => r.shell?.commands.some((c) => installOf(c)?.fromFile));
    const installedSomewhere = fromFile || /pytest/.test(df.text) || ctx.verifierScripts.some((f) => {
      const s = ctx.shell(f);
      return s?.commands.some((c) => installOf(c)?.packages.some((p) => p.name.includes('pytest')) || /setup-uv-pytest|uvx/.test(c.nameWord.value + c.args.map((a) => a.value).join(' '))) ?? false;
    });
    if (installedSomewhere) return;
    for (const { file, script } of scripts(ctx)) {
      const cmd = script.commands.find((c) => isPytestCommand(c) && !/^uvx?$/.test(effectiveWords(c)[0] ?? ''));
      if (!cmd) continue;
      yield { file, range: cmdRange(ctx, file, cmd), message: 'pytest is run here, but neither the Dockerfile nor the verifier installs it: the oracle scores 0 unless the base image happens to carry it.', related: ctx.task.environment.dockerfile ? [{ file: ctx.task.environment.dockerfile, message: 'no pytest install in the image' }] : [] };
      return;
    }
  },
};
