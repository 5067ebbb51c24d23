import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRun } from '../../src/core/results/store';
import { connectEngines, runtimeFor } from '../../src/core/sandbox/connect';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { parseEngineAddress } from '../../src/core/sandbox/engines';
import { ImageCache } from '../../src/core/sandbox/image';
import { loadTask } from '../../src/core/loader/index';
import { CLI, FIRST, imageId, makeCerts, ofRun, SECOND, startSecond, STATE, tlsFront } from '../support/dockerEngines';
import { pingError, sshHome } from '../support/sshClient';
import { sshKeyPair, startSshRig, type SshRig } from '../support/sshRig';
import { harborTask } from '../support/taskFolders';

/**
 * ssh:// and tcp:// (TLS) engines reached for real: an SSH server of the test's own (test/support/
 * sshRig.ts) runs the real `docker system dial-stdio` against the second test daemon, so a pool
 * `--engine unix://first --engine ssh://tw@127.0.0.1:PORT` crosses a real SSH hop to a real engine.
 */
const USER = 'tw';
let work: string;
let home: string;
let keyFile: string;
let rig: SshRig;
let e1: DockerodeRuntime;
let e2: DockerodeRuntime;

/** A HOME under the test's folder whose ~/.ssh/known_hosts holds `lines` (see sshHome). */
function homeWith(name: string, lines: readonly string[]): string {
  return sshHome(work, name, lines);
}

