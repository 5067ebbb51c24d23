import { effectiveWords, type ShellCommand } from '../../parse/shell';

/** One package named on an install command line. */
export interface InstalledPackage {
  readonly name: string;
  readonly spec: string;
  readonly pinned: boolean;
  /** Index of the word in the command's `args` (for positions). */
  readonly argIndex: number;
}

export interface InstallCommand {
  readonly manager: 'pip' | 'apt' | 'apk' | 'dnf' | 'zypper' | 'npm' | 'uvx' | 'gem' | 'cargo' | 'go' | 'conda';
  readonly packages: readonly InstalledPackage[];
  /** Installs from a requirements file or the current project (pins unknown from here). */
  readonly fromFile: boolean;
}

/** pip / uv options whose value is the next word (so `--retries 3`, `--index URL` are not packages). */
const PIP_VALUE_OPTS = new Set(['-i', '--index-url', '--extra-index-url', '--index', '--default-index', '-f', '--find-links', '-c', '--constraint', '--target', '-t', '--prefix', '--root', '--python', '-p', '--cache-dir', '--trusted-host', '--platform', '--python-version', '--only-binary', '--no-binary', '--retries', '--timeout', '--proxy', '--cert', '--client-cert', '--log', '--src', '--exists-action', '--progress-bar', '--upgrade-strategy', '--implementation', '--abi', '--report', '--global-option', '--config-settings', '-C', '--keyring-provider', '--index-strategy', '--resolution', '--prerelease', '--extra', '--group', '--python-platform', '--exclude-newer', '--override', '--build-constraint', '--link-mode', '--compile-bytecode-timeout']);

/**
 * A requirement whose resolved version cannot drift far: `==`/`===`, a compatible release `~=`,
 * a direct reference (`@ url`, VCS URL), or a range closed on both sides (`>=7,<8`).
 */
export function isPinnedRequirement(spec: string): boolean {
  if (/===?\s*[\w.*+!-]+/.test(spec) || /~=\s*\d/.test(spec) || /@\s*\S+/.test(spec) || /^(git\+|https?:)/.test(spec)) return true;
  return />=?\s*\d/.test(spec) && /<=?\s*\d/.test(spec);
}

function argIndexOf(cmd: ShellCommand, words: readonly string[], i: number): number {
  // `effectiveWords` drops wrapper words at the front; map back by counting from the end.
  const total = cmd.args.length + 1;
  return total - words.length + i - 1;
}

function pipPackages(cmd: ShellCommand, words: string[], from: number): InstallCommand {
  const packages: InstalledPackage[] = [];
  let fromFile = false;
  for (let i = from; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w === '-r' || w === '--requirement' || w === '-e' || w === '--editable') { fromFile = true; i++; continue; }
    if (PIP_VALUE_OPTS.has(w)) { i++; continue; }
    if (w.startsWith('-')) continue;
    if (w === '.' || w.startsWith('./') || w.startsWith('/') || w.endsWith('.whl') || w.endsWith('.tar.gz') || w.includes('$')) { fromFile = true; continue; }
    // A bare number or URL here is the value of an option pip knows and this table does not.
    if (/^\d+(\.\d+)?$/.test(w) || /^[a-z]+:\/\/(?!.*(\.whl|\.tar\.gz|\.zip)$)/i.test(w) && !w.startsWith('git+')) continue;
    const name = w.split(/[=<>!~[@; ]/)[0] ?? w;
    const pinned = isPinnedRequirement(w);
    packages.push({ name, spec: w, pinned, argIndex: argIndexOf(cmd, words, i) });
  }
  return { manager: 'pip', packages, fromFile };
}

