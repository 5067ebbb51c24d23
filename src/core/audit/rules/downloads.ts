/**
 * Downloads the build and the reference solution make: a curl that saves an HTTP error page as the
 * artifact, a URL whose content moves (no version, `latest`, a branch), and an oracle that fetches its
 * fix from the network when it runs.
 */
import type { Range } from '../../model/positions';
import { effectiveWords, type ShellCommand, type ShellScript } from '../../parse/shell';
import type { AuditContext } from '../context';
import type { StaticRule } from '../rule';
import { downloadOf, isRemoteUrl } from './commands';
import { dfFile, runCmdRange } from './dockerfile';
import { unpinnedInstaller } from './installers';

/** A shell script of the task with the way to put a command's range in its file. */
interface Script {
  readonly file: string;
  readonly script: ShellScript;
  range(cmd: ShellCommand): Range;
}

/** Every RUN of the environment's Dockerfile, each parsed on its own (a RUN is one `sh -c`). */
function* dockerRuns(ctx: AuditContext): Generator<Script> {
  const df = ctx.dockerfile();
  if (!df) return;
  const file = dfFile(ctx);
  for (const run of df.runs) {
    if (run.shell) yield { file, script: run.shell, range: (cmd) => runCmdRange(df, run, cmd) };
  }
}

function solutionScript(ctx: AuditContext): Script | undefined {
  const file = ctx.solutionScript;
  const script = ctx.shell(file);
  return file && script ? { file, script, range: (cmd) => ctx.range(file, cmd.start, cmd.end) } : undefined;
}

/** curl options whose value is the next word (so `-H 'Accept: x'` is not read as flags). */
const CURL_VALUE_OPTS = /^-[^-]*[oHdXuAewxTKCrmbcEDyYzUQtPF]$/;

/** What a curl command does with the body: whether it fails on HTTP errors and where the body goes. */
export interface CurlUse {
  readonly failsOnHttpError: boolean;
  /** The file the body is saved to (`-o F`, `-O` → the URL's last segment, `> F`), when saved. */
  readonly savedTo?: string;
  /** The body is piped into another command (`| sh`, `| tar x`). */
  readonly piped: boolean;
  /** `-w '%{http_code}'`: the script reads the status itself. */
  readonly checksStatus: boolean;
  readonly url: string;
}

