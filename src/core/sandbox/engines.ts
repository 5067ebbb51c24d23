import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { utils, type ParsedKey } from 'ssh2';
import { SshDockerAgent, type SshKey, type SshTarget } from './sshTransport';
import { resolveSshConfig, SshConfigError, type SshHostConfig } from './sshConfig';

/**
 * Docker engine addresses as users write them (`--engine`, `taskwright.sandbox.engines`), turned
 * into dockerode connection options. Kept apart from the runtime so the parsing is tested without
 * an engine.
 */
export interface EngineAddress {
  /** The address as shown to users and given to `command` agents as DOCKER_HOST (no `?slots=`). */
  readonly endpoint: string;
  /** Trials this engine runs at once; undefined: the run's `--concurrency`. */
  readonly slots?: number;
  /** docker-modem options; every connection key is set (undefined included) so DOCKER_HOST cannot leak in. */
  readonly modem: ModemOptions;
  /** tcp:// with TLS: the folder ca.pem, cert.pem and key.pem were read from. */
  readonly certDir?: string;
  /** ssh:// engines: how to log in (the runtime's HTTP connections are SSH sessions, see sshTransport). */
  readonly ssh?: SshTarget;
}

export interface ModemOptions {
  readonly socketPath: string | undefined;
  readonly host: string | undefined;
  readonly port: string | undefined;
  readonly protocol: 'http' | 'https' | undefined;
  readonly username: string | undefined;
  readonly ca: Buffer | undefined;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
}

export class EngineAddressError extends Error {}

const NONE: ModemOptions = {
  socketPath: undefined, host: undefined, port: undefined, protocol: undefined, username: undefined,
  ca: undefined, cert: undefined, key: undefined,
};

/** The identity files OpenSSH tries when no key is named (in its order; DSA keys are long gone). */
const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

function parsedKey(text: Buffer): ParsedKey | Error {
  const k = utils.parseKey(text);
  return Array.isArray(k) ? (k[0] as ParsedKey | undefined) ?? new Error('no key in the file') : k;
}

/** `?key=PATH`: must exist and be a private key without a passphrase (ssh2 cannot ask for one). */
function namedKey(endpoint: string, file: string, env: NodeJS.ProcessEnv): SshKey {
  const f = file.startsWith('~/') ? path.join(homeOf(env), file.slice(2)) : path.resolve(file);
  let text: Buffer;
  try {
    text = fs.readFileSync(f);
  } catch {
    throw new EngineAddressError(`${endpoint}: key file ${f} cannot be read`);
  }
  const key = parsedKey(text);
  if (key instanceof Error) {
    const hint = /passphrase|encrypted/i.test(key.message) ? `: it is protected by a passphrase; load it into an ssh-agent (\`ssh-add ${f}\`) and leave ?key= out` : ` (${key.message})`;
    throw new EngineAddressError(`${endpoint}: key file ${f} is not a usable private key${hint}`);
  }
  if (key.getPrivatePEM() === null) throw new EngineAddressError(`${endpoint}: key file ${f} holds a public key; ?key= names the private key`);
  return { file: f, key };
}

/** The readable, unencrypted keys among `files` (default: ~/.ssh/id_ed25519, id_ecdsa, id_rsa). */
function defaultKeys(env: NodeJS.ProcessEnv, files: readonly string[] = DEFAULT_IDENTITIES.map((n) => path.join(homeOf(env), '.ssh', n))): SshKey[] {
  const out: SshKey[] = [];
  for (const f of files) {
    let text: Buffer;
    try { text = fs.readFileSync(f); } catch { continue; }
    // One with a passphrase is left to the agent, as `ssh` in batch mode would.
    const key = parsedKey(text);
    if (!(key instanceof Error) && key.getPrivatePEM() !== null) out.push({ file: f, key });
  }
  return out;
}

