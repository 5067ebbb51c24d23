import http from 'node:http';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { Client, type AuthMethod, type ClientChannel, type ParsedKey } from 'ssh2';
import { checkHostKey, knownHostName } from './knownHosts';

/** A private key file read for an ssh:// engine. */
export interface SshKey {
  readonly file: string;
  readonly key: ParsedKey;
}

/** Everything needed to reach an engine over SSH, read once when the address is parsed. */
export interface SshTarget {
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** SSH_AUTH_SOCK, when an agent is there. */
  readonly agent: string | undefined;
  /** The key file named with `?key=`: tried first, and then the default identity files are not. */
  readonly key: SshKey | undefined;
  /** ~/.ssh/id_ed25519, id_ecdsa, id_rsa: those that exist and need no passphrase (none when `key` is given). */
  readonly defaultKeys: readonly SshKey[];
  /** The user's and the system's known_hosts files. */
  readonly knownHosts: readonly string[];
  readonly readyTimeoutMs: number;
}

/**
 * An SSH failure reaching an engine (login refused, host key unknown or changed, no docker on the
 * host). `code` follows Node's socket codes where there is one, so the runtime reads it as an
 * unreachable engine.
 */
export class SshTransportError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

/** Sessions one SSH connection carries at once: OpenSSH's sshd allows 10 (MaxSessions). */
const MAX_CHANNELS = 8;
/** An idle connection is closed after this; it never keeps the process alive meanwhile. */
const IDLE_MS = 3000;
const DIAL = 'docker system dial-stdio';
/** How long a kept-alive HTTP connection (one session) waits for the next call. */
const KEEP_MS = 2000;

interface Conn {
  readonly client: Client;
  readonly sock: net.Socket;
  readonly ready: Promise<void>;
  open: number;
  /** Sessions in use (not waiting idle in the agent's free list): the socket is ref'd while any is. */
  held: number;
  /** The server refused it one more session: no new ones go there. */
  full?: boolean;
  broken?: Error;
  idle?: NodeJS.Timeout;
}

/**
 * One HTTP connection to the engine: a session running `docker system dial-stdio` on the host, as
 * the Docker CLI's ssh:// helper does. The end of the session's output is held back until the
 * session closes, so that a remote command that failed before answering (no docker there) ends the
 * request with what it printed instead of a bare "socket hang up".
 */
class DialStream extends Duplex {
  private answered = false;
  private stderr = '';
  private exit: number | null | undefined;
  private held = true;
  private idleMs = 0;
  private idleTimer?: NodeJS.Timeout;

  constructor(private readonly ch: ClientChannel, conn: Conn, private readonly hold: (delta: 1 | -1) => void, onClose: () => void) {
    super();
    ch.on('data', (d: Buffer) => {
      this.answered = true;
      this.touch();
      if (!this.push(d)) ch.pause();
    });
    ch.stderr.on('data', (d: Buffer) => { if (this.stderr.length < 2000) this.stderr += d.toString(); });
    ch.on('exit', (code: number | null) => { this.exit = code; });
    ch.on('error', (e: Error) => this.destroy(e));
    ch.on('close', () => {
      clearTimeout(this.idleTimer);
      if (this.held) { this.held = false; hold(-1); }
      onClose();
      if (conn.broken) { this.destroy(conn.broken); return; }
      const said = this.stderr.trim().split('\n').slice(-3).join(' ').trim();
      if (!this.answered && ((this.exit !== undefined && this.exit !== 0) || said)) {
        this.destroy(new SshTransportError(`\`${DIAL}\` failed on the remote host (${this.exit === undefined || this.exit === null ? 'no exit status' : `exit ${this.exit}`}${said ? `: ${said}` : ''}); the host needs the docker CLI on the PATH of a non-interactive SSH session, and a running Docker Engine`, 'ESSHDIAL'));
        return;
      }
      this.push(null);
    });
  }

  /** Activity re-arms the idle timer (node's HTTP agent drops a kept-alive session that times out). */
  private touch(): void {
    clearTimeout(this.idleTimer);
    if (!this.idleMs) return;
    this.idleTimer = setTimeout(() => this.emit('timeout'), this.idleMs);
    this.idleTimer.unref();
  }

