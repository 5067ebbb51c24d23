/** What the verifier runs that the agent controls: pytest collecting agent files, agent-writable scripts and tests. */
import { effectiveWords, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { isPytestCommand, isTestCommand, pythonModule } from './commands';
import { imageFills } from './imageLayout';
import { harnessCommand } from './tb1HarnessScripts';
import { oracleRuns } from './pyOracle';
import { isOwnFolderIdiom, pathOfWord, resolveWord, workingDirAt } from './workingDir';
import { cmdRange, pytestRange, scripts } from './verifierShared';

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
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        // Terminal-Bench 1's own `run-uv-pytest.sh` (the harness puts it in $TEST_DIR) runs pytest too.
        const harness = harnessCommand(ctx, cmd);
        if (!harness && !isPytestCommand(cmd)) continue;
        // The agent can edit the test itself: verifier-runs-agent-writable-code reports the bigger hole.
        if (!harness && editableTestTarget(ctx, script, cmd)) continue;
        const words = harness ?? effectiveWords(cmd);
        const ws = pytestArgs(words);
        const noConftest = ws.includes('--noconftest');
        const ownConfig = ws.some((w) => w === '-c' || w.startsWith('--config-file'));
        const cwd = workingDirAt(ctx, script, cmd);
        const cwdWritable = cwd !== undefined && ctx.isAgentWritable(cwd);
        // `python -m pytest` puts the current folder first on sys.path: a planted pytest.py there *is* pytest.
        const viaModule = /^python(3(\.\d+)?)?$/.test(words[0] ?? '') && pythonModule(words) === 'pytest';
        if (viaModule && cwdWritable && !safePath(ctx, file, cmd, words)) {
          yield { file, range: pytestRange(ctx, file, cmd), message: `\`python -m pytest\` runs in ${cwd}, which the agent can write: Python imports modules from the current folder first, so a planted ${cwd}/pytest.py replaces pytest and can exit 0 without running a test (--noconftest does not prevent it). Run the \`pytest\` entry point, \`cd /tests\` first, or use \`python -P -m pytest\`, and keep the folder off PYTHONPATH.` };
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
          const via = harness ? `Terminal-Bench 1's shared run-uv-pytest.sh runs \`${harness.join(' ')}\`. ` : '';
          yield { file, range: pytestRange(ctx, file, cmd), message: `${via}pytest reads its ini file from any folder above the tests, up to /, and then loads the conftest.py files below it: a /pytest.ini and /conftest.py left by the agent (root in the container) can mark every test passed. Add \`--noconftest -c /dev/null\` (or \`-c\` with the verifier's own ini)${harness ? ', in a pytest command of the task\'s own in place of the shared script' : ''}.` };
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
  if (isOwnFolderIdiom(assign)) return `/tests${m[2] ?? ''}`;
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
  // Harbor's `[agent] user` wins over the image's USER: the agent's commands run as that user.
  const agentUser = ctx.task.agent.user;
  if (agentUser !== undefined) return /^(root|0)(:.*)?$/.test(String(agentUser));
  const df = ctx.dockerfile();
  if (!df) return true;
  const user = [...df.instructions].reverse().find((i) => i.keyword === 'USER')?.args[0]?.value;
  return user === undefined || /^(root|0)(:.*)?$/.test(user);
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * The files a command writes through an output option: a compiler or linker's `-o out` (g++, gcc,
 * go build, rustc, javac -d), a download's `curl -o` / `wget -O`. The verifier that builds
 * /tests/x.cpp into /tmp/x right before running it runs its own fresh program, whatever was there.
 */
function outputWords(w: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < w.length; i++) {
    const x = w[i] ?? '';
    if (x === '-o' || x === '--output' || x === '--out' || (x === '-O' && w[0] === 'wget') || (x === '-d' && w[0] === 'javac')) {
      const v = w[i + 1];
      if (v !== undefined && !v.startsWith('-')) out.push(v);
      i++;
    } else if (/^--(output|out)=/.test(x)) out.push(x.slice(x.indexOf('=') + 1));
    else if (/^-o[^-]/.test(x) && /^(g\+\+|gcc|cc|c\+\+|clang(\+\+)?|rustc|gfortran|nvcc)(-[\d.]+)?$/.test(w[0] ?? '')) out.push(x.slice(2));
  }
  return out;
}