export function curlUse(cmd: ShellCommand, text: string): CurlUse | undefined {
  const w = effectiveWords(cmd);
  if (w[0] !== 'curl') return undefined;
  const url = w.find((x) => isRemoteUrl(x));
  if (!url) return undefined;
  let fails = false;
  let savedTo: string | undefined;
  let checksStatus = false;
  for (let i = 1; i < w.length; i++) {
    const x = w[i] ?? '';
    if (x === '--fail' || x === '--fail-with-body' || x === '-f') { fails = true; continue; }
    if (x === '-w' || x === '--write-out' || x.startsWith('--write-out=')) { checksStatus = true; i++; continue; }
    if (x === '-o' || x === '--output') { savedTo = w[i + 1]; i++; continue; }
    if (x.startsWith('--output=')) { savedTo = x.slice(9); continue; }
    if (x === '-O' || x === '--remote-name' || x === '--remote-name-all') { savedTo = url.split(/[?#]/)[0]?.split('/').pop(); continue; }
    if (/^-[A-Za-z]+$/.test(x)) {
      // A cluster of short flags (`-fsSL`, `-sLo FILE`): the last may take the next word as its value.
      if (x.includes('f')) fails = true;
      if (x.includes('O')) savedTo = url.split(/[?#]/)[0]?.split('/').pop();
      if (x.endsWith('o')) { savedTo = w[i + 1]; i++; continue; }
      if (x.endsWith('w')) { checksStatus = true; i++; continue; }
      if (CURL_VALUE_OPTS.test(x)) i++;
    }
  }
  savedTo ??= stdoutFile(cmd, text);
  if (savedTo === '/dev/null' || savedTo === '-') savedTo = undefined;
  const piped = cmd.pipeline !== undefined && cmd.pipeline.index < cmd.pipeline.length - 1;
  return { failsOnHttpError: fails, ...(savedTo ? { savedTo } : {}), piped, checksStatus, url };
}

/**
 * The file a command's stdout is redirected to. The grammar hangs some redirects on the command node
 * itself, and one after the last command of a list on the whole list, where `redirects` does not look.
 */
function stdoutFile(cmd: ShellCommand, text: string): string | undefined {
  const r = cmd.redirects.find((x) => (x.op === '>' || x.op === '>>' || x.op === '>|') && !/^\/dev\//.test(x.target));
  if (r) return r.target;
  // `a && curl URL > f` parses as a redirect of the whole list, though bash gives it to the last command.
  let unit = cmd.node;
  while (unit.parent?.type === 'list' && unit.parent.children.filter((x) => x.named).at(-1) === unit) unit = unit.parent;
  const holders = unit.parent?.type === 'redirected_statement' && unit !== cmd.node ? [cmd.node, unit.parent] : [cmd.node];
  for (const c of holders.flatMap((h) => h.children)) {
    if (c.type !== 'file_redirect' || c.children.some((x) => x.field === 'descriptor')) continue;
    const op = c.children.find((x) => !x.named)?.type ?? '';
    const dest = c.children.find((x) => x.field === 'destination');
    if (!/^>>?\|?$/.test(op) || !dest) continue;
    const target = text.slice(dest.start, dest.end).replace(/^["']|["']$/g, '');
    return target.startsWith('/dev/') ? undefined : target;
  }
  return undefined;
}

/** Commands that refuse an HTML error page loudly: the build or the oracle stops there anyway. */
const PARSERS = /^(tar|unzip|gunzip|bunzip2|xz|unxz|zstd|7z|sh|bash|dash|zsh|dpkg|apt|apt-get|rpm|python[\d.]*|pip[\d.]*|node|java|git|patch|gpg|apt-key|jq|install)$/;

/** The script checks what it saved: a checksum (`sha256sum -c`), a signature, or the size/type of the file. */
function verifiesDownload(script: ShellScript, after: number): boolean {
  return script.commands.some((c) => c.start > after && (
    (/^(sha\d+sum|shasum|md5sum|b2sum)$/.test(c.name) && c.args.some((a) => a.value === '-c' || a.value === '--check' || a.value.startsWith('-') && a.value.includes('c')))
    || (c.name === 'gpg' && c.args.some((a) => a.value === '--verify'))
    || c.name === 'file'));
}

/** A later command of the script reads the saved file with a program that fails on an error page. */
function consumedByParser(script: ShellScript, cmd: ShellCommand, saved: string): boolean {
  const base = saved.split('/').pop() ?? saved;
  return script.commands.some((c) => c.start > cmd.start && PARSERS.test(effectiveWords(c)[0] ?? '')
    && c.args.some((a) => a.value === saved || a.value.endsWith(`/${base}`) || a.value === base));
}

// A note, not a warning: on the blind readings its warnings were true 8 in 14 (three sets), 6 in 10 on the eighth after the sixth set's narrowing — below 0.75
// on at least 6 judged findings from at least 3 sets, after its causes found earlier were fixed.
export const downloadWithoutFail: StaticRule = {
  id: 'download-without-fail', class: 'brittleness', severity: 'info',
  title: 'curl saves a download without --fail: an HTTP error page becomes the artifact',
  *check(ctx) {
    const sol = solutionScript(ctx);
    for (const s of [...dockerRuns(ctx), ...(sol ? [sol] : [])]) {
      for (const cmd of s.script.commands) {
        const use = curlUse(cmd, s.script.tree.text);
        if (!use || use.failsOnHttpError || use.checksStatus || (!use.savedTo && !use.piped)) continue;
        // `if curl …; then … else … fi`: the script branches on the fetch itself (a reachability probe),
        // so what it saves is handled by the branch, not taken for the artifact.
        const before = s.script.tree.text.slice(s.script.tree.text.lastIndexOf('\n', cmd.start - 1) + 1, cmd.start);
        if (cmd.guarded && /\b(if|elif|while|until)\s+(!\s*)?$/.test(before)) continue;
        if (use.savedTo && verifiesDownload(s.script, cmd.start)) continue;
        const where = s.file === sol?.file ? 'the reference solution carries on' : 'the image builds';
        // An error page fed to a parser (tar, sh, git apply) stops the run there: the failure is loud,
        // only its message is wrong. Saved and left for later, the error page silently becomes the file.
        const loud = use.piped || (use.savedTo !== undefined && consumedByParser(s.script, cmd, use.savedTo));
        yield {
          file: s.file, range: s.range(cmd),
          ...(loud ? { severity: 'info' as const } : {}),
          message: loud
            ? `\`curl\` fetches ${use.url} without \`--fail\`: on an HTTP error the error page is ${use.piped ? 'piped on' : 'saved'} and the next step fails with a misleading message instead of curl's. Add \`-f\` (\`curl -fsSL\`).`
            : `\`curl\` saves ${use.url} to ${use.savedTo ?? 'a file'} without \`--fail\`: when the server answers 404 or 5xx, the error page is saved in its place and ${where} "fine" with a broken file. Add \`-f\` (\`curl -fsSL\`).`,
        };
      }
    }
  },
};

/**
 * A URL whose content moves under the same address: a package CDN without a version (or `@latest`),
 * a `latest` release, a branch of a GitHub repository. The returned text says which.
 */
export function movingUrl(url: string): string | undefined {
  const u = url.replace(/[?#].*$/, '');
  let m = /^https?:\/\/(?:unpkg\.com|cdn\.jsdelivr\.net\/npm)\/((?:@[\w.-]+\/)?[\w.-]+)(@[^/]+)?(\/|$)/i.exec(u);
  if (m) return !m[2] ? `no version of ${m[1] ?? 'the package'} (the CDN serves the newest release)` : /^@(latest|next|canary|beta)$/i.test(m[2]) ? `${m[1] ?? ''}${m[2]}` : undefined;
  m = /^https?:\/\/cdn\.jsdelivr\.net\/gh\/([\w.-]+\/[\w.-]+)(@[^/]+)?(\/|$)/i.exec(u);
  if (m) return !m[2] ? `no version of ${m[1] ?? ''} (the default branch)` : /^@(main|master|latest)$/i.test(m[2]) ? `${m[1] ?? ''}${m[2]}` : undefined;
  m = /^https?:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/[\w.-]+\/([^/]+)\//i.exec(u);
  if (m) return /\d/.test(m[1] ?? '') ? undefined : 'no version segment';
  m = /^https?:\/\/raw\.githubusercontent\.com\/[\w.-]+\/[\w.-]+\/(?:refs\/heads\/)?(main|master|HEAD|develop|dev|trunk)\//i.exec(u)
    ?? /^https?:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(?:raw|blob)\/(?:refs\/heads\/)?(main|master|HEAD|develop|dev|trunk)\//i.exec(u)
    ?? /^https?:\/\/github\.com\/[\w.-]+\/[\w.-]+\/archive\/(?:refs\/heads\/)?(main|master|HEAD|develop|dev|trunk)\.(?:zip|tar\.gz)$/i.exec(u);
  if (m) return `the ${m[1] ?? ''} branch`;
  if (/\/releases\/latest(\/|$)|\/latest\/|\/latest$|\/latest[._-][\w.-]*$/i.test(u)) return '"latest"';
  return undefined;
}

export const unversionedDownloadUrl: StaticRule = {
  id: 'unversioned-download-url', class: 'brittleness', severity: 'warning',
  title: 'The image downloads from a URL whose content moves (no version, latest, a branch)',
  *check(ctx) {
    const df = ctx.dockerfile();
    if (!df) return;
    const file = dfFile(ctx);
    for (const s of dockerRuns(ctx)) {
      for (const cmd of s.script.commands) {
        const dl = downloadOf(cmd);
        if (dl?.kind !== 'fetch') continue;
        const why = movingUrl(dl.url);
        if (why) yield { file, range: s.range(cmd), message: `${dl.url} has ${why}: every rebuild can fetch different content than the oracle was checked with. Pin the version (or a commit) in the URL.` };
        const installs = why ? undefined : unpinnedInstaller(s.script, cmd, dl.url);
        if (installs) yield { file, range: s.range(cmd), message: `${dl.url} piped into a shell installs ${installs} with no version given: every rebuild can get a different toolchain than the oracle was checked with. Pin it (e.g. rustup's \`--default-toolchain 1.83.0\`, uv's versioned installer URL).` };
      }
    }
    for (const ins of df.instructions) {
      if (ins.keyword !== 'ADD') continue;
      for (const a of ins.args) {
        const why = /^https?:/.test(a.value) ? movingUrl(a.value) : undefined;
        if (why) yield { file, range: a.range, message: `${a.value} has ${why}: every rebuild can fetch different content than the oracle was checked with. Pin the version (or a commit) in the URL.` };
      }
    }
  },
};

/** Whether the agent (and so the oracle, which runs in its place) is cut from the network. */
function agentOffline(ctx: AuditContext): boolean {
  if (ctx.task.format !== 'harbor') return false;
  const mode = ctx.task.agent.networkMode ?? ctx.task.environment.networkMode ?? 'public';
  return mode === 'no-network' || mode === 'none';
}

/** What the oracle fetches that is its fix: a patch or diff, a pull request, a branch or default-branch clone. */
function fixFetched(script: ShellScript, cmd: ShellCommand): string | undefined {
  const w = effectiveWords(cmd);
  const dl = downloadOf(cmd);
  if (dl?.kind === 'fetch') {
    const u = dl.url.replace(/[?#].*$/, '');
    if (/\/pull\/\d+(\.(diff|patch))?$|\/compare\/[^/]+\.(diff|patch)$/.test(u)) return `the pull request ${dl.url}, whose diff changes while the pull request does`;
    if (/\.(diff|patch)$/.test(u)) return /\/commit\/[0-9a-f]{7,40}\.(diff|patch)$/.test(u) ? undefined : `the patch ${dl.url}`;
    const moving = movingUrl(dl.url);
    return moving && /github/.test(u) ? `${dl.url} (${moving})` : undefined;
  }
  if (dl?.kind === 'clone') {
    const pinned = w.some((x) => x === '--branch' || x === '-b' || x.startsWith('--branch=') || x === '--revision')
      || script.commands.some((c) => c.start > cmd.start && c.name === 'git' && c.args.some((a) => a.value === 'checkout' || a.value === 'reset'));
    return pinned ? undefined : `the default branch of ${dl.url}`;
  }
  if (w[0] === 'git' && (w[1] === 'pull' || (w[1] === 'fetch' && w.length <= 3))) return 'the current head of a remote branch';
  return undefined;
}

export const solutionFetchesFix: StaticRule = {
  id: 'solution-fetches-fix', class: 'brittleness', severity: 'warning',
  title: 'The reference solution downloads its fix from the network when it runs',
  *check(ctx) {
    const sol = solutionScript(ctx);
    if (!sol) return;
    const offline = agentOffline(ctx);
    for (const cmd of sol.script.commands) {
      const what = fixFetched(sol.script, cmd);
      if (!what) continue;
      // Online, a fetch of a moving head is a risk to weigh (archived upstreams, the same repository the
      // instruction names, a later pin): readers judged most of those not worth a fix, so a note. Offline,
      // the oracle cannot run at all.
      yield {
        file: sol.file, range: sol.range(cmd), ...(offline ? {} : { severity: 'info' as const }),
        message: offline
          ? `The oracle fetches ${what} at run time, but the task cuts the agent's network: the reference solution cannot run, and the task is never shown solvable. Ship the fix in solution/.`
          : `The oracle fetches ${what} at run time: it proves the task solvable only while that host serves the same content. Ship the fix in solution/.`,
      };
      return;
    }
  },
};