function sshConfigOf(raw: string, alias: string, home: string, env: NodeJS.ProcessEnv): SshHostConfig {
  const file = path.join(home, '.ssh', 'config');
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return { identityFiles: [] }; }
  try {
    return resolveSshConfig(text, alias, { home, localUser: env.USER || os.userInfo().username }, file);
  } catch (e) {
    if (e instanceof SshConfigError) throw new EngineAddressError(`${raw}: ${e.message}`);
    throw e;
  }
}

/** Seconds for the SSH handshake and login (`TASKWRIGHT_SSH_TIMEOUT_SEC`, default 20, as ssh2's own). */
function sshTimeoutMs(env: NodeJS.ProcessEnv): number {
  const s = Number(env.TASKWRIGHT_SSH_TIMEOUT_SEC);
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 20_000;
}

/** Docker's own rule: DOCKER_TLS_VERIFY set to anything but empty (or 0/false) asks for TLS with verification. */
function tlsRequested(env: NodeJS.ProcessEnv): boolean {
  const v = (env.DOCKER_TLS_VERIFY ?? '').trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}

function certDirOf(env: NodeJS.ProcessEnv): string {
  return env.DOCKER_CERT_PATH || path.join(homeOf(env), '.docker');
}

function certFiles(env: NodeJS.ProcessEnv, endpoint: string): Pick<ModemOptions, 'ca' | 'cert' | 'key'> {
  const dir = certDirOf(env);
  const read = (name: string): Buffer => {
    const f = path.join(dir, name);
    try {
      return fs.readFileSync(f);
    } catch {
      throw new EngineAddressError(`${endpoint}: TLS needs ${f} (DOCKER_CERT_PATH names the folder holding ca.pem, cert.pem and key.pem)`);
    }
  };
  return { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') };
}

/**
 * One engine address: `unix:///path/docker.sock`, `tcp://host:port` (TLS when DOCKER_TLS_VERIFY is
 * set or the port is 2376, certificates from DOCKER_CERT_PATH or ~/.docker, as the Docker CLI does),
 * or `ssh://user@host[:port][?key=PATH]` (an SSH session running `docker system dial-stdio` on the
 * host, as the Docker CLI does: the host key must be in known_hosts; the login tries `?key=`, the
 * agent at SSH_AUTH_SOCK, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa). `?slots=N` sets how many trials
 * the engine runs at once.
 */
export function parseEngineAddress(text: string, env: NodeJS.ProcessEnv = process.env): EngineAddress {
  const raw = text.trim();
  if (!raw) throw new EngineAddressError('an engine address is empty');
  let url: URL;
  try {
    url = new URL(raw.includes('://') ? raw : raw.startsWith('/') ? `unix://${raw}` : `tcp://${raw}`);
  } catch {
    throw new EngineAddressError(`'${raw}' is not an engine address (unix:///var/run/docker.sock, tcp://host:2376, ssh://user@host)`);
  }
  let slots: number | undefined;
  let keyFile: string | undefined;
  const isSsh = url.protocol === 'ssh:';
  for (const [k, v] of url.searchParams) {
    if (k === 'key' && isSsh) { keyFile = v; continue; }
    if (k !== 'slots') throw new EngineAddressError(`${raw}: unknown option '${k}' (only ?slots=N${isSsh ? ' and ?key=PATH' : ''})`);
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > 1000) throw new EngineAddressError(`${raw}: slots takes a whole number from 1 to 1000 (got '${v}')`);
    slots = n;
  }
  url.search = '';
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme === 'unix') {
    const socketPath = decodeURIComponent(url.pathname);
    if (!socketPath || socketPath === '/') throw new EngineAddressError(`${raw}: a unix:// address needs a socket path`);
    return { endpoint: `unix://${socketPath}`, ...(slots ? { slots } : {}), modem: { ...NONE, socketPath } };
  }
  if (!url.hostname) throw new EngineAddressError(`${raw}: no host name`);
  if (scheme === 'tcp' || scheme === 'http' || scheme === 'https') {
    const port = url.port || (scheme === 'https' || tlsRequested(env) ? '2376' : '2375');
    const tls = scheme === 'https' || tlsRequested(env) || port === '2376';
    const endpoint = `tcp://${url.hostname}:${port}`;
    // Without DOCKER_TLS_VERIFY the Docker CLI still uses client certificates when they are there.
    const certs = tls ? certFiles(env, endpoint) : {};
    return { endpoint, ...(slots ? { slots } : {}), ...(tls ? { certDir: certDirOf(env) } : {}), modem: { ...NONE, host: url.hostname, port, protocol: tls ? 'https' : 'http', ...certs } };
  }
  if (scheme === 'ssh') {
    const home = homeOf(env);
    const alias = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // ~/.ssh/config's Host blocks, as `ssh alias` would read them; the address's own user, port and ?key= win.
    const cfg = sshConfigOf(raw, alias, home, env);
    if (cfg.proxy) throw new EngineAddressError(`${raw}: ${path.join(home, '.ssh', 'config')} sets ${cfg.proxy} for ${alias}; Taskwright's SSH transport does not go through jump hosts or proxy commands: give an engine address it reaches directly, or forward a local port to the engine (ssh -L) and use tcp://`);
    const port = url.port || String(cfg.port ?? 22);
    const username = decodeURIComponent(url.username) || cfg.user || env.USER || 'root';
    const endpoint = `ssh://${username}@${url.hostname}${url.port ? `:${url.port}` : ''}`;
    const key = keyFile ? namedKey(endpoint, keyFile, env) : undefined;
    const ssh: SshTarget = {
      endpoint, host: cfg.hostName ?? alias, port: Number(port), username,
      agent: env.SSH_AUTH_SOCK || undefined, key, defaultKeys: key ? [] : defaultKeys(env, cfg.identityFiles.length ? cfg.identityFiles : undefined),
      knownHosts: [path.join(home, '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts'], readyTimeoutMs: sshTimeoutMs(env),
    };
    // Plain HTTP whose connections the runtime opens as SSH sessions (docker-modem's own ssh transport
    // takes no key file, checks no host key and logs in anew for every request).
    return { endpoint, ...(slots ? { slots } : {}), modem: { ...NONE, host: ssh.host, port, protocol: 'http' }, ssh };
  }
  throw new EngineAddressError(`${raw}: unsupported scheme '${scheme}' (unix, tcp or ssh)`);
}

