import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
}

export interface ModemOptions {
  readonly socketPath: string | undefined;
  readonly host: string | undefined;
  readonly port: string | undefined;
  readonly protocol: 'http' | 'https' | 'ssh' | undefined;
  readonly username: string | undefined;
  readonly ca: Buffer | undefined;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
  readonly sshOptions: { readonly agent?: string; readonly privateKey?: Buffer } | undefined;
}

export class EngineAddressError extends Error {}

const NONE: ModemOptions = {
  socketPath: undefined, host: undefined, port: undefined, protocol: undefined, username: undefined,
  ca: undefined, cert: undefined, key: undefined, sshOptions: undefined,
};

/** Docker's own rule: DOCKER_TLS_VERIFY set to anything but empty (or 0/false) asks for TLS with verification. */
function tlsRequested(env: NodeJS.ProcessEnv): boolean {
  const v = (env.DOCKER_TLS_VERIFY ?? '').trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}

function certFiles(env: NodeJS.ProcessEnv, endpoint: string): Pick<ModemOptions, 'ca' | 'cert' | 'key'> {
  const dir = env.DOCKER_CERT_PATH || path.join(env.HOME || os.homedir(), '.docker');
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
 * or `ssh://user@host[:port]` (docker-modem's SSH transport: the key comes from the SSH agent at
 * SSH_AUTH_SOCK and the remote host needs the `docker` CLI for `docker system dial-stdio`).
 * `?slots=N` sets how many trials the engine runs at once.
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
  for (const [k, v] of url.searchParams) {
    if (k !== 'slots') throw new EngineAddressError(`${raw}: unknown option '${k}' (only ?slots=N)`);
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
    return { endpoint, ...(slots ? { slots } : {}), modem: { ...NONE, host: url.hostname, port, protocol: tls ? 'https' : 'http', ...certs } };
  }
  if (scheme === 'ssh') {
    const port = url.port || '22';
    const username = decodeURIComponent(url.username) || env.USER || 'root';
    const endpoint = `ssh://${username}@${url.hostname}${url.port ? `:${url.port}` : ''}`;
    return {
      endpoint, ...(slots ? { slots } : {}),
      modem: { ...NONE, host: url.hostname, port, protocol: 'ssh', username, sshOptions: env.SSH_AUTH_SOCK ? { agent: env.SSH_AUTH_SOCK } : {} },
    };
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