/** The requirements of one `--with` value (uv takes several, comma-separated: `--with pytest,requests==2.32.3`). */
function withSpecs(cmd: ShellCommand, w: readonly string[], at: number): InstalledPackage[] {
  const value = w[at] ?? '';
  return value.split(',').filter(Boolean).map((spec) => ({ name: spec.split(/[=<>!~[@]/)[0] ?? spec, spec, pinned: isPinnedRequirement(spec), argIndex: argIndexOf(cmd, w, at) }));
}

const SYSTEM_MANAGERS: ReadonlySet<InstallCommand['manager']> = new Set(['apt', 'apk', 'dnf', 'zypper']);
/** An install from the distribution's archive (apt, apk, dnf/yum, zypper): packages the image lacks come from its mirrors. */
export const isSystemInstall = (inst: InstallCommand): boolean => SYSTEM_MANAGERS.has(inst.manager);

/**
 * The distribution package managers other than apt, by program name: the word that installs, the
 * options that take a value, and how a pinned package is written (`curl=8.5.0-r0`, `curl-7.76.1`).
 */
const SYSTEM_INSTALLERS: Readonly<Record<string, { manager: 'apk' | 'dnf' | 'zypper'; verbs: readonly string[]; valueOpts: ReadonlySet<string>; pinned: RegExp }>> = {
  apk: { manager: 'apk', verbs: ['add'], valueOpts: new Set(['-t', '--virtual', '-X', '--repository', '--root', '-p']), pinned: /[=~<>]/ },
  dnf: { manager: 'dnf', verbs: ['install'], valueOpts: new Set(['--repo', '--enablerepo', '--disablerepo', '--releasever', '--installroot']), pinned: /-\d/ },
  yum: { manager: 'dnf', verbs: ['install'], valueOpts: new Set(['--enablerepo', '--disablerepo', '--releasever', '--installroot']), pinned: /-\d/ },
  microdnf: { manager: 'dnf', verbs: ['install'], valueOpts: new Set(['--enablerepo', '--disablerepo', '--releasever']), pinned: /-\d/ },
  zypper: { manager: 'zypper', verbs: ['install', 'in'], valueOpts: new Set(['-r', '--repo']), pinned: /[=<>]/ },
};

function systemInstall(cmd: ShellCommand, w: readonly string[]): InstallCommand | undefined {
  const n = w[0] ?? '';
  const spec = Object.hasOwn(SYSTEM_INSTALLERS, n) ? SYSTEM_INSTALLERS[n] : undefined;
  if (!spec) return undefined;
  const verb = w.findIndex((x, i) => i > 0 && spec.verbs.includes(x));
  if (verb < 0) return undefined;
  const packages: InstalledPackage[] = [];
  for (let i = verb + 1; i < w.length; i++) {
    const x = w[i] ?? '';
    if (spec.valueOpts.has(x)) { i++; continue; }
    if (x.startsWith('-') || x.includes('$')) continue;
    packages.push({ name: x.split(/[=~<>]/)[0] ?? x, spec: x, pinned: spec.pinned.test(x), argIndex: argIndexOf(cmd, w, i) });
  }
  return { manager: spec.manager, packages, fromFile: false };
}

/** Recognises package installs: pip (and `python -m pip`, `uv pip`), apt, apk, dnf/yum, zypper, npm, uvx `--with`, `uv run --with`. */
export function installOf(cmd: ShellCommand): InstallCommand | undefined {
  const w = effectiveWords(cmd);
  const [n, a1, a2] = w;
  if (n === undefined) return undefined;
  if (/^pip(3(\.\d+)?)?$/.test(n) && a1 === 'install') return pipPackages(cmd, w, 2);
  if (/^python(3(\.\d+)?)?$/.test(n) && pythonModule(w) === 'pip') {
    const k = w.indexOf('pip');
    if (k > 0 && w[k + 1] === 'install') return pipPackages(cmd, w, k + 2);
  }
  if (n === 'uv' && a1 === 'pip' && a2 === 'install') return pipPackages(cmd, w, 3);
  if (n === 'uv' && a1 === 'add') return pipPackages(cmd, w, 2);
  if ((n === 'apt-get' || n === 'apt' || n === 'aptitude') && w.includes('install')) {
    const packages: InstalledPackage[] = [];
    const start = w.indexOf('install') + 1;
    for (let i = start; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x.startsWith('-') || x.includes('$')) continue;
      packages.push({ name: x.split('=')[0] ?? x, spec: x, pinned: x.includes('='), argIndex: argIndexOf(cmd, w, i) });
    }
    return { manager: 'apt', packages, fromFile: false };
  }
  const system = systemInstall(cmd, w);
  if (system) return system;
  if (n === 'npm' && (a1 === 'install' || a1 === 'i' || a1 === 'add')) {
    const packages: InstalledPackage[] = [];
    for (let i = 2; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x.startsWith('-')) continue;
      packages.push({ name: x.replace(/(?<=.)@.*$/, ''), spec: x, pinned: /(?<=.)@\d/.test(x), argIndex: argIndexOf(cmd, w, i) });
    }
    return { manager: 'npm', packages, fromFile: packages.length === 0 };
  }
  // `uv run --with pytest pytest …`: the `--with` requirements are resolved when it runs; the command is not a package.
  if (n === 'uv' && a1 === 'run') {
    const packages: InstalledPackage[] = [];
    for (let i = 2; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x === '-w' || x === '--with') { packages.push(...withSpecs(cmd, w, i + 1)); i++; continue; }
      if (x === '--') break;
      if (PIP_VALUE_OPTS.has(x) || x === '--python' || x === '-p' || x === '--project' || x === '--directory') { i++; continue; }
      if (!x.startsWith('-')) break;
    }
    return packages.length > 0 ? { manager: 'uvx', packages, fromFile: false } : undefined;
  }
  if (n === 'uvx' || (n === 'uv' && a1 === 'tool' && a2 === 'run')) {
    const packages: InstalledPackage[] = [];
    let i = n === 'uvx' ? 1 : 3;
    for (; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x === '-w' || x === '--with' || x === '--from') {
        packages.push(...withSpecs(cmd, w, i + 1));
        i++;
        continue;
      }
      if (PIP_VALUE_OPTS.has(x)) { i++; continue; }
      if (x.startsWith('-')) continue;
      // The tool itself: `uvx pytest` resolves the newest release at run time, unless a `--with`
      // requirement pins the same package.
      // With `--from pkg` the word is a command that package provides, not a package resolved by name.
      if (w.slice(0, i).some((y) => y === '--from')) break;
      const tool = x.split(/[=<>!~[@]/)[0] ?? x;
      const pinnedByWith = packages.some((p) => p.name === tool && p.pinned);
      packages.push({ name: tool, spec: x, pinned: pinnedByWith || isPinnedRequirement(x), argIndex: argIndexOf(cmd, w, i) });
      break;
    }
    return { manager: 'uvx', packages, fromFile: false };
  }
  if (n === 'gem' && a1 === 'install') return { manager: 'gem', packages: [], fromFile: false };
  if (n === 'cargo' && a1 === 'install') return { manager: 'cargo', packages: [], fromFile: false };
  if (n === 'go' && (a1 === 'install' || a1 === 'get')) return { manager: 'go', packages: [], fromFile: false };
  if ((n === 'conda' || n === 'mamba' || n === 'micromamba') && a1 === 'install') return { manager: 'conda', packages: [], fromFile: false };
  return undefined;
}

