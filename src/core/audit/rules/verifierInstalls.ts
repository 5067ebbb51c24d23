/** Installs at test time: network installs, unpinned test dependencies, pytest never installed. */
import type { Fix, TextEdit } from '../../model/finding';
import type { Range } from '../../model/positions';
import { effectiveWords, type ShellCommand } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { Report, StaticRule } from '../rule';
import { downloadOf, installOf, isPytestCommand, isSystemInstall } from './commands';
import { unpinnedInstaller } from './installers';
import { unpinnedInlineDeps } from './inlineScriptDeps';
import { floatingManifestDeps } from './npmManifest';
import { pipInstallLine, pipTargetOf } from '../pythonImage';
import { escapeRegExp } from '../../parse/regex';
import { calledFunctions, cmdRange, functionNameOf, scripts, verifierOffline } from './verifierShared';

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

/** Debian's essential packages, in every Debian/Ubuntu image: installing them again needs no archive. */
const imageInstalls = /^(bash|coreutils|grep|sed|findutils|tar|gzip|util-linux|debianutils|dpkg|apt)$/;

/**
 * Official images built on buildpack-deps (python, golang, node, ruby, rust, gcc… in their full,
 * not slim or Alpine, tags) ship curl, wget, git, ca-certificates, gnupg and the usual build tools.
 */
const BUILDPACK_BASE = /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?(?:buildpack-deps|python|golang|node|ruby|rust|gcc|perl|openjdk|haskell|erlang|elixir)(?::(?![^@]*(?:slim|alpine|windows|nanoserver))[^@]*)?(?:@.*)?$/i;
const BUILDPACK_PACKAGES = /^(curl|wget|git|ca-certificates|gnupg|netbase|openssh-client|procps|make|gcc|g\+\+|build-essential|autoconf|automake|patch|xz-utils|bzip2|unzip|libssl-dev|zlib1g-dev|pkg-config)$/;

/** The packages the image certainly has: those its Dockerfile names, and its base image's. */
function imageHasPackage(ctx: AuditContext, imageText: string, name: string): boolean {
  if (imageInstalls.test(name)) return true;
  if (new RegExp(`(^|[\\s'"])${escapeRegExp(name)}([\\s'"=]|$)`, 'm').test(imageText)) return true;
  const base = ctx.dockerfile()?.froms.at(-1)?.image ?? '';
  return BUILDPACK_BASE.test(base) && BUILDPACK_PACKAGES.test(name);
}

