import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Debian's OpenSSH server (`/usr/sbin/sshd -D -e`) standing in for a remote Docker host: started as
 * the current user on a free port of 127.0.0.1 with a config, host key, authorized_keys and pid file
 * of its own in a temp folder, public-key login only, and `SetEnv DOCKER_HOST=<dockerHost>` so the
 * real `docker system dial-stdio` a session runs reaches that engine. scripts/sshd.sh installs it.
 */
export interface OpensshRig {
  readonly port: number;
  /** The known_hosts line for this server (`[127.0.0.1]:port ssh-ed25519 AAAA…`). */
  readonly knownHostsLine: string;
  /** The user sshd runs as, the only one it can log in. */
  readonly user: string;
  readonly maxSessions: number | undefined;
  /** Logins sshd accepted so far (its "Accepted publickey" log lines). */
  logins(): number;
  /** What sshd has logged (stderr, `-e`). */
  log(): string;
  close(): Promise<void>;
}

export const SSHD = '/usr/sbin/sshd';

/** `ssh-keygen -t ed25519` with no passphrase into `file`; returns the public line (`ssh-ed25519 AAAA… comment`). */
export function keygen(file: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'taskwright-test', '-f', file], { stdio: 'ignore' });
  return fs.readFileSync(`${file}.pub`, 'utf8').trim();
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Resolves once the port answers with an OpenSSH banner; false if nothing does (yet). */
function banner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.setTimeout(1000, () => { s.destroy(); resolve(false); });
    s.once('data', (d: Buffer) => { s.destroy(); resolve(d.toString().startsWith('SSH-2.0-OpenSSH')); });
    s.once('error', () => resolve(false));
  });
}

/** sshd's per-connection children (they setsid, so a signal to the listener alone leaves them). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(e));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

export async function startOpensshRig(o: { publicKey: string; dockerHost: string; maxSessions?: number }): Promise<OpensshRig> {
  if (!fs.existsSync(SSHD)) throw new Error(`${SSHD} is missing: install OpenSSH's server (apt-get install openssh-server, or bash scripts/sshd.sh)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-sshd-'));
  // Privilege separation: a root sshd needs its empty chroot folder (the package's service makes it at boot).
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  const [type, blob] = keygen(hostKey).split(' ');
  fs.writeFileSync(path.join(dir, 'authorized_keys'), `${o.publicKey.trim()}\n`);
  let text = '';
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    const config = path.join(dir, 'sshd_config');
    fs.writeFileSync(config, [
      `ListenAddress 127.0.0.1:${port}`, `HostKey ${hostKey}`, `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`, 'PubkeyAuthentication yes', 'PasswordAuthentication no',
      'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no', 'PermitRootLogin prohibit-password',
      `SetEnv DOCKER_HOST=${o.dockerHost}`, ...(o.maxSessions !== undefined ? [`MaxSessions ${o.maxSessions}`] : []), '',
    ].join('\n'));
    const proc: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    text = '';
    proc.stderr?.on('data', (d: Buffer) => { text += d.toString(); });
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    let up = false;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && proc.exitCode === null && !up;) {
      up = await banner(port);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    if (up) {
      return {
        port, user: os.userInfo().username, maxSessions: o.maxSessions, knownHostsLine: `[127.0.0.1]:${port} ${type} ${blob}`,
        logins: () => text.match(/Accepted publickey for /g)?.length ?? 0,
        log: () => text,
        close: async () => {
          for (const child of childrenOf(proc.pid!)) { try { process.kill(child, 'SIGTERM'); } catch { /* gone */ } }
          if (proc.exitCode === null) proc.kill('SIGTERM');
          await exited;
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    if (proc.exitCode === null) proc.kill('SIGKILL');
    await exited;
    // Another process took the port between our probe and sshd's bind: try another.
    if (!/Address already in use/.test(text) || tries >= 3) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`${SSHD} did not answer on 127.0.0.1:${port}: ${text.trim() || `exit ${proc.exitCode}`}`);
    }
  }
}