/** An earlier command of the script writes `target` (or its folder) afresh: `cp`, `rsync`, `install`, `find -exec cp`. */
function freshlyCopied(ctx: AuditContext, script: ShellScript, cmd: ShellCommand, target: string): boolean {
  return script.commands.some((c) => {
    if (c.start >= cmd.start) return false;
    const w = effectiveWords(c);
    const outputs = outputWords(w);
    const copies = /^(cp|rsync|install|mv|ln|tar|unzip)$/.test(w[0] ?? '') || (w[0] === 'find' && w.includes('cp')) || c.redirects.some((r) => r.op !== '<');
    if (!copies && outputs.length === 0) return false;
    const cwd = workingDirAt(ctx, script, c) ?? '/';
    const dests = [...(copies ? w.slice(1).filter((x) => !x.startsWith('-') && x !== ';' && x !== '+').slice(-1) : []), ...outputs,
      ...c.redirects.filter((r) => r.op !== '<').map((r) => r.target)];
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
    // Python's options end at the first of `-c code`, `-m module` or the script path; `-W`, `-X`
    // and `--check-hash-based-pycs` take a value word.
    for (let i = 1; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x === '-' || !x.startsWith('-')) return x === '-' ? undefined : x;
      // `-c "import pytest"`: the program is the code word itself, no file runs. Single-letter
      // flags may be bundled before it (`-uc`, `-Bm`); the module may be attached (`-mpytest`).
      const opt = /^-[bBdEhiIOPqRsSuvx]*([cm])(.*)$/.exec(x);
      if (opt) {
        if (opt[1] === 'c') return undefined;
        const attached = opt[2] ?? '';
        const mod = attached || w[i + 1];
        const rest = w.slice(attached ? i + 1 : i + 2);
        // Of the modules, only unittest runs a file named next (`-m pip install x.whl` installs it).
        return mod === 'unittest' ? rest.find((y) => !y.startsWith('-') && /[/.]/.test(y)) : undefined;
      }
      if (x === '-W' || x === '-X' || x === '--check-hash-based-pycs') i++;
    }
    return undefined;
  }
  if (n === 'make') { const f = w.findIndex((x) => x === '-f' || x === '--file'); return f > 0 ? w[f + 1] : undefined; }
  if (/^(bash|sh|node)$/.test(n)) {
    // `bash -c '…'` (also bundled, `-ec`), `node -e '…'` / `-p`: inline code, not a file.
    const first = w.slice(1).findIndex((x) => !x.startsWith('-'));
    const opts = w.slice(1, first < 0 ? undefined : first + 1);
    const inline = n === 'node' ? /^(-e|-p|--eval|--print)$/ : /^-[A-Za-z]*c[A-Za-z]*$/;
    if (opts.some((x) => inline.test(x))) return undefined;
    // `node --check f.js`, `bash -n f.sh`: a syntax check, nothing in the file runs.
    const syntaxOnly = n === 'node' ? /^(-c|--check)$/ : /^-[A-Za-z]*n[A-Za-z]*$/;
    if (opts.some((x) => syntaxOnly.test(x))) return undefined;
    return w.slice(1).find((x) => !x.startsWith('-'));
  }
  return cmd.nameWord.value.includes('/') ? cmd.nameWord.value : undefined;
}

/** The instruction names this file (by a distinctive basename, or its folder and name) as something to write. */
function asksFor(instruction: string, target: string): boolean {
  const parts = target.split('/');
  const base = parts[parts.length - 1] ?? '';
  return (base.length >= 10 && instruction.includes(base)) || instruction.includes(parts.slice(-2).join('/'));
}

