import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRun } from '../../src/core/results/store';
import { runtimeFor } from '../../src/core/sandbox/connect';
import { parseEngineAddress } from '../../src/core/sandbox/engines';
import { ImageCache } from '../../src/core/sandbox/image';
import { LABEL_RUN } from '../../src/core/sandbox/runtime';
import { loadTask } from '../../src/core/loader/index';
import { CLI, FIRST, imageId, ofRun, SECOND, startSecond } from '../support/dockerEngines';
import { keygen, startOpensshRig, type OpensshRig } from '../support/opensshRig';
import { pingError, sshHome } from '../support/sshClient';
import { harborTask } from '../support/taskFolders';

/**
 * ssh:// engines through Debian's real OpenSSH server (test/support/opensshRig.ts; installed by
 * scripts/sshd.sh): sshd runs the real `docker system dial-stdio` against the second test daemon, as
 * a remote Docker host would. engine-ssh.test.ts covers the same transport against ssh2's own server.
 */
let work: string;
let keyFile: string;
let rig: OpensshRig;

/** A HOME under the test's folder (see sshHome). */
function homeWith(name: string, lines: readonly string[], config?: string): string {
  return sshHome(work, name, lines, config);
}

/** Images labelled with the run on an engine (`run` labels none; nothing of it may stay). */
function imagesOfRun(host: string, runId: string): string {
  return execFileSync('docker', ['-H', host, 'images', '-q', '--filter', `label=${LABEL_RUN}=${runId}`], { encoding: 'utf8' }).trim();
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-openssh-'));
  startSecond();
  keyFile = path.join(work, 'id_test');
  rig = await startOpensshRig({ publicKey: keygen(keyFile), dockerHost: SECOND });
});

