import { spawn } from 'node:child_process';
import type net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Server, utils, type Connection, type ParsedKey } from 'ssh2';
import { sshKeyPair } from './sshKeys';

/**
 * An SSH server in the test process standing in for a remote Docker host: a host key made at start,
 * public-key login for one user and one key only, and an `exec` of `docker system dial-stdio` (the
 * only command it runs, what the Docker CLI and Taskwright ask for) answered by spawning the real
 * `docker system dial-stdio` against `dockerHost` and piping its stdio through the session. With
 * `path` the remote's PATH can be set (one without docker stands in for a host that lacks it).
 */
export interface SshRig {
  readonly port: number;
  /** The known_hosts line for this server (`[127.0.0.1]:port ssh-ed25519 ...`). */
  readonly knownHostsLine: string;
  /** Logins accepted, sessions (`dial-stdio` runs) started, logins and sessions refused. */
  readonly stats: { logins: number; sessions: number; refused: number };
  close(): Promise<void>;
}

export { sshKeyPair } from './sshKeys';

function parsed(text: string): ParsedKey {
  const k = utils.parseKey(text);
  if (k instanceof Error) throw k;
  return k;
}

/** `maxSessions`: sessions one connection may hold at once, as sshd's MaxSessions (unlimited when absent). */
export async function startSshRig(o: { user: string; publicKey: string; dockerHost: string; path?: string; maxSessions?: number }): Promise<SshRig> {
  const hostKey = sshKeyPair();
  const allowed = parsed(o.publicKey);
  const stats = { logins: 0, sessions: 0, refused: 0 };
  const conns = new Set<Connection>();
  const server = new Server({ hostKeys: [hostKey.privateKey] }, (client) => {
    conns.add(client);
    client.on('close', () => conns.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') { ctx.reject(['publickey']); return; }
      const pub = allowed.getPublicSSH();
      const same = ctx.key.algo === allowed.type && ctx.key.data.length === pub.length && timingSafeEqual(ctx.key.data, pub);
      if (ctx.username !== o.user || !same) { stats.refused++; ctx.reject(['publickey']); return; }
      // Without a signature the client only asks whether the key would do; with one, it must verify.
      if (ctx.signature && ctx.blob && allowed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) { stats.refused++; ctx.reject(['publickey']); return; }
      if (ctx.signature) stats.logins++;
      ctx.accept();
    });
    client.on('ready', () => {
      let open = 0;
      client.on('session', (acceptSession, rejectSession) => {
        if (o.maxSessions !== undefined && open >= o.maxSessions) { stats.refused++; rejectSession(); return; }
        open++;
        const session = acceptSession();
        session.on('close', () => { open--; });
        session.on('exec', (accept, reject, info) => {
          if (info.command !== 'docker system dial-stdio') { reject(); return; }
          stats.sessions++;
          const ch = accept();
          const proc = spawn('/bin/sh', ['-c', info.command], {
            env: { PATH: o.path ?? process.env.PATH ?? '/usr/bin:/bin', DOCKER_HOST: o.dockerHost, HOME: process.env.HOME ?? '/root' },
            stdio: ['pipe', 'pipe', 'pipe'],
          });
          ch.pipe(proc.stdin);
          proc.stdin.on('error', () => undefined);
          proc.stdout.pipe(ch, { end: false });
          proc.stderr.pipe(ch.stderr, { end: false });
          proc.on('close', (code) => {
            ch.exit(code ?? 1);
            ch.end();
          });
          ch.on('close', () => { if (proc.exitCode === null) proc.kill(); });
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const [type, blob] = hostKey.publicKey.split(' ');
  return {
    port, stats, knownHostsLine: `[127.0.0.1]:${port} ${type} ${blob}`,
    close: () => new Promise<void>((resolve) => {
      for (const c of conns) c.end();
      server.close(() => resolve());
    }),
  };
}