/** Several addresses; the same engine given twice is refused (its slots would be counted twice). */
export function parseEngineAddresses(texts: readonly string[], env: NodeJS.ProcessEnv = process.env): EngineAddress[] {
  const out = texts.map((t) => parseEngineAddress(t, env));
  const seen = new Set<string>();
  for (const a of out) {
    if (seen.has(a.endpoint)) throw new EngineAddressError(`engine ${a.endpoint} is given twice`);
    seen.add(a.endpoint);
  }
  return out;
}

/**
 * dockerode's options for an address: every connection key given (undefined included), so a
 * DOCKER_HOST in the environment cannot override it; an ssh:// engine's connections are SSH sessions.
 */
export function dockerOptionsOf(address: EngineAddress): Record<string, unknown> {
  return { ...address.modem, agent: address.ssh ? new SshDockerAgent(address.ssh) : undefined };
}

/**
 * The environment's engine (no `--engine`): dockerode's own reading of DOCKER_HOST, except that an
 * ssh:// DOCKER_HOST goes through Taskwright's SSH transport, as `--engine ssh://` does (known_hosts
 * checked, key files read), not docker-modem's (which checks no host key).
 */
export function environmentDockerOptions(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> | undefined {
  const host = env.DOCKER_HOST ?? '';
  return host.startsWith('ssh://') ? dockerOptionsOf(parseEngineAddress(host, env)) : undefined;
}