  override _read(): void {
    this.ch.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.touch();
    if (this.ch.write(chunk)) cb();
    else this.ch.once('drain', () => cb());
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.ch.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.ch.close();
    cb(err);
  }

  // What node's HTTP client and agent call on a socket. A kept-alive session waiting in the agent is
  // unref'd: the SSH connection keeps the process alive only while some session is in use.
  setTimeout(ms: number, cb?: () => void): this {
    this.idleMs = ms;
    // As net.Socket: 0 with the callback takes it off again (node's HTTP client does so per response).
    if (cb && ms === 0) this.removeListener('timeout', cb);
    else if (cb) this.once('timeout', cb);
    this.touch();
    return this;
  }
  setNoDelay(): this { return this; }
  setKeepAlive(): this { return this; }
  ref(): this {
    if (!this.held && !this.destroyed) { this.held = true; this.hold(1); }
    return this;
  }
  unref(): this {
    if (this.held) { this.held = false; this.hold(-1); }
    return this;
  }
}

function hostKeyProblem(t: SshTarget, reason: 'unknown' | 'changed' | 'revoked'): string {
  const name = knownHostName(t.host, t.port);
  const files = t.knownHosts.join(' or ');
  if (reason === 'unknown') {
    return `the host key of ${name} is not in ${files}; check it and accept it once with \`ssh${t.port === 22 ? '' : ` -p ${t.port}`} ${t.username}@${t.host}\` (as the Docker CLI, which goes through ssh, needs too)`;
  }
  if (reason === 'revoked') return `the host key of ${name} is marked @revoked in ${files}; refusing to connect`;
  return `the host key of ${name} does not match ${files} (the host changed its key, or another machine answers in its place); refusing to connect. If the host was reinstalled, remove its old key with \`ssh-keygen -R '${name}'\``;
}

/**
 * http.Agent for dockerode (docker-modem) whose connections are SSH sessions to one host. Sessions
 * share SSH connections (up to MAX_CHANNELS each), so a trial's calls do not each pay a handshake.
 * The login follows OpenSSH: the host key must be in known_hosts, then `?key=`, the agent and the
 * default identity files are tried.
 */
export class SshDockerAgent extends http.Agent {
  private readonly conns: Conn[] = [];

  constructor(private readonly target: SshTarget) {
    // Kept-alive HTTP connections: each is a `dial-stdio` process on the host, worth reusing (a new
    // one costs a session and a docker CLI start, ~0.1-0.2 s). Idle ones go after KEEP_MS.
    super({ keepAlive: true, timeout: KEEP_MS, maxFreeSockets: MAX_CHANNELS });
  }

  private methods(): AuthMethod[] {
    const t = this.target;
    const pk = (k: SshKey): AuthMethod => ({ type: 'publickey', username: t.username, key: k.key } as AuthMethod);
    // OpenSSH offers the agent's keys before identity files; a key named in the address comes first.
    return [
      ...(t.key ? [pk(t.key)] : []),
      ...(t.agent ? [{ type: 'agent', username: t.username, agent: t.agent } as AuthMethod] : []),
      ...t.defaultKeys.map(pk),
    ];
  }

  private tried(): string {
    const t = this.target;
    const keys = (list: readonly SshKey[]): string[] => list.map((k) => `key ${k.file}`);
    return [...keys(t.key ? [t.key] : []), ...(t.agent ? [`the agent at SSH_AUTH_SOCK=${t.agent}`] : []), ...keys(t.defaultKeys)].join(', ');
  }