/** The agent-writable test path pytest collects that the image (not this script) put there. */
function editableTestTarget(ctx: AuditContext, script: ShellScript, cmd: ShellCommand): string | undefined {
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
    if (imageFills(ctx, r) && !freshlyCopied(ctx, script, cmd, r)) return r;
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

/**
 * Test runners that run the test files of the folder they are started in (`go test ./...`,
 * `cargo test`, `npx jest`): in the agent's checkout those are files the agent can edit.
 */
const WORKSPACE_SUITES: Readonly<Record<string, string>> = {
  go: 'the `_test.go` files', cargo: 'the crate\'s tests', dotnet: 'the test project',
  jest: 'the test files and their config', vitest: 'the test files and their config', mocha: 'the test files and their config',
};

/** Options of those runners that take a value word (not a path to test). */
const SUITE_VALUE_OPTS = /^(-run|-timeout|-count|-p|-tags|-bench|--config|-c|--testNamePattern|-t|--filter|--logger|--test|--features|-j|--jobs|--reporter|--grep|-g)$/;

/** The runner in `words` runs the suite of its working folder, with no test path outside it. */
function workspaceSuite(cmd: ShellCommand, words: readonly string[], cwd: string, ctx: AuditContext): string | undefined {
  if (!isTestCommand(cmd)) return undefined;
  const runner = words[0] === 'npx' ? words.slice(1).find((x) => !x.startsWith('-'))?.replace(/@.*$/, '') : words[0];
  const what = runner !== undefined && Object.hasOwn(WORKSPACE_SUITES, runner) ? WORKSPACE_SUITES[runner] : undefined;
  if (what === undefined) return undefined;
  const paths: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const x = words[i] ?? '';
    if (x.startsWith('-')) { if (SUITE_VALUE_OPTS.test(x)) i++; else if (/^--(manifest-path|project|rootDir|roots|config)=/.test(x)) paths.push(x.slice(x.indexOf('=') + 1)); continue; }
    if (x.includes('/')) paths.push(x);
  }
  // A test file, manifest or config named from the verifier's own folder (`npx jest /tests/x.test.js`).
  const resolved = paths.map((p) => resolveWord(p, cwd));
  if (resolved.some((r) => r === undefined || !ctx.isAgentWritable(r))) return undefined;
  return resolved.length > 0 && resolved.every((r) => r !== undefined && !r.endsWith('/...')) ? resolved.join(', ') : `${what} in ${cwd}`;
}

/**
 * Before `cmd`, the script puts the verifier's own tests in place on every path: copies from /tests
 * (`cp /tests/x_test.go pkg/`), applies a test patch, or restores files with git.
 */
