import { createHmac } from 'node:crypto';
import fs from 'node:fs';

/**
 * OpenSSH's known_hosts check for `ssh://` engines. The Docker CLI reaches an ssh:// engine through
 * the system `ssh`, which refuses a host whose key it does not know (no terminal to ask on) or whose
 * key changed; the engine pool does the same, so a trial's files never go to a host that is not the
 * one the user trusted.
 */
export type HostKeyVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'unknown' | 'changed' | 'revoked' };

/** The name known_hosts files use: `host` on port 22, `[host]:port` elsewhere. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return re.test(name);
}

/** `|1|salt|hash` (HashKnownHosts) or a comma list of patterns, `!` negating. */
function hostMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  let hit = false;
  for (const p of field.split(',')) {
    if (p.startsWith('!')) { if (globMatch(p.slice(1), name)) return false; }
    else if (globMatch(p, name)) hit = true;
  }
  return hit;
}

/**
 * Whether `key` (the host key blob the server sent) is one that `files` list for host:port. No line
 * for the host: unknown; lines for it but none with this key: changed (OpenSSH's "REMOTE HOST
 * IDENTIFICATION HAS CHANGED"); a `@revoked` line with this key: revoked.
 */
export function checkHostKey(files: readonly string[], host: string, port: number, key: Buffer): HostKeyVerdict {
  let text = '';
  for (const f of files) {
    try {
      text += `${fs.readFileSync(f, 'utf8')}\n`;
    } catch {
      // A missing file lists nothing (OpenSSH reads the user's and the system's, either may be absent).
    }
  }
  const name = knownHostName(host, port);
  const blob = key.toString('base64');
  let listed = false;
  let match = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    let fields = line.split(/\s+/);
    let marker: string | undefined;
    if (fields[0]?.startsWith('@')) { marker = fields[0]; fields = fields.slice(1); }
    const [hosts, , keyText] = fields;
    if (!hosts || !keyText || !hostMatches(hosts, name)) continue;
    if (marker === '@revoked') { if (keyText === blob) return { ok: false, reason: 'revoked' }; continue; }
    // Host certificates (@cert-authority) are not checked here: such a host counts as not listed.
    if (marker) continue;
    listed = true;
    if (keyText === blob) match = true;
  }
  if (match) return { ok: true };
  return { ok: false, reason: listed ? 'changed' : 'unknown' };
}