  private connect(): Conn {
    const t = this.target;
    const methods = this.methods();
    const sock = net.connect({ host: t.host, port: t.port });
    const client = new Client();
    let hostProblem: string | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', (e: Error & { level?: string; code?: string }) => {
        if (hostProblem) reject(new SshTransportError(hostProblem, 'ESSHHOSTKEY'));
        else if (e.level === 'client-authentication') reject(new SshTransportError(`the SSH server refused user ${t.username} with ${this.tried()}; is the public key in ~${t.username}/.ssh/authorized_keys on ${t.host}?`, 'ESSHAUTH'));
        else if (e.level === 'client-timeout') reject(new SshTransportError(`no SSH handshake within ${Math.round(t.readyTimeoutMs / 1000)} s`, 'ETIMEDOUT'));
        else reject(new SshTransportError(`cannot reach ${t.host}:${t.port} over SSH (${e.message})`, e.code ?? 'ECONNRESET'));
      });
      client.once('close', () => reject(new SshTransportError(`the SSH connection closed before the login`, 'ECONNRESET')));
    });
    const conn: Conn = { client, sock, ready, open: 0, held: 0 };
    ready.catch(() => undefined);
    const lost = (e: Error): void => {
      conn.broken ??= new SshTransportError(`the SSH connection was lost (${e.message})`, 'ECONNRESET');
      this.forget(conn);
    };
    client.on('error', lost);
    client.on('close', () => lost(new Error('closed')));
    client.connect({
      // No SSH keepalives: their timer would hold an idle connection's process open; a dead host is
      // found by the engine calls' own deadlines and the pool's pings.
      sock, username: t.username, readyTimeout: t.readyTimeoutMs, keepaliveInterval: 0,
      authHandler: methods,
      hostVerifier: (key: Buffer): boolean => {
        const v = checkHostKey(t.knownHosts, t.host, t.port, key);
        if (!v.ok) hostProblem = hostKeyProblem(t, v.reason);
        return v.ok;
      },
    });
    this.conns.push(conn);
    return conn;
  }

  private forget(conn: Conn): void {
    clearTimeout(conn.idle);
    const i = this.conns.indexOf(conn);
    if (i >= 0) this.conns.splice(i, 1);
  }

  private hold(conn: Conn, delta: 1 | -1): void {
    conn.held += delta;
    if (conn.held > 0) conn.sock.ref();
    else conn.sock.unref();
  }

  private release(conn: Conn): void {
    conn.open--;
    if (conn.open > 0) return;
    // Idle: it must not keep a finished CLI run alive, and is closed unless a call comes soon.
    clearTimeout(conn.idle);
    conn.idle = setTimeout(() => { this.forget(conn); conn.client.end(); }, IDLE_MS);
    conn.idle.unref();
  }

  private async session(attempt = 0): Promise<DialStream> {
    if (!this.methods().length) {
      throw new SshTransportError(`no SSH key to log in with: start an ssh-agent holding the key (SSH_AUTH_SOCK), or name a key file with ?key=PATH`, 'ESSHAUTH');
    }
    const conn = this.conns.find((c) => !c.broken && !c.full && c.open < MAX_CHANNELS) ?? this.connect();
    conn.open++;
    clearTimeout(conn.idle);
    this.hold(conn, 1);
    try {
      await conn.ready;
      const ch = await new Promise<ClientChannel>((resolve, reject) => {
        conn.client.exec(DIAL, (err, stream) => (err ? reject(err) : resolve(stream)));
      });
      // The hold taken above passes to the session.
      return new DialStream(ch, conn, (d) => this.hold(conn, d), () => this.release(conn));
    } catch (e) {
      this.hold(conn, -1);
      this.release(conn);
      if (e instanceof SshTransportError) { this.forget(conn); throw e; }
      // The server refused one more session on this connection (its MaxSessions, if lower than ours):
      // no more go there, the call takes another connection (a few times: others may be filling it too).
      if (e instanceof Error && /channel open failure/i.test(e.message) && attempt < 3 && !conn.broken) {
        conn.full = true;
        return this.session(attempt + 1);
      }
      throw new SshTransportError(`the SSH server refused to run \`${DIAL}\` (${e instanceof Error ? e.message : String(e)})`, 'ESSHDIAL');
    }
  }

  override createConnection(_o: http.ClientRequestArgs, cb?: (err: Error | null, stream: Duplex) => void): undefined {
    this.session().then((s) => cb?.(null, s), (e: unknown) => cb?.(e instanceof Error ? e : new Error(String(e)), undefined as unknown as Duplex));
    return undefined;
  }
}