const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[?::1\]?|host\.docker\.internal)$/i;

export function urlHost(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#\s]+)/i.exec(url);
  return m?.[1];
}

/** A URL aimed at something outside the container (not localhost, not a bare service name). */
export function isRemoteUrl(url: string): boolean {
  const host = urlHost(url);
  if (!host) return false;
  if (LOCAL_HOST.test(host)) return false;
  return host.includes('.');
}

/** Fetches over the network: curl/wget of a remote URL, git clone of a remote repository. */
export function downloadOf(cmd: ShellCommand): { kind: 'fetch' | 'clone'; url: string; argIndex: number } | undefined {
  const w = effectiveWords(cmd);
  const n = w[0];
  if (n === 'curl' || n === 'wget' || n === 'aria2c') {
    const i = cmd.args.findIndex((a) => isRemoteUrl(a.value));
    if (i >= 0) return { kind: 'fetch', url: cmd.args[i]?.value ?? '', argIndex: i };
  }
  if (n === 'git' && w[1] === 'clone') {
    const i = cmd.args.findIndex((a) => isRemoteUrl(a.value) || /^git@/.test(a.value));
    if (i >= 0) return { kind: 'clone', url: cmd.args[i]?.value ?? '', argIndex: i };
  }
  return undefined;
}

/**
 * Programs whose first operand is a script or program file they run (`python3 solve.py`, `bash build.sh`,
 * `java -jar app.jar`): one list for every rule that asks which file a command runs.
 */
export const SCRIPT_INTERPRETER = /^(python[\d.]*|bash|sh|node|Rscript|ruby|perl|java)$/;

/** Interpreter options that take a value (`python3 -W error -X dev -m pytest`). */
const PYTHON_VALUE_OPTIONS = new Set(['-W', '-X', '-Q', '--check-hash-based-pycs']);

/**
 * The module a `python -m MOD` run names, past interpreter options such as `-I`, `-u`, `-B`, `-W x`
 * (hardened verifiers call `python3 -I -m pytest`), or `-mMOD` written as one word.
 */
export function pythonModule(w: readonly string[]): string | undefined {
  for (let i = 1; i < w.length; i++) {
    const x = w[i] ?? '';
    if (x === '-m') return w[i + 1];
    if (/^-[A-Za-z]*m\S+$/.test(x) && !x.startsWith('--')) return x.slice(x.indexOf('m') + 1);
    if (x === '-c' || !x.startsWith('-')) return undefined; // a script or `-c CODE` ends the options
    if (PYTHON_VALUE_OPTIONS.has(x)) i++;
  }
  return undefined;
}

/** Runs pytest (directly, via `python -m pytest`, `uv run`, `uvx`). */
export function isPytestCommand(cmd: ShellCommand): boolean {
  const w = effectiveWords(cmd);
  // `pytest --version`, `pytest --help`, `--collect-only`: probes that run no test.
  if (w.some((x) => /^(--version|-V|--help|-h|--co|--collect-only|--fixtures|--markers)$/.test(x))) return false;
  const n = w[0] ?? '';
  if (n === 'pytest' || n === 'py.test') return true;
  if (/^python(3(\.\d+)?)?$/.test(n) && pythonModule(w) === 'pytest') return true;
  if (n === 'uvx' || n === 'uv') {
    for (let i = 1; i < w.length; i++) {
      const x = w[i] ?? '';
      if (x === '-w' || x === '--with' || x === '-p' || x === '--python' || x === '--from') { i++; continue; }
      if (x.startsWith('-') || x === 'run' || x === 'tool') continue;
      return /^pytest([=@].*)?$/.test(x) || x === 'python' && w[i + 1] === '-m' && w[i + 2] === 'pytest';
    }
  }
  return false;
}