function testsPutInPlace(ctx: AuditContext, script: ShellScript, cmd: ShellCommand, file: string): boolean {
  const text = ctx.text(file) ?? '';
  return script.commands.some((c) => {
    if (c.end > cmd.start || c.conditional || c.inFunction) return false;
    const w = effectiveWords(c);
    if (w[0] === 'git' && /^(checkout|restore|apply|stash|reset|am)$/.test(w[1] ?? '')) return true;
    if (w[0] === 'patch') return true;
    const copies = /^(cp|rsync|mv|install|tar|unzip|ln)$/.test(w[0] ?? '') || (w[0] === 'find' && w.includes('cp'));
    if (!copies) return false;
    // `find /tests -name '*_test.go' | xargs -I {} cp {} .`: the source is named earlier in the pipeline.
    const stages = c.pipeline ? script.commands.filter((o) => o.pipeline?.id === c.pipeline?.id) : [c];
    return stages.some((o) => /(^|[\s"'=])(\/tests|\$\{?TEST_DIR\}?)(\/|\s|"|'|$)/.test(text.slice(o.start, o.end)));
  });
}

/** Commands whose file arguments are code the verifier compiles, runs or copies into place. */
const BUILDS_FROM = /^(cp|javac|java|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|rustc|kotlinc|scalac|node|deno|tsx|ts-node|swiftc|ghc|ruby|Rscript|julia)$/;
/** A test source by its place: a file (or folder) of a `tests`/`test` folder. */
const TEST_SOURCE = /\/tests?(\/|$)/;

/**
 * A test source the verifier compiles or copies in (`javac /task/tests/Main.java`, `cp /task/tests/main.rs
 * src/`) from a folder the image filled where the agent works: not the harness's /tests mount, so the
 * agent edits what decides its reward. The file the copy writes is not a source (`cp` keeps its last word).
 */
function builtTestSource(ctx: AuditContext, script: ShellScript, cmd: ShellCommand, w: readonly string[], cwd: string | undefined): string | undefined {
  if (!BUILDS_FROM.test(w[0] ?? '')) return undefined;
  const args = w.slice(1).filter((x) => !x.startsWith('-') || x === '-');
  const sources = w[0] === 'cp' ? args.slice(0, -1) : args;
  for (const a of sources) {
    const r = pathOfWord(a, cwd);
    if (!r || !TEST_SOURCE.test(r) || !ctx.isAgentWritable(r) || ctx.isReadOnlyMount(r)) continue;
    if (imageFills(ctx, r) && !freshlyCopied(ctx, script, cmd, r)) return r;
  }
  return undefined;
}

export const verifierRunsAgentWritableCode: StaticRule = {
  id: 'verifier-runs-agent-writable-code', class: 'misalignment', severity: 'warning',
  title: 'The verifier runs a test or checker that lives where the agent can edit it',
  *check(ctx) {
    const instruction = ctx.instruction();
    const ran = new Set<string>();
    // Scripts already reported for building or copying in the image's test copy: the suite run after it is the same hole.
    const builtFrom = new Set<string>();
    for (const { file, script } of scripts(ctx)) {
      for (const cmd of script.commands) {
        const w = effectiveWords(cmd);
        const cwd = workingDirAt(ctx, script, cmd);
        if (isPytestCommand(cmd)) {
          // pytest collecting a test file the image placed where the agent works: the agent edits the test.
          const r = editableTestTarget(ctx, script, cmd);
          if (r) yield { file, range: cmdRange(ctx, file, cmd), severity: 'error', message: `pytest runs ${r}, the copy of the tests the image puts where the agent works: the agent can edit the test itself (or delete its checks) and pass. Run the copy the harness mounts at /tests.` };
          continue;
        }
        const tool = buildToolTest(w);
        if (tool) {
          // `npm test` runs whatever package.json's `test` script says; the agent owns that file.
          // Restored only by an unconditional write (not `[ -f package.json ] || cat > package.json`).
          const text = ctx.text(file) ?? '';
          const restored = script.commands.some((c) => c.end <= cmd.start && !c.conditional && /^(cp|mv|install|rsync|cat|tee)$/.test(c.name)
            && tool.manifests.some((m) => text.slice(c.start, c.end).includes(m)))
            // …or the folder it runs in was just made afresh from the verifier's own tests (`cp -R /tests /tmp/t; cd /tmp/t`).
            || (cwd !== undefined && script.commands.some((c) => c.end <= cmd.start && !c.conditional && /^(cp|rsync)$/.test(c.name) && /(^|\s)\/tests\/?(\s|$)/.test(text.slice(c.start, c.end)))
              && tool.manifests.some((m) => freshlyCopied(ctx, script, cmd, `${cwd}/${m}`)));
          if (cwd !== undefined && ctx.isAgentWritable(cwd) && !restored) {
            yield { file, range: cmdRange(ctx, file, cmd), message: `\`${w.slice(0, 3).join(' ')}\` runs what ${tool.manifests[0]} in ${cwd} says, and the agent can edit that file: a test task that does nothing (a \`test\` script that exits 0, a disabled test task) passes. Run the test runner on the verifier's files directly, or restore ${tool.manifests[0]} from tests/ first.` };
          }
          continue;
        }
        // `go test ./...` in the agent's checkout: the tests that decide the reward are the agent's to edit.
        const suite = cwd !== undefined && !ctx.task.verifier.separate && ctx.isAgentWritable(cwd) ? workspaceSuite(cmd, w, cwd, ctx) : undefined;
        if (suite && !builtFrom.has(file) && !testsPutInPlace(ctx, script, cmd, file)) {
          yield { file, range: cmdRange(ctx, file, cmd), message: `\`${w.slice(0, 2).join(' ')}\` runs ${suite}, where the agent works: it can weaken or delete the checks that fail and pass. Copy the verifier's tests from /tests into place first, or restore them (\`git checkout -- <test files>\`) before running them.` };
          continue;
        }
        const built = builtTestSource(ctx, script, cmd, w, cwd);
        if (built && !asksFor(instruction, built)) {
          builtFrom.add(file);
          yield { file, range: cmdRange(ctx, file, cmd), message: `The verifier ${w[0] === 'cp' ? 'copies in' : 'builds'} ${built}, the image's copy of the tests, which sits where the agent can read and rewrite it: the agent can make the judge say yes. Use the copy the harness mounts at /tests.` };
          continue;
        }
        const rel = scriptTarget(w, cmd);
        if (!rel) continue;
        const target = pathOfWord(rel, cwd);
        if (!target || !ctx.isAgentWritable(target)) continue;
        if (!/(test|check|verif|grad(e|er|ing)|judge|eval|scor(e|er|ing)|reward)[^/]*$/i.test(target)) continue;
        if (freshlyCopied(ctx, script, cmd, target)) continue;
        // The instruction asks the agent to write this script: it is the deliverable, not the judge.
        if (asksFor(instruction, target)) continue;
        // Once per script and program: running the same scorer again (for its JSON summary) is the same fix.
        if (ran.has(`${file}\u0000${target}`)) continue;
        ran.add(`${file}\u0000${target}`);
        yield { file, range: cmdRange(ctx, file, cmd), message: `The verifier runs ${target}, which sits where the agent can rewrite it: the agent can make the judge say yes.` };
      }
    }
    // The same hole inside a Python test: the expected answer comes from an oracle program the agent can replace.
    yield* oracleRuns(ctx);
  },
};

