import path from 'node:path';
import type { Fix, TextEdit } from '../../model/finding';
import type { Range } from '../../model/positions';
import { effectiveWords, optionsAt, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { downloadOf, installOf, isPytestCommand, isTestCommand, pythonModule, rewardWriteOf } from './commands';
import { resolveWord, workingDirAt } from './workingDir';
import { pipInstallLine, pipTargetOf } from '../pythonImage';

const HARBOR_REWARD = /^\/logs\/verifier\/reward\.(txt|json)$/;

function* scripts(ctx: AuditContext): Generator<{ file: string; script: ShellScript }> {
  for (const file of ctx.verifierScripts) {
    const script = ctx.shell(file);
    if (script) yield { file, script };
  }
}

/** Names of the shell functions the script calls outside their own bodies. */
const calledCache = new WeakMap<ShellScript, Set<string>>();
function calledFunctions(script: ShellScript): Set<string> {
  let out = calledCache.get(script);
  if (!out) {
    out = new Set(script.commands.map((c) => c.name));
    calledCache.set(script, out);
  }
  return out;
}

/** The name of the function whose body holds `cmd` (empty when none). */
function functionNameOf(script: ShellScript, cmd: ShellCommand): string {
  for (let p = cmd.node.parent; p; p = p.parent) {
    if (p.type === 'function_definition') {
      const n = p.children.find((c) => c.field === 'name');
      return n ? script.tree.text.slice(n.start, n.end) : '';
    }
  }
  return '';
}

function cmdRange(ctx: AuditContext, file: string, cmd: ShellCommand): Range {
  return ctx.range(file, cmd.start, cmd.end);
}

/**
 * From the pytest word of a command to its end: in a command continued over lines
 * (`uvx \` / `--with pytest==8.4.1 \` / `pytest /tests/…`) the finding sits on the line that runs pytest.
 */
function pytestRange(ctx: AuditContext, file: string, cmd: ShellCommand): Range {
  const w = [cmd.nameWord, ...cmd.args].find((x) => /(^|\/)(py\.test|pytest)$/.test(x.value));
  return ctx.range(file, w ? w.start : cmd.start, cmd.end);
}

/**
 * Whether the verifier can reach the internet. Terminal-Bench 1 always runs with network; Harbor's
 * default is `public`, cut by `network_mode = "no-network"` (or legacy `allow_internet = false`)
 * for the verifier or the whole environment. `allowlist` may leave the index out: not offline.
 */
export function verifierOffline(ctx: AuditContext): boolean {
  if (ctx.task.format !== 'harbor') return false;
  const mode = ctx.task.verifier.networkMode ?? ctx.task.environment.networkMode ?? 'public';
  return mode === 'no-network' || mode === 'none';
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
  // The line must build on this base image: Debian 12+, Ubuntu 23.04+ and Alpine 3.19+ refuse a system-wide pip.
  const target = pipTargetOf(dfText);
  const sep = dfText.endsWith('\n') || dfText.length === 0 ? '' : '\n';
  const edits: TextEdit[] = [
    { file, range: { start: { line: start.line, character: 0 }, end: { line: start.line + 1, character: 0 } }, newText: '' },
    { file: dockerfile, range: { start: end, end }, newText: `${sep}${pipInstallLine(target, specs)}\n` },
  ];
  const how = target.kind === 'managed' ? ' (with --break-system-packages: the base image manages its Python)' : '';
  return { title: `Install ${specs.join(' ')} in the image instead of at test time${how}`, edits, preferred: false };
}

/** `pip install`, `python3 -m pip install`, `apt-get install`…: the words up to the verb. */
function installLabel(cmd: ShellCommand): string {
  const w = effectiveWords(cmd);
  const verb = w.findIndex((x) => x === 'install' || x === 'add' || x === 'i');
  return verb > 0 ? w.slice(0, verb + 1).join(' ') : (w[0] ?? 'install');
}

export const testTimeNetworkInstall: StaticRule = {
  id: 'test-time-network-install', class: 'brittleness', severity: 'info', fixable: true,
  title: 'The verifier installs packages or downloads files while grading',
  *check(ctx) {
    // With network declared (the default), an install at test time is a note: the pinned-ness of what
    // is installed is unpinned-test-dependency's business. Offline, the install cannot succeed.
    const severity = verifierOffline(ctx) ? 'warning' : 'info';
    const imageText = ctx.text(ctx.task.environment.dockerfile) ?? '';
    for (const { file, script } of scripts(ctx)) {
      // One finding per script, at the first command that needs the network; the others are related.
      const hits: { cmd: ShellCommand; what: string; pipSpecs?: string[] }[] = [];
      for (const cmd of script.commands) {
        const inst = installOf(cmd);
        if (cmd.inFunction && !calledFunctions(script).has(functionNameOf(script, cmd))) continue;
        if (inst && (inst.packages.length > 0 || inst.fromFile)) {
          // Offline, a guarded install (`|| true`) of what the image already installs is a harmless fallback.
          if (severity === 'warning' && (cmd.orTrue || cmd.guarded) && !inst.fromFile && inst.packages.every((p) => imageText.includes(p.name))) continue;
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
        message: severity === 'warning'
          ? `The verifier runs \`${first.what}\` at grading time${more}, but the task cuts the network: the install fails and a correct solution scores 0. Install what the tests need in the image.`
          : `The verifier runs \`${first.what}\` at grading time${more}: the reward then depends on package indexes and hosts being reachable. Installing in the image makes grading independent of them.`,
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
      // One finding per script, at the first moving dependency; the others are related locations.
      const hits: { range: Range; message: string; what: string }[] = [];
      const called = calledFunctions(script);
      for (const cmd of script.commands) {
        if (cmd.inFunction && !called.has(functionNameOf(script, cmd))) continue;
        const inst = installOf(cmd);
        if (inst && inst.manager !== 'apt') {
          for (const p of inst.packages.filter((x) => !x.pinned)) {
            const w = cmd.args[p.argIndex];
            hits.push({
              range: w ? ctx.range(file, w.start, w.end) : cmdRange(ctx, file, cmd), what: p.spec,
              message: `\`${p.spec}\` is installed at test time without a version: the verifier changes whenever a new release appears. Pin it (\`${p.name}==<version>\`).`,
            });
          }
        }
        const dl = downloadOf(cmd);
        if (dl && (/\/raw\/(master|main)\/|refs\/heads\/|\/(master|main)\/|\/latest\//.test(dl.url))) {
          hits.push({ range: cmdRange(ctx, file, cmd), what: dl.url, message: `${dl.url} points at a moving branch or "latest": the downloaded content changes over time. Use a tag or commit SHA.` });
        } else if (dl?.kind === 'clone') {
          const w = effectiveWords(cmd);
          const pinnedClone = w.includes('--branch') || w.includes('-b') || script.commands.some((c) => c.start > cmd.start && c.name === 'git' && c.args.some((a) => a.value === 'checkout'));
          if (!pinnedClone) hits.push({ range: cmdRange(ctx, file, cmd), what: dl.url, message: `\`git clone ${dl.url}\` takes whatever the default branch holds at grading time. Clone a tag (\`--branch <tag>\`) or check out a commit.` });
        }
      }
      const first = hits[0];
      if (!first) continue;
      const more = hits.length > 1 ? ` (${hits.length - 1} more unpinned: ${hits.slice(1, 4).map((h) => h.what).join(', ')}${hits.length > 4 ? ', …' : ''})` : '';
      yield {
        file, range: first.range, message: `${first.message}${more}`,
        ...(hits.length > 1 ? { related: hits.slice(1).map((h) => ({ file, range: h.range, message: h.message })) } : {}),
      };
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
    if (/\.py$|\/|^\.{1,2}$|test/i.test(target)) out.push(target);
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
    // A separate verifier container holds only the tests and the declared artifacts: nothing the
    // agent left in its own filesystem (a /pytest.ini, a conftest.py) reaches it.
    if (ctx.task.verifier.separate) return;
    const dests = imageCopyDests(ctx);
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        if (!isPytestCommand(cmd)) continue;
        // The agent can edit the test itself: verifier-runs-agent-writable-code reports the bigger hole.
        if (editableTestTarget(ctx, dests, script, cmd)) continue;
        const words = effectiveWords(cmd);
        const ws = pytestArgs(words);
        const noConftest = ws.includes('--noconftest');
        const ownConfig = ws.some((w) => w === '-c' || w.startsWith('--config-file'));
        const cwd = workingDirAt(ctx, script, cmd);
        const cwdWritable = cwd !== undefined && ctx.isAgentWritable(cwd);
        // `python -m pytest` puts the current folder first on sys.path: a planted pytest.py there *is* pytest.
        const viaModule = /^python(3(\.\d+)?)?$/.test(words[0] ?? '') && pythonModule(words) === 'pytest';
        if (viaModule && cwdWritable && !safePath(ctx, file, cmd, words)) {
          yield { file, range: pytestRange(ctx, file, cmd), message: `\`python -m pytest\` runs in ${cwd}, which the agent can write: Python imports modules from the current folder first, so a planted ${cwd}/pytest.py replaces pytest and can exit 0 without running a test (--noconftest does not prevent it). Run the \`pytest\` entry point, \`cd /tests\` first, or use \`python -P -m pytest\`.` };
          continue;
        }
        if (noConftest && ownConfig) continue;
        const { paths: targets, opaque } = collectTargets(ws);
        const resolved = cwd === undefined ? targets.filter((t) => t.startsWith('/')) : targets.map((t) => resolveWord(t, cwd)).filter((t): t is string => t !== undefined);
        const writable = resolved.find((t) => ctx.isAgentWritable(t) && !t.startsWith('/logs/'));
        if (writable) {
          yield { file, range: pytestRange(ctx, file, cmd), message: `pytest collects ${writable}, which the agent can write: a planted conftest.py or pytest.ini there can skip every test and make pytest exit 0. Copy the tests to /tests at verification time and run with \`--noconftest -c /dev/null\`.` };
          continue;
        }
        // No path at all: pytest collects (and reads its ini and conftest.py from) the current folder.
        if (targets.length === 0 && !opaque && cwdWritable && !ws.some((w) => w.startsWith('--pyargs'))) {
          yield { file, range: pytestRange(ctx, file, cmd), message: `pytest runs without a path in ${cwd}, which the agent can write: it collects whatever test files, conftest.py and pytest.ini the agent leaves there. Name the verifier's test file under /tests and add \`--noconftest -c /dev/null\`.` };
          continue;
        }
        const rootdir = ws.find((w) => w.startsWith('--rootdir='))?.split('=')[1] ?? (ws.includes('--rootdir') ? ws[ws.indexOf('--rootdir') + 1] : undefined);
        if (rootdir && ctx.isAgentWritable(rootdir)) {
          yield { file, range: pytestRange(ctx, file, cmd), message: `\`--rootdir ${rootdir}\` is agent-writable: an ini file planted there configures the verifier's pytest.` };
          continue;
        }
        // pytest looks for its ini file in every folder above the tests, up to /, and then loads the
        // conftest.py files between that ini and the tests: a root agent's /pytest.ini plus /conftest.py
        // rewrites every report to "passed" even when /tests itself is out of reach.
        // Only the verifier's own tests (an absolute path the agent cannot write, such as /tests/…):
        // a project's own suite run in the agent's checkout (SWE-bench style) is the agent's work anyway.
        const confCut = ws.some((w) => w.startsWith('--confcutdir'));
        const scriptText = ctx.text(file) ?? '';
        const own = targets.some((w) => verifierOwned(scriptDirWord(scriptText, w)) || (cwd !== undefined && verifierOwned(resolveWord(w, cwd) ?? ''))) || (targets.length === 0 && !opaque && cwd !== undefined && verifierOwned(cwd));
        if (own && !noConftest && !ownConfig && !confCut && agentIsRoot(ctx)) {
          yield { file, range: pytestRange(ctx, file, cmd), message: 'pytest reads its ini file from any folder above the tests, up to /, and then loads the conftest.py files below it: a /pytest.ini and /conftest.py left by the agent (root in the container) can mark every test passed. Add `--noconftest -c /dev/null` (or `-c` with the verifier\'s own ini).' };
        }
      }
    }
  },
};

/**
 * `$DIR/test_x.py` where the script set DIR to its own folder (`$(dirname "$0")`,
 * `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`) or to an absolute path: the word with DIR replaced.
 */
function scriptDirWord(text: string, word: string): string {
  const m = /^\$\{?([A-Za-z_]\w*)\}?(\/.*)?$/.exec(word);
  if (!m || m[1] === 'TEST_DIR') return word;
  const assign = new RegExp(`^\\s*(?:export\\s+|readonly\\s+|local\\s+)?${m[1]}=(.*)$`, 'm').exec(text)?.[1] ?? '';
  if (/dirname\b[^\n]*(\$0|BASH_SOURCE)/.test(assign)) return `/tests${m[2] ?? ''}`;
  const abs = /^["']?(\/[\w./-]*)["']?\s*$/.exec(assign)?.[1];
  return abs ? `${abs.replace(/\/+$/, '')}${m[2] ?? ''}` : word;
}

/**
 * A path in the tests folder the harness copies in after the agent (/tests, $TEST_DIR): the verifier's
 * own tests. Anything else a root agent could have written, so it is some other rule's business.
 */
function verifierOwned(word: string): boolean {
  if (!word.startsWith('/') && !/^\$\{?TEST_DIR\}?\//.test(word)) return false;
  const p = resolveWord(word, '/');
  return p !== undefined && (p === '/tests' || p.startsWith('/tests/'));
}

/** Whether the agent runs as root: the image's last USER is absent, root or 0 (both formats default to root). */
function agentIsRoot(ctx: AuditContext): boolean {
  const df = ctx.dockerfile();
  if (!df) return true;
  const user = [...df.instructions].reverse().find((i) => i.keyword === 'USER')?.args[0]?.value;
  return user === undefined || /^(root|0)(:.*)?$/.test(user);
}

/** Folders the image fills by COPY/ADD (absolute, after WORKDIR), so files there exist before the agent starts. */
function imageCopyDests(ctx: AuditContext): string[] {
  const df = ctx.dockerfile();
  if (!df) return [];
  const out: string[] = [];
  let wd = '/';
  for (const ins of df.instructions) {
    if (ins.keyword === 'WORKDIR') { const v = ins.args[0]?.value; if (v && !v.includes('$')) wd = path.posix.resolve(wd, v); continue; }
    if ((ins.keyword === 'COPY' || ins.keyword === 'ADD') && !ins.flags.has('from') && ins.args.length >= 2) {
      const dest = ins.args[ins.args.length - 1]?.value ?? '';
      if (!dest.includes('$')) out.push(path.posix.resolve(wd, dest));
    }
  }
  return out;
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** An earlier command of the script writes `target` (or its folder) afresh: `cp`, `rsync`, `install`, `find -exec cp`. */
function freshlyCopied(ctx: AuditContext, script: ShellScript, cmd: ShellCommand, target: string): boolean {
  return script.commands.some((c) => {
    if (c.start >= cmd.start) return false;
    const w = effectiveWords(c);
    const copies = /^(cp|rsync|install|mv|ln|tar|unzip)$/.test(w[0] ?? '') || (w[0] === 'find' && w.includes('cp')) || c.redirects.some((r) => r.op !== '<');
    if (!copies) return false;
    const cwd = workingDirAt(ctx, script, c) ?? '/';
    const dests = [...w.slice(1).filter((x) => !x.startsWith('-') && x !== ';' && x !== '+').slice(-1), ...c.redirects.filter((r) => r.op !== '<').map((r) => r.target)];
    return dests.some((d) => { const r = d === '.' || d === '{}' ? cwd : resolveWord(d, cwd); return r !== undefined && (under(target, r) || under(r, target)); });
  });
}

/**
 * The file a command runs: `bash x.sh`, `python3 x.py`, `python -m unittest dir/x.py` (the word after
 * the module), `make -f x.mk` (a bare `make test` names a target, not a file), `./x.sh`.
 */
function scriptTarget(w: readonly string[], cmd: ShellCommand): string | undefined {
  const n = w[0] ?? '';
  if (/^python(3(\.\d+)?)?$/.test(n)) {
    const m = w.indexOf('-m');
    // Of the modules, only unittest runs a file named next (`-m pip install x.whl` installs it).
    if (m > 0) return w[m + 1] === 'unittest' ? w.slice(m + 2).find((x) => !x.startsWith('-') && /[/.]/.test(x)) : undefined;
    return w.slice(1).find((x) => !x.startsWith('-'));
  }
  if (n === 'make') { const f = w.findIndex((x) => x === '-f' || x === '--file'); return f > 0 ? w[f + 1] : undefined; }
  if (/^(bash|sh|node)$/.test(n)) return w.slice(1).find((x) => !x.startsWith('-'));
  return cmd.nameWord.value.includes('/') ? cmd.nameWord.value : undefined;
}

/** The instruction names this file (by a distinctive basename, or its folder and name) as something to write. */
function asksFor(instruction: string, target: string): boolean {
  const parts = target.split('/');
  const base = parts[parts.length - 1] ?? '';
  return (base.length >= 10 && instruction.includes(base)) || instruction.includes(parts.slice(-2).join('/'));
}

/** The agent-writable test path pytest collects that the image (not this script) put there. */
function editableTestTarget(ctx: AuditContext, dests: readonly string[], script: ShellScript, cmd: ShellCommand): string | undefined {
  const cwd = workingDirAt(ctx, script, cmd);
  if (cwd === undefined) return undefined;
  const instruction = ctx.instruction();
  for (const t of collectTargets(pytestArgs(effectiveWords(cmd))).paths) {
    const r = resolveWord(t, cwd);
    if (!r || !ctx.isAgentWritable(r) || r.startsWith('/logs/')) continue;
    // Mounted read-only over the image's copy (`./tests:/app/tests:ro`): readable, not editable.
    if (ctx.isReadOnlyMount(r)) continue;
    // Tests the instruction asks the agent to write are its deliverable, not the judge's copy.
    if (instruction.includes(`${r.split('/').pop() ?? r}/`)) continue;
    if (dests.some((d) => under(r, d) || under(d, r)) && !freshlyCopied(ctx, script, cmd, r)) return r;
  }
  return undefined;
}

/** Build tools whose test command is defined by a file in the working folder (the agent's, when it is theirs). */
const BUILD_TOOL_TESTS: readonly { readonly tool: RegExp; readonly goal: RegExp; readonly manifests: readonly string[] }[] = [
  { tool: /^(npm|yarn|pnpm)$/, goal: /^(test|t|run-script test|run test(:\S+)?)$/, manifests: ['package.json'] },
  { tool: /^(\.\/)?gradlew?$/, goal: /(^|\s)(test|check|build)(\s|$)/, manifests: ['build.gradle', 'build.gradle.kts'] },
  { tool: /^mvn$/, goal: /(^|\s)(test|verify|package|install)(\s|$)/, manifests: ['pom.xml'] },
  { tool: /^make$/, goal: /^(test|check)$/, manifests: ['Makefile'] },
];

function buildToolTest(words: readonly string[]): { manifests: readonly string[] } | undefined {
  const name = words[0] ?? '';
  const rest = words.slice(1).filter((x) => !x.startsWith('-')).join(' ');
  return BUILD_TOOL_TESTS.find((t) => t.tool.test(name) && t.goal.test(rest));
}

export const verifierRunsAgentWritableCode: StaticRule = {
  id: 'verifier-runs-agent-writable-code', class: 'misalignment', severity: 'warning',
  title: 'The verifier runs a test or checker that lives where the agent can edit it',
  *check(ctx) {
    const dests = imageCopyDests(ctx);
    const instruction = ctx.instruction();
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const w = effectiveWords(cmd);
        const cwd = workingDirAt(ctx, script, cmd);
        if (isPytestCommand(cmd)) {
          // pytest collecting a test file the image placed where the agent works: the agent edits the test.
          const r = editableTestTarget(ctx, dests, script, cmd);
          if (r) yield { file, range: cmdRange(ctx, file, cmd), severity: 'error', message: `pytest runs ${r}, the copy of the tests the image puts where the agent works: the agent can edit the test itself (or delete its checks) and pass. Run the copy the harness mounts at /tests.` };
          continue;
        }
        const tool = buildToolTest(w);
        if (tool) {
          // `npm test` runs whatever package.json's `test` script says; the agent owns that file.
          // Restored only by an unconditional write (not `[ -f package.json ] || cat > package.json`).
          const text = ctx.text(file) ?? '';
          const restored = script.commands.some((c) => c.end <= cmd.start && !c.conditional && /^(cp|mv|install|rsync|cat|tee)$/.test(c.name)
            && tool.manifests.some((m) => text.slice(c.start, c.end).includes(m)));
          if (cwd !== undefined && ctx.isAgentWritable(cwd) && !restored) {
            yield { file, range: cmdRange(ctx, file, cmd), message: `\`${w.slice(0, 3).join(' ')}\` runs what ${tool.manifests[0]} in ${cwd} says, and the agent can edit that file: a test task that does nothing (a \`test\` script that exits 0, a disabled test task) passes. Run the test runner on the verifier's files directly, or restore ${tool.manifests[0]} from tests/ first.` };
          }
          continue;
        }
        const rel = scriptTarget(w, cmd);
        if (!rel) continue;
        const target = rel.startsWith('/') ? rel : cwd !== undefined ? resolveWord(rel, cwd) : undefined;
        if (!target || !ctx.isAgentWritable(target)) continue;
        if (!/(test|check|verif|grade|judge|eval|score)[^/]*$/i.test(target)) continue;
        if (freshlyCopied(ctx, script, cmd, target)) continue;
        // The instruction asks the agent to write this script: it is the deliverable, not the judge.
        if (asksFor(instruction, target)) continue;
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