after(async () => {
  await rig?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

void describe('engines over ssh:// through OpenSSH sshd (integration)', () => {
  void it('runs a pool of unix:// and ssh:// (key file) from the CLI through sshd: a trial on each, verdicts right, the same image id, nothing left', { timeout: 240_000 }, async () => {
    const dockerfile = `FROM debian:bookworm-slim\nWORKDIR /app\nRUN echo ${path.basename(work)} > /etc/task-name\n`;
    const good = harborTask(path.join(work, 'tasks', 'openssh-good'), { 'environment/Dockerfile': dockerfile, 'solution/solve.sh': '#!/bin/bash\nsleep 3\necho hello > /app/greeting.txt\n' });
    const bad = harborTask(path.join(work, 'tasks', 'openssh-bad'), { 'environment/Dockerfile': dockerfile, 'solution/solve.sh': '#!/bin/bash\nsleep 3\necho goodbye > /app/greeting.txt\n' });
    const results = path.join(work, 'runs');
    const ssh = `ssh://${rig.user}@127.0.0.1:${rig.port}`;
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'run', good, bad, '--agent', 'oracle', '--attempts', '1', '--concurrency', '1', '--retries', '0',
      '--engine', FIRST, '--engine', `${ssh}?key=${keyFile}`, '--results', results, '--json'],
    { cwd: work, env: { ...process.env, DOCKER_HOST: '', SSH_AUTH_SOCK: '', HOME: homeWith('home', [rig.knownHostsLine]) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0, `${stderr}\nsshd: ${rig.log()}`);
    const runDir = path.join(results, fs.readdirSync(results)[0]!);
    const { trials } = readRun(runDir);
    assert.deepEqual(trials.map((t) => `${t.taskId}:${t.outcome}`).sort(), ['openssh-bad:failed', 'openssh-good:passed'], stderr);
    assert.deepEqual(trials.map((t) => t.engine).sort(), [FIRST, ssh].sort(), stderr);
    assert.ok(rig.logins() >= 1, rig.log());
    // The image of the trial on the ssh engine was loaded there through sshd: the same id as on the first.
    const remote = trials.find((t) => t.engine === ssh)!;
    const { ref } = await new ImageCache(runtimeFor(parseEngineAddress(FIRST))).ensure(await loadTask(remote.taskId === 'openssh-good' ? good : bad));
    assert.equal(imageId(SECOND, ref), imageId(FIRST, ref), ref);
    const runId = path.basename(runDir);
    for (const host of [FIRST, SECOND]) {
      assert.equal(await ofRun(runtimeFor(parseEngineAddress(host)), runId), 0, `containers of the run left on ${host}`);
      assert.equal(imagesOfRun(host, runId), '', `images of the run left on ${host}`);
    }
    process.stderr.write(`openssh pool run: ${((Date.now() - started) / 1000).toFixed(1)} s, ${rig.logins()} sshd logins\n`);
  });

  void it('reads ~/.ssh/config for ssh://twbox (HostName, Port, User, IdentityFile): pings and lists through sshd', { timeout: 60_000 }, async () => {
    const config = `Host twbox\n  HostName 127.0.0.1\n  Port ${rig.port}\n  User ${rig.user}\n  IdentityFile ${keyFile}\n`;
    const address = parseEngineAddress('ssh://twbox', { HOME: homeWith('home-config', [rig.knownHostsLine], config), SSH_AUTH_SOCK: '' });
    assert.deepEqual([address.ssh?.host, address.ssh?.port, address.ssh?.username, address.ssh?.defaultKeys.map((k) => k.file)], ['127.0.0.1', rig.port, rig.user, [keyFile]]);
    const rt = runtimeFor(address);
    const logins = rig.logins();
    let t = Date.now();
    await rt.ping();
    const firstMs = Date.now() - t;
    assert.deepEqual(await rt.listByLabel('taskwright.test=none'), []);
    // Calls on the kept-alive session, then one on a new session of the same connection (past the 2 s keep-alive).
    t = Date.now();
    for (let i = 0; i < 10; i++) await rt.ping();
    const keptMs = (Date.now() - t) / 10;
    await new Promise((r) => setTimeout(r, 2500));
    t = Date.now();
    await rt.ping();
    const sessionMs = Date.now() - t;
    assert.equal(rig.logins(), logins + 1, rig.log());
    process.stderr.write(`openssh: first call (connect, login, session) ${firstMs} ms, new session ${sessionMs} ms, kept-alive call ${keptMs.toFixed(1)} ms\n`);
  });

  void it('spreads twelve calls at once past a MaxSessions 3 sshd over more connections', { timeout: 60_000 }, async () => {
    const busy = await startOpensshRig({ publicKey: fs.readFileSync(`${keyFile}.pub`, 'utf8'), dockerHost: SECOND, maxSessions: 3 });
    try {
      const rt = runtimeFor(parseEngineAddress(`ssh://${busy.user}@127.0.0.1:${busy.port}?key=${keyFile}`, { HOME: homeWith('home-busy', [busy.knownHostsLine]) }));
      await Promise.all(Array.from({ length: 12 }, () => rt.ping()));
      // sshd refused the sessions past 3 on a connection ("no more sessions"); those calls moved to other connections.
      assert.ok((busy.log().match(/no more sessions/g)?.length ?? 0) >= 5 && busy.logins() >= 4, busy.log());
    } finally {
      await busy.close();
    }
  });

  void it('says clearly what is wrong: an unknown or changed host key, a key sshd does not accept', { timeout: 60_000 }, async () => {
    const at = `ssh://${rig.user}@127.0.0.1:${rig.port}`;
    const user = rig.user.replace(/[.$]/g, '\\$&');
    assert.match(await pingError(`${at}?key=${keyFile}`, { HOME: homeWith('home-empty', []) }), new RegExp(`host key of \\[127\\.0\\.0\\.1\\]:\\d+ is not in .*known_hosts.*ssh -p ${rig.port} ${user}@127\\.0\\.0\\.1`));
    // known_hosts lists this address with another ed25519 key: the key "changed".
    const [type, blob] = keygen(path.join(work, 'host_other')).split(' ');
    const changed = homeWith('home-changed', [`[127.0.0.1]:${rig.port} ${type} ${blob}`]);
    assert.match(await pingError(`${at}?key=${keyFile}`, { HOME: changed }), /does not match .*refusing to connect.*ssh-keygen -R/);
    const other = path.join(work, 'id_other');
    keygen(other);
    const logins = rig.logins();
    assert.match(await pingError(`${at}?key=${other}`, { HOME: homeWith('home-wrong-key', [rig.knownHostsLine]) }), new RegExp(`refused user ${user} with key .*id_other.*authorized_keys`));
    assert.equal(rig.logins(), logins, rig.log());
  });
});