const mavenTests = (a: readonly string[]): boolean => a.some((x) => x === 'test' || x === 'verify');
/** `make test`, `gradle check`: a goal named test or check. */
const testOrCheckGoal = (a: readonly string[]): boolean => a.some((x) => /^(test|check)$/.test(x));
const firstOperand = (a: readonly string[]): string => a.find((x) => !x.startsWith('-')) ?? '';
const scriptRunsTests = (a: readonly string[]): boolean => /^(test|t)$/.test(a[0] ?? '') || (a[0] === 'run' && /^test(:[\w:-]+)?$/.test(a[1] ?? ''));
/**
 * The test runners of other ecosystems, by program name (a path's last part: `./gradlew`): whether
 * these arguments run tests. Their exit status is the verdict as pytest's is.
 */
const TEST_RUNNERS: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  // `cargo test --no-run` and `go test -c` only compile the tests.
  cargo: (a) => (a[0] === 'test' && !a.includes('--no-run')) || (a[0] === 'nextest' && a[1] === 'run'),
  go: (a) => a[0] === 'test' && !a.includes('-c'),
  dotnet: (a) => a[0] === 'test',
  deno: (a) => a[0] === 'test',
  swift: (a) => a[0] === 'test',
  npm: scriptRunsTests, yarn: scriptRunsTests, pnpm: scriptRunsTests, bun: scriptRunsTests,
  npx: (a) => /^(jest|vitest|mocha|ava|tap)$/.test(firstOperand(a)) || (firstOperand(a) === 'playwright' && a.includes('test')),
  jest: () => true, vitest: () => true, mocha: () => true, bats: () => true, ctest: () => true,
  rspec: () => true, phpunit: () => true, prove: () => true,
  bundle: (a) => a[0] === 'exec' && a[1] === 'rspec',
  make: testOrCheckGoal,
  mvn: mavenTests, mvnw: mavenTests,
  gradle: testOrCheckGoal, gradlew: testOrCheckGoal,
};

/**
 * A command whose status is the verdict: pytest, another ecosystem's test runner (`cargo test`,
 * `npm test`, `go test`), or a Python/shell test program under the tests folder.
 */
export function isTestCommand(cmd: ShellCommand): boolean {
  if (isPytestCommand(cmd)) return true;
  const w = effectiveWords(cmd);
  const n = w[0] ?? '';
  const base = n.slice(n.lastIndexOf('/') + 1);
  const runner = Object.hasOwn(TEST_RUNNERS, base) ? TEST_RUNNERS[base] : undefined;
  if (runner) return runner(w.slice(1)) && !w.some((x) => /^(--version|-V|--help|-h)$/.test(x));
  if (/^(python(3(\.\d+)?)?|bash|sh|node)$/.test(n)) {
    // `python3 -c CODE`, `bash -c CODE`, `node -e CODE`: inline code, a test run only when it runs one.
    const inline = w.findIndex((x) => x === '-c' || x === '-e');
    if (inline > 0) return /\b(pytest|unittest)\.main\b|(^|[\s;&|(])(pytest|py\.test)\b|(^|\/)tests?\/\S+\.(sh|py)\b/.test(w[inline + 1] ?? '');
    const target = w.slice(1).find((x) => !x.startsWith('-'));
    return target !== undefined && /(^|\/)(tests?\/|test_|check|verify|grade)/.test(target);
  }
  return false;
}

/** `echo 1 > /logs/verifier/reward.txt` and friends: the literal written, when literal. */
export function rewardWriteOf(cmd: ShellCommand): { target: string; value?: string } | undefined {
  const r = cmd.redirects.find((x) => /reward/i.test(x.target) && (x.op === '>' || x.op === '>>' || x.op === '>|'));
  const tee = cmd.name === 'tee' ? cmd.args.find((a) => /reward/i.test(a.value)) : undefined;
  const target = r?.target ?? tee?.value;
  if (target === undefined) return undefined;
  if (cmd.name === 'echo' || cmd.name === 'printf') {
    const vals = cmd.args.map((a) => a.value).filter((v) => !v.startsWith('-'));
    const joined = vals.join(' ').trim();
    if (/^[\d.]+(\\n)?$/.test(joined)) return { target, value: joined.replace(/\\n$/, '') };
    if (/^\{.*\}$/.test(joined) && !joined.includes('$')) return { target, value: joined };
  }
  return { target };
}