/** `pip install`, `python3 -m pip install`, `apt-get install`…: the words up to the verb. */
function installLabel(cmd: ShellCommand): string {
  const w = effectiveWords(cmd);
  if (w[0] === 'uv' && w[1] === 'run') return 'uv run --with';
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
    const offline = verifierOffline(ctx);
    const imageText = ctx.text(ctx.task.environment.dockerfile) ?? '';
    const inlineSeen = new Set<string>();
    for (const { file, script } of scripts(ctx)) {
      // One finding per script, at the first moving dependency; the others are related locations.
      const hits: { range: Range; message: string; what: string }[] = [];
      // Toolchain installers come after the packages: the finding stays at the first unpinned package.
      const installers: typeof hits = [];
      const called = calledFunctions(script);
      for (const cmd of script.commands) {
        if (cmd.inFunction && !called.has(functionNameOf(script, cmd))) continue;
        // A script whose inline metadata `uv run` resolves: reported in that script, at the dependency.
        yield* unpinnedInlineDeps(ctx, cmd, inlineSeen);
        const inst = installOf(cmd);
        // apt at test time: no version is given (apt pins are brittle too) and the archive decides
        // what, if anything, installs. Packages the image installs already are a harmless fallback;
        // offline, test-time-network-install reports the install as a warning already.
        if (inst && isSystemInstall(inst) && !offline) {
          const fresh = inst.packages.filter((p) => !p.pinned && !imageHasPackage(ctx, imageText, p.name));
          if (fresh.length > 0) {
            const names = fresh.map((p) => p.name).join(' ');
            hits.push({
              range: cmdRange(ctx, file, cmd), what: names,
              message: `\`${installLabel(cmd)} ${names}\` runs at test time and the image does not install ${fresh.length > 1 ? 'them' : 'it'}: whether grading works, and with which version, depends on the package archive on the day. Install ${fresh.length > 1 ? 'them' : 'it'} in the Dockerfile.`,
            });
          }
        }
        if (inst && !isSystemInstall(inst)) {
          for (const p of inst.packages.filter((x) => !x.pinned)) {
            const w = cmd.args[p.argIndex];
            hits.push({
              range: w ? ctx.range(file, w.start, w.end) : cmdRange(ctx, file, cmd), what: p.spec,
              message: `\`${p.spec}\` is installed at test time without a version: the verifier changes whenever a new release appears. Pin it (\`${p.name}==<version>\`).`,
            });
          }
        }
        const floating = floatingManifestDeps(ctx, script, cmd);
        if (floating) {
          const shown = floating.deps.slice(0, 3).join(', ') + (floating.deps.length > 3 ? `, and ${floating.deps.length - 3} more` : '');
          hits.push({ range: cmdRange(ctx, file, cmd), what: floating.manifest, message: `\`${effectiveWords(cmd).join(' ')}\` resolves the ranges of ${floating.manifest} (${shown}) at test time, with no lockfile beside it: the grading toolchain moves with every release. Ship a package-lock.json (and use \`npm ci\`) or pin exact versions.` });
        }
        const dl = downloadOf(cmd);
        const installs = dl?.kind === 'fetch' ? unpinnedInstaller(script, cmd, dl.url) : undefined;
        if (dl && (/\/raw\/(master|main)\/|refs\/heads\/|\/(master|main)\/|\/latest\//.test(dl.url))) {
          hits.push({ range: cmdRange(ctx, file, cmd), what: dl.url, message: `${dl.url} points at a moving branch or "latest": the downloaded content changes over time. Use a tag or commit SHA.` });
        } else if (installs) {
          installers.push({ range: cmdRange(ctx, file, cmd), what: dl?.url ?? '', message: `${dl?.url ?? 'The installer'} piped into a shell installs ${installs} at test time, with no version given: the grading toolchain moves with every release. Pin it (uv's versioned installer URL, rustup's \`--default-toolchain 1.83.0\`).` });
        } else if (dl?.kind === 'clone') {
          const w = effectiveWords(cmd);
          const pinnedClone = w.includes('--branch') || w.includes('-b') || script.commands.some((c) => c.start > cmd.start && c.name === 'git' && c.args.some((a) => a.value === 'checkout'));
          if (!pinnedClone) hits.push({ range: cmdRange(ctx, file, cmd), what: dl.url, message: `\`git clone ${dl.url}\` takes whatever the default branch holds at grading time. Clone a tag (\`--branch <tag>\`) or check out a commit.` });
        }
      }
      hits.push(...installers);
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

export const missingTestDepsInImage: StaticRule = {
  id: 'missing-test-deps-in-image', class: 'brittleness', severity: 'info',
  title: 'The verifier runs pytest (or Python), but nothing installs it',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const noPython = pythonMissing(ctx);
    if (noPython) { yield noPython; return; }
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

/**
 * Base images that ship no Python at all: the slim and Alpine variants of other languages' images,
 * Temurin, and the bare distributions. The full `golang`, `node`, `ruby` images build on
 * buildpack-deps (its `-scm` layer installs Mercurial, which depends on python3): python3 is there. Only the first two are a warning: bare distribution tags are what
 * local harnesses rebuild with Python in them (Taskwright's own base-images.sh does), so there the
 * finding stays a note.
 */
const OTHER_LANGUAGE_BASE = /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?(?:(?:node|ruby|rust|openjdk|golang)(?::[^@]*(?:slim|alpine)[^@]*)|eclipse-temurin(?::[^@]*)?)(?:@.*)?$/i;
const BARE_DISTRO_BASE = /^(?:(?:docker\.io|public\.ecr\.aws\/docker)\/)?(?:library\/)?(?:alpine|debian|ubuntu|busybox)(?::[^@]*)?(?:@.*)?$/i;

/** Installs Python or a tool that brings its own (apt/apk python3, uv, conda, pyenv). */
const INSTALLS_PYTHON = /\b(python[\d.]*(-[\w.]+)?|pip3?|uv|uvx|conda|mamba|micromamba|pyenv|pipx)\b/;

/**
 * The verifier runs python3, pip or pytest in an image whose base has no Python and where neither the
 * Dockerfile nor the verifier installs it (nothing in either names Python at all): the oracle scores 0.
 */
function pythonMissing(ctx: AuditContext): Report | undefined {
  const df = ctx.dockerfile();
  const base = df?.froms.at(-1);
  // A separate verifier (Harbor `environment_mode = "separate"`) runs in its own image from tests/.
  if (!df || !base || ctx.task.verifier.separate) return undefined;
  const otherLanguage = OTHER_LANGUAGE_BASE.test(base.image);
  if (!otherLanguage && !BARE_DISTRO_BASE.test(base.image)) return undefined;
  // Any mention of Python in a RUN or a COPY --from of another stage may bring it: stay quiet.
  if (df.copies.some((c) => c.from) || df.runs.some((r) => INSTALLS_PYTHON.test(r.instruction.argsText))) return undefined;
  for (const { file, script } of scripts(ctx)) {
    const installs = script.commands.some((c) => /^(apt-get|apt|apk|yum|dnf|microdnf|uv|curl|wget|conda)$/.test(c.name) && INSTALLS_PYTHON.test(c.args.map((a) => a.value).join(' ')));
    if (installs) return undefined;
    const cmd = script.commands.find((c) => /^(python[\d.]*|pip[\d.]*|pytest)$/.test(effectiveWords(c)[0] ?? ''));
    if (!cmd) continue;
    const what = effectiveWords(cmd)[0] ?? 'python3';
    const hidden = cmd.redirects.some((r) => /^2?>$/.test(r.op) && r.target === '/dev/null') ? ' (its errors are sent to /dev/null, so the log does not even say why)' : '';
    return {
      file, range: cmdRange(ctx, file, cmd), severity: otherLanguage ? 'warning' : 'info',
      message: `The verifier runs \`${what}\`, but the image is \`${base.image}\`, which ships no Python, and nothing installs it${hidden}: the command is not found and the oracle scores 0. Install python3 (and the test tools) in the Dockerfile.`,
      related: ctx.task.environment.dockerfile ? [{ file: ctx.task.environment.dockerfile, range: base.imageRange ?? base.instruction.range, message: 'base image without Python' }] : [],
    };
  }
  return undefined;
}
