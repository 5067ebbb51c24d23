/**
 * Toolchain installer scripts piped into a shell (`curl https://sh.rustup.rs | sh -s -- -y`): the
 * address never changes, what it installs does. Each entry says how the pipe pins a version; without
 * that, every build (or verifier run) takes whatever release is newest.
 */
import { effectiveWords, type ShellCommand, type ShellScript } from '../../parse/shell';

interface Installer {
  readonly url: RegExp;
  /** What an unpinned run installs. */
  readonly what: string;
  /** Whether the words of the shell the script is piped into (or the environment) pin a version. */
  readonly pinned: (shellWords: readonly string[], scriptText: string) => boolean;
}

const VERSION = /^v?\d+\.\d+(\.\d+)?$/;
/** A Rust toolchain that does not move: `1.83.0`, `1.83`, a dated channel `nightly-2026-01-16`. */
const RUST_PINNED = /^(\d+\.\d+(\.\d+)?|(stable|beta|nightly)-\d{4}-\d{2}-\d{2})(-[\w-]+)?$/;

const INSTALLERS: readonly Installer[] = [
  {
    url: /^https:\/\/sh\.rustup\.rs\/?$/, what: 'the newest stable Rust toolchain',
    pinned: (w, t) => {
      const i = w.findIndex((x) => x === '--default-toolchain' || x.startsWith('--default-toolchain='));
      const v = i < 0 ? undefined : w[i]?.includes('=') ? w[i]?.split('=')[1] : w[i + 1];
      // `--default-toolchain none` installs no toolchain here: a later `rustup toolchain install` decides.
      // A dated channel (`nightly-2026-01-16`) is fixed; a variable (`${RUST_VERSION}`) cannot be judged.
      return (v !== undefined && (RUST_PINNED.test(v) || v === 'none' || v.includes('$'))) || /\bRUSTUP_TOOLCHAIN=(v?\d+\.\d+|\w+-\d{4}-\d{2}-\d{2})/.test(t) || /\brustup\s+(default|toolchain\s+install)\s+(v?\d+\.\d+|\w+-\d{4}-\d{2}-\d{2})/.test(t);
    },
  },
  { url: /^https:\/\/astral\.sh\/uv\/install\.sh$/, what: 'the newest uv', pinned: (_w, t) => /\bUV_VERSION=\S*\d/.test(t) },
  { url: /^https:\/\/bun\.sh\/install\/?$/, what: 'the newest Bun', pinned: (w) => w.some((x) => /^bun-v\d/.test(x)) },
  { url: /^https:\/\/deno\.land\/install\.sh$/, what: 'the newest Deno', pinned: (w) => w.some((x) => VERSION.test(x)) },
  { url: /^https:\/\/install\.python-poetry\.org\/?$/, what: 'the newest Poetry', pinned: (w, t) => w.includes('--version') || /\bPOETRY_VERSION=\S*\d/.test(t) },
];

/** The shell command that `cmd` (a download) is piped into, when it is one (`| sh`, `| bash -s --`). */
function pipedShell(script: ShellScript, cmd: ShellCommand): ShellCommand | undefined {
  const p = cmd.pipeline;
  if (!p) return undefined;
  const next = script.commands.find((c) => c.pipeline?.id === p.id && c.pipeline.index === p.index + 1);
  const n = next ? effectiveWords(next)[0] ?? '' : '';
  return /^(sh|bash|zsh|dash)$/.test(n) ? next : undefined;
}

/** What an installer script piped into a shell installs without a pinned version, else undefined. */
export function unpinnedInstaller(script: ShellScript, cmd: ShellCommand, url: string): string | undefined {
  const inst = INSTALLERS.find((i) => i.url.test(url.replace(/[?#].*$/, '')));
  if (!inst) return undefined;
  const sh = pipedShell(script, cmd);
  if (!sh) return undefined;
  const words = effectiveWords(sh);
  // Assignments before the shell (`UV_VERSION=0.5 sh`) and the script's own text both count.
  const text = script.tree.text.slice(Math.max(0, cmd.start - 400), sh.end + 400);
  return inst.pinned(words, text) ? undefined : inst.what;
}
