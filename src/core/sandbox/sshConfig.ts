import path from 'node:path';

/**
 * The part of OpenSSH's client configuration (`~/.ssh/config`, ssh_config(5)) an `ssh://host`
 * engine needs: `HostName`, `User`, `Port` and `IdentityFile` of the `Host` blocks that match the
 * host as given. A small parser of our own: no package for it is a dependency here, and the subset
 * is small. As OpenSSH does: keywords are case-insensitive, `Key value` or `Key=value`, values may
 * be quoted, `#` starts a comment, the first value found for a keyword wins (IdentityFile
 * accumulates), `Host` patterns take `*`, `?` and `!negation`, and lines before the first `Host`
 * apply to every host. `Match` blocks are skipped (their conditions are not evaluated), `Include` is
 * not followed. `ProxyJump` and `ProxyCommand` are reported, so the caller can refuse them clearly
 * rather than connect straight to a host that is only reachable through a jump host.
 */
export interface SshHostConfig {
  readonly hostName?: string;
  readonly user?: string;
  readonly port?: number;
  /** In the order given, `~` and the `%d %h %r %u %%` tokens expanded. */
  readonly identityFiles: readonly string[];
  /** `ProxyJump` or `ProxyCommand`, with its value: not supported. */
  readonly proxy?: string;
}

export class SshConfigError extends Error {}

interface Line {
  readonly key: string;
  readonly args: readonly string[];
  readonly line: number;
}

/** Words of a value: whitespace-separated, double quotes group. */
function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

function lines(text: string): Line[] {
  const out: Line[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const t = raw.trim();
    if (!t || t.startsWith('#')) continue;
    const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(t);
    if (!m) { out.push({ key: t.toLowerCase(), args: [], line: i + 1 }); continue; }
    out.push({ key: (m[1] as string).toLowerCase(), args: words(m[2] as string), line: i + 1 });
  }
  return out;
}

function globToRegExp(p: string): RegExp {
  return new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
}

/** A `Host` line's patterns against a host: any positive match and no negated one. */
export function hostMatches(patterns: readonly string[], host: string): boolean {
  let hit = false;
  for (const p of patterns) {
    if (p.startsWith('!')) { if (globToRegExp(p.slice(1)).test(host)) return false; continue; }
    if (globToRegExp(p).test(host)) hit = true;
  }
  return hit;
}

export interface ResolveContext {
  readonly home: string;
  /** The local user name (`%u`). */
  readonly localUser: string;
}

function expand(value: string, host: string, user: string, c: ResolveContext): string {
  const v = value.replace(/%([%dhru])/g, (_m, t: string) => (t === '%' ? '%' : t === 'd' ? c.home : t === 'h' ? host : t === 'r' ? user : c.localUser));
  return v.startsWith('~/') ? path.join(c.home, v.slice(2)) : v === '~' ? c.home : v;
}

/** The settings for `host` in the config text (`file` names it in errors). */
export function resolveSshConfig(text: string, host: string, c: ResolveContext, file = 'ssh config'): SshHostConfig {
  let active = true;
  const first = new Map<string, string>();
  const identities: string[] = [];
  for (const l of lines(text)) {
    if (l.key === 'host') { active = hostMatches(l.args, host); continue; }
    if (l.key === 'match') { active = false; continue; }
    if (!active) continue;
    const v = l.args[0];
    if (v === undefined) throw new SshConfigError(`${file}:${l.line}: ${l.key} has no value`);
    if (l.key === 'identityfile') identities.push(v);
    else if (!first.has(l.key)) first.set(l.key, l.key === 'proxycommand' ? l.args.join(' ') : v);
  }
  const hostName = first.get('hostname');
  const h = hostName ? expand(hostName, host, '', c) : host;
  const user = first.get('user');
  const portText = first.get('port');
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new SshConfigError(`${file}: Port ${portText} for ${host} is not a port number`);
  const jump = first.get('proxyjump');
  const command = first.get('proxycommand');
  const proxy = jump && jump.toLowerCase() !== 'none' ? `ProxyJump ${jump}` : command && command.toLowerCase() !== 'none' ? `ProxyCommand ${command}` : undefined;
  return {
    ...(hostName ? { hostName: h } : {}), ...(user ? { user } : {}), ...(port !== undefined ? { port } : {}),
    identityFiles: identities.map((f) => expand(f, h, user ?? c.localUser, c)), ...(proxy ? { proxy } : {}),
  };
}