/** A port on 127.0.0.1 with nothing listening (a host whose sshd is down). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-ssh-'));
  startSecond();
  const pair = sshKeyPair();
  keyFile = path.join(work, 'id_test');
  fs.writeFileSync(keyFile, pair.privateKey, { mode: 0o600 });
  fs.writeFileSync(`${keyFile}.pub`, pair.publicKey);
  rig = await startSshRig({ user: USER, publicKey: pair.publicKey, dockerHost: SECOND });
  home = homeWith('home', [rig.knownHostsLine]);
  e1 = runtimeFor(parseEngineAddress(FIRST));
  e2 = runtimeFor(parseEngineAddress(SECOND));
});

after(async () => {
  await rig.close();
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('engines over ssh:// and tcp:// with TLS (integration)', () => {
  void it('runs a pool of unix:// and ssh:// (key file) from the CLI: trials on both, verdicts right, images by content hash, nothing left', { timeout: 240_000 }, async () => {
    // Images new on every run (a token in them), so they are built on one engine and loaded onto the other over SSH.
    const dockerfile = `FROM debian:bookworm-slim\nWORKDIR /app\nRUN echo ${path.basename(work)} > /etc/task-name\n`;
    // The oracles are quiet for 3 s: a command's stream outlives the 2 s an idle kept-alive session waits.
    const good = harborTask(path.join(work, 'tasks', 'ssh-good'), { 'environment/Dockerfile': dockerfile, 'solution/solve.sh': '#!/bin/bash\nsleep 3\necho hello > /app/greeting.txt\n' });
    // The oracle writes the wrong word: a real "failed" verdict must come back over SSH too.
    const bad = harborTask(path.join(work, 'tasks', 'ssh-bad'), { 'environment/Dockerfile': dockerfile, 'solution/solve.sh': '#!/bin/bash\nsleep 3\necho goodbye > /app/greeting.txt\n' });
    const results = path.join(work, 'runs');
    const ssh = `ssh://${USER}@127.0.0.1:${rig.port}`;
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'run', good, bad, '--agent', 'oracle', '--attempts', '1', '--concurrency', '1', '--retries', '0',
      '--engine', FIRST, '--engine', `${ssh}?key=${keyFile}`, '--results', results, '--json'],
    { cwd: work, env: { ...process.env, DOCKER_HOST: '', SSH_AUTH_SOCK: '', HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    const wallSec = (Date.now() - started) / 1000;
    // A failed verdict is a result, not an error of the run.
    assert.equal(code, 0, stderr);
    const runDir = path.join(results, fs.readdirSync(results)[0]!);
    const { trials } = readRun(runDir);
    const verdicts = trials.map((t) => `${t.taskId}#${t.attempt}:${t.outcome}`).sort();
    assert.deepEqual(verdicts, ['ssh-bad#1:failed', 'ssh-good#1:passed'], stderr);
    assert.equal((JSON.parse(stdout) as { trials: unknown[] }).trials.length, 2);
    // One trial on each engine (one slot each), the SSH side through the rig, on sessions that share logins.
    assert.deepEqual([...new Set(trials.map((t) => t.engine))].sort(), [FIRST, ssh].sort(), stderr);
    assert.ok(rig.stats.logins >= 1 && rig.stats.sessions > rig.stats.logins, JSON.stringify(rig.stats));
    // Each image was built on one engine and loaded onto the other where a trial needed it: the same id on both.
    for (const d of [good, bad]) {
      if (!trials.some((t) => t.engine === ssh && t.taskId === path.basename(d))) continue;
      const { ref } = await new ImageCache(e1).ensure(await loadTask(d));
      assert.equal(imageId(FIRST, ref), imageId(SECOND, ref), ref);
    }
    const runId = path.basename(runDir);
    assert.equal(await ofRun(e1, runId), 0, 'containers left on the first engine');
    assert.equal(await ofRun(e2, runId), 0, 'containers left on the engine behind SSH');
    process.stderr.write(`ssh pool run: ${wallSec.toFixed(1)} s, rig ${JSON.stringify(rig.stats)}\n`);
  });

  void it('logs in with the key of an ssh-agent (SSH_AUTH_SOCK) when no key file is named, with --engine or DOCKER_HOST', { timeout: 60_000 }, async () => {
    const sock = path.join(work, 'agent.sock');
    const out = execFileSync('ssh-agent', ['-s', '-a', sock], { encoding: 'utf8' });
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1]);
    try {
      execFileSync('ssh-add', [keyFile], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
      const { runtime } = connectEngines([`ssh://${USER}@127.0.0.1:${rig.port}`], 1, { SSH_AUTH_SOCK: sock, HOME: home });
      await runtime.ping();
      assert.deepEqual(await runtime.listByLabel('taskwright.test=none'), []);
      // DOCKER_HOST=ssh://… without --engine goes the same way (known_hosts checked, the agent's key), not docker-modem's own SSH.
      const saved = { DOCKER_HOST: process.env.DOCKER_HOST, HOME: process.env.HOME, SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK };
      const restore = (): void => { for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; } };
      try {
        Object.assign(process.env, { DOCKER_HOST: `ssh://${USER}@127.0.0.1:${rig.port}`, HOME: home, SSH_AUTH_SOCK: sock });
        const logins = rig.stats.logins;
        await new DockerodeRuntime().ping();
        assert.equal(rig.stats.logins, logins + 1);
        process.env.HOME = homeWith('home-env-empty', []);
        const err = await new DockerodeRuntime().ping().then(() => undefined, (e: unknown) => e);
        assert.match(String(err), /host key of \[127\.0\.0\.1\]:\d+ is not in/);
      } finally {
        restore();
      }
    } finally {
      process.kill(pid);
    }
  });

  void it('spreads calls made at once over several SSH connections, 8 sessions each, and past a lower MaxSessions', { timeout: 60_000 }, async () => {
    const busy = await startSshRig({ user: USER, publicKey: fs.readFileSync(`${keyFile}.pub`, 'utf8'), dockerHost: SECOND, maxSessions: 3 });
    try {
      const rt = runtimeFor(parseEngineAddress(`ssh://${USER}@127.0.0.1:${busy.port}?key=${keyFile}`, { HOME: homeWith('home-busy', [busy.knownHostsLine]) }));
      // Twelve calls at once: the first connection takes 8 and the server refuses 5 of them; those move on.
      await Promise.all(Array.from({ length: 12 }, () => rt.ping()));
      assert.ok(busy.stats.refused >= 5 && busy.stats.logins >= 4, JSON.stringify(busy.stats));
      assert.equal(busy.stats.sessions, 12);
    } finally {
      await busy.close();
    }
  });

  void it('says clearly what is wrong: wrong key or user, no key, host down or gone, unknown or changed host key, no docker on the host', { timeout: 60_000 }, async () => {
    const at = `ssh://${USER}@127.0.0.1:${rig.port}`;
    const other = path.join(work, 'id_other');
    fs.writeFileSync(other, sshKeyPair().privateKey, { mode: 0o600 });
    const env = { HOME: home };
    assert.match(await pingError(`${at}?key=${other}`, env), /refused user tw with key .*id_other.*authorized_keys/);
    assert.match(await pingError(`ssh://root@127.0.0.1:${rig.port}?key=${keyFile}`, env), /refused user root/);
    assert.match(await pingError(at, env), /no SSH key to log in with.*SSH_AUTH_SOCK.*\?key=PATH/);
    const down = await closedPort();
    assert.match(await pingError(`ssh://${USER}@127.0.0.1:${down}?key=${keyFile}`, env), /cannot reach 127\.0\.0\.1:\d+ over SSH \(connect ECONNREFUSED/);
    assert.match(await pingError(`${at}?key=${keyFile}`, { HOME: homeWith('home-empty', []) }), /host key of \[127\.0\.0\.1\]:\d+ is not in .*known_hosts.*ssh -p \d+ tw@127\.0\.0\.1/);
    const impostor = await startSshRig({ user: USER, publicKey: sshKeyPair().publicKey, dockerHost: SECOND });
    try {
      // known_hosts lists the impostor's address with the real rig's key: the key "changed".
      const changed = homeWith('home-changed', [rig.knownHostsLine.replace(`]:${rig.port} `, `]:${impostor.port} `)]);
      assert.match(await pingError(`ssh://${USER}@127.0.0.1:${impostor.port}?key=${keyFile}`, { HOME: changed }), /does not match .*refusing to connect.*ssh-keygen -R/);
      assert.equal(impostor.stats.logins, 0, 'logged in to a host whose key is not the known one');
    } finally {
      await impostor.close();
    }
    // A host that goes away after answering: the next call fails at once, on the kept-alive session too.
    const gone = await startSshRig({ user: USER, publicKey: fs.readFileSync(`${keyFile}.pub`, 'utf8'), dockerHost: SECOND });
    const goneRt = runtimeFor(parseEngineAddress(`ssh://${USER}@127.0.0.1:${gone.port}?key=${keyFile}`, { HOME: homeWith('home-gone', [gone.knownHostsLine]) }));
    await goneRt.ping();
    await gone.close();
    const t0 = Date.now();
    const goneErr = await goneRt.ping().then(() => undefined, (e: unknown) => e);
    assert.ok(goneErr instanceof Error && /unreachable.*(connection was lost|cannot reach 127\.0\.0\.1:\d+ over SSH)/.test(goneErr.message), String(goneErr));
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    const pair = sshKeyPair();
    fs.writeFileSync(path.join(work, 'id_nodocker'), pair.privateKey, { mode: 0o600 });
    const nodocker = await startSshRig({ user: USER, publicKey: pair.publicKey, dockerHost: SECOND, path: '/nonexistent' });
    try {
      const msg = await pingError(`ssh://${USER}@127.0.0.1:${nodocker.port}?key=${path.join(work, 'id_nodocker')}`, { HOME: homeWith('home-nodocker', [nodocker.knownHostsLine]) });
      assert.match(msg, /`docker system dial-stdio` failed on the remote host \(exit 127: .*docker.*not found\).*docker CLI on the PATH/);
    } finally {
      await nodocker.close();
    }
  });

  void it('tcp:// with TLS: a wrong CA or a client certificate the engine does not trust fails clearly', { timeout: 60_000 }, async () => {
    const good = makeCerts(path.join(work, 'certs'));
    const front = await tlsFront(good, path.join(STATE, 'docker.sock'));
    try {
      const at = `tcp://localhost:${front.port}`;
      await runtimeFor(parseEngineAddress(at, { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: good })).ping();
      // Another CA entirely: our ca.pem does not vouch for the engine, and the engine rejects our certificate.
      const stranger = makeCerts(path.join(work, 'certs-other'), 'another-ca');
      assert.match(await pingError(at, { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: stranger }), /TLS: the engine's certificate is not signed by .*certs-other\/ca\.pem/);
      // The right CA, a client certificate from the other one: the engine refuses it.
      const mixed = path.join(work, 'certs-mixed');
      fs.mkdirSync(mixed);
      fs.copyFileSync(path.join(good, 'ca.pem'), path.join(mixed, 'ca.pem'));
      for (const f of ['cert.pem', 'key.pem']) fs.copyFileSync(path.join(stranger, f), path.join(mixed, f));
      assert.match(await pingError(at, { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: mixed }), /TLS: the engine .*client certificate .*certs-mixed\/cert\.pem.*signed by a CA the engine trusts/);
    } finally {
      front.close();
    }
  });
});
