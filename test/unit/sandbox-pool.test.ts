import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { sshKeyPair } from '../support/sshKeys';
import { parseCommandArgs, UsageError, type CliIo } from '../../src/cli/command';
import { runCommand } from '../../src/cli/commands/run';
import { validateCommand } from '../../src/cli/commands/validate';
import { enginesOf } from '../../src/cli/engines';
import { NopAgent } from '../../src/core/agents/nop';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { EngineAddressError, parseEngineAddress, parseEngineAddresses } from '../../src/core/sandbox/engines';
import { EnginePool, type MemberRuntime } from '../../src/core/sandbox/pool';
import { TrialRunner } from '../../src/core/sandbox/runner';
import {
  InfraError, LABEL_TRIAL, type BuildSpec, type ContainerSpec, type ContainerState, type ContainerSummary, type ExecOutcome, type ExecRequest, type OomWatch,
} from '../../src/core/sandbox/runtime';
import type { FileChange } from '../../src/core/sandbox/snapshot';
import { packTar } from '../../src/core/sandbox/tar';
import { tempDir } from '../support/tempDir';

const fixture = path.resolve(__dirname, '../../../test/fixtures/sandbox/harbor-valid');

/** An engine double that can die (`alive = false`: every call, the ping too, fails as a dead daemon's would). */
class FakeEngine implements MemberRuntime {
  alive = true;
  readonly images = new Set<string>();
  readonly containers = new Set<string>();
  readonly copiedIn: string[] = [];
  /** Dies during the first verifier exec it sees. */
  dieOnVerifier = false;
  private n = 0;
  private readonly verified = new Set<string>();
  constructor(readonly endpoint: string) {}
  private up(): void {
    if (!this.alive) throw new InfraError('engine-unreachable', `${this.endpoint} is unreachable (connect ECONNREFUSED)`);
  }
  ping(): Promise<void> { return Promise.resolve().then(() => this.up()); }
  async imageExists(ref: string): Promise<boolean> { this.up(); return this.images.has(ref); }
  async buildImage(spec: BuildSpec): Promise<void> { this.up(); this.images.add(spec.tag); }
  async start(spec: ContainerSpec): Promise<string> {
    this.up();
    if (!this.images.has(spec.image)) throw new InfraError('image-missing', `no ${spec.image} on ${this.endpoint}`, false);
    const id = `${this.endpoint}-c${++this.n}`;
    this.containers.add(id);
    return id;
  }
  async exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
    this.up();
    if (req.cmd.includes('/tests/test.sh')) {
      if (this.dieOnVerifier) { this.alive = false; this.up(); }
      this.verified.add(id);
    }
    return { exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 };
  }
  async putArchive(): Promise<void> { this.up(); }
  async getArchive(id: string, p: string): Promise<Readable | undefined> {
    this.up();
    if (p !== '/logs/verifier' || !this.verified.has(id)) return undefined;
    return Readable.from([packTar([{ name: 'verifier', mode: 0o755, type: 'dir' }, { name: 'verifier/reward.txt', mode: 0o644, type: 'file', data: Buffer.from('1') }])]);
  }
  async remove(id: string): Promise<void> { this.up(); this.containers.delete(id); }
  async listByLabel(): Promise<ContainerSummary[]> { this.up(); return [...this.containers].map((id) => ({ id, labels: {}, state: 'running' })); }
  async inspect(): Promise<ContainerState | undefined> { this.up(); return { running: true, oomKilled: false, exitCode: null }; }
  async watchOom(): Promise<OomWatch> { this.up(); return { stop: () => Promise.resolve(0) }; }
  async diff(): Promise<FileChange[]> { this.up(); return []; }
  async commit(): Promise<string> { this.up(); const id = `sha256:snap${++this.n}`; this.images.add(id); return id; }
  async removeImage(ref: string): Promise<void> { this.up(); this.images.delete(ref); }
  async copyImageTo(target: MemberRuntime, ref: string): Promise<void> {
    this.up();
    const t = target as FakeEngine;
    t.up();
    await new Promise((r) => setTimeout(r, 5));
    t.images.add(ref);
    t.copiedIn.push(ref);
  }
}

function spec(trial: string, image = 'img:1'): ContainerSpec {
  return { image, env: {}, labels: { [LABEL_TRIAL]: trial }, limits: { nanoCpus: 1e9, memoryBytes: 1 << 28, pidsLimit: 64 }, networkMode: 'none' };
}

function store(): RunStore {
  const dir = tempDir('tw-pool-');
  return RunStore.create(dir, { id: newRunId('pool'), kind: 'run', tasks: [], concurrency: 2, retries: 0, startedAt: 'now', pid: process.pid });
}

void describe('engine addresses', () => {
  void it('reads unix, tcp, tcp with TLS, ssh and ?slots, and sets every connection key', () => {
    const u = parseEngineAddress('unix:///run/tw/docker.sock?slots=3', {});
    assert.equal(u.endpoint, 'unix:///run/tw/docker.sock');
    assert.equal(u.slots, 3);
    assert.equal(u.modem.socketPath, '/run/tw/docker.sock');
    assert.ok('host' in u.modem && u.modem.host === undefined, 'a DOCKER_HOST default must not leak in');
    assert.equal(parseEngineAddress('/var/run/docker.sock', {}).endpoint, 'unix:///var/run/docker.sock');
    const plain = parseEngineAddress('tcp://host3:2375', {});
    assert.deepEqual([plain.endpoint, plain.modem.protocol, plain.modem.port], ['tcp://host3:2375', 'http', '2375']);
    const certs = tempDir('tw-certs-');
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certs, f), f);
    const tls = parseEngineAddress('tcp://host3', { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs });
    assert.deepEqual([tls.endpoint, tls.modem.protocol, tls.modem.ca?.toString(), tls.modem.key?.toString()], ['tcp://host3:2376', 'https', 'ca.pem', 'key.pem']);
    // Port 2376 is Docker's TLS port: TLS even without DOCKER_TLS_VERIFY.
    assert.equal(parseEngineAddress('tcp://host3:2376', { DOCKER_CERT_PATH: certs }).modem.protocol, 'https');
    assert.throws(() => parseEngineAddress('tcp://host3:2376', { DOCKER_CERT_PATH: path.join(certs, 'none') }), /ca\.pem/);
    const home = tempDir('tw-home-');
    const ssh = parseEngineAddress('ssh://deploy@host2:2222', { SSH_AUTH_SOCK: '/tmp/agent.sock', HOME: home });
    assert.deepEqual([ssh.endpoint, ssh.modem.protocol, ssh.modem.host, ssh.modem.port], ['ssh://deploy@host2:2222', 'http', 'host2', '2222']);
    assert.deepEqual([ssh.ssh?.username, ssh.ssh?.port, ssh.ssh?.agent, ssh.ssh?.key, ssh.ssh?.defaultKeys], ['deploy', 2222, '/tmp/agent.sock', undefined, []]);
    assert.equal(ssh.ssh?.knownHosts[0], path.join(home, '.ssh', 'known_hosts'));
    // ?key= names a private key file (read now: a wrong path is a usage error, not a failed trial).
    const { privateKey: pem } = sshKeyPair();
    fs.writeFileSync(path.join(home, 'deploy_key'), pem);
    const keyed = parseEngineAddress('ssh://deploy@host2?key=~/deploy_key&slots=2', { HOME: home });
    assert.deepEqual([keyed.endpoint, keyed.slots, keyed.ssh?.key?.file, keyed.ssh?.port], ['ssh://deploy@host2', 2, path.join(home, 'deploy_key'), 22]);
    assert.throws(() => parseEngineAddress('ssh://deploy@host2?key=/nonexistent/key', {}), /key file \/nonexistent\/key cannot be read/);
    fs.writeFileSync(path.join(home, 'locked_key'), sshKeyPair('pw').privateKey);
    assert.throws(() => parseEngineAddress(`ssh://deploy@host2?key=${path.join(home, 'locked_key')}`, {}), /passphrase.*ssh-add/);
    // With no key named, the default identity files that need no passphrase are tried (after the agent).
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), pem);
    fs.copyFileSync(path.join(home, 'locked_key'), path.join(home, '.ssh', 'id_rsa'));
    assert.deepEqual(parseEngineAddress('ssh://deploy@host2', { HOME: home }).ssh?.defaultKeys.map((k) => path.basename(k.file)), ['id_ed25519']);
    assert.throws(() => parseEngineAddress('tcp://h:2375?key=/k', {}), /only \?slots=N\)/);
  });

  void it('refuses what it cannot use', () => {
    for (const bad of ['', 'ftp://x', 'unix://', 'tcp://h:1?slots=0', 'tcp://h:1?slots=2.5', 'tcp://h:1?cpus=2']) {
      assert.throws(() => parseEngineAddress(bad, {}), EngineAddressError, bad);
    }
    assert.throws(() => parseEngineAddresses(['unix:///a.sock', 'unix:///a.sock?slots=2'], {}), /given twice/);
  });
});

void describe('--engine on the command line', () => {
  const io: CliIo = { out: () => undefined, err: () => undefined, cwd: process.cwd(), env: {}, signal: new AbortController().signal };
  void it('is repeatable on run and validate: several make a pool whose concurrency is the sum of its slots', () => {
    for (const cmd of [runCommand, validateCommand]) {
      const args = parseCommandArgs(cmd, ['t', '--engine', 'unix:///a.sock', '--engine', 'unix:///b.sock?slots=3']);
      const e = enginesOf(args, io, 2);
      assert.ok(e.pool, cmd.name);
      assert.equal(e.concurrency, 5);
      assert.deepEqual(e.pool.stats().map((x) => [x.endpoint, x.slots]), [['unix:///a.sock', 2], ['unix:///b.sock', 3]]);
      e.pool.close();
    }
    const one = enginesOf(parseCommandArgs(runCommand, ['t', '--engine', 'unix:///a.sock']), io, 2);
    assert.equal(one.pool, undefined);
    assert.equal(one.runtime.endpoint, 'unix:///a.sock');
  });

  void it('a bad address is a usage error (exit 2), naming the option', () => {
    assert.throws(() => enginesOf(parseCommandArgs(runCommand, ['t', '--engine', 'ftp://x']), io, 2), (e: unknown) => e instanceof UsageError && /^--engine: /.test(e.message));
  });
});

void describe('engine pool (engine doubles)', () => {
  void it('places each container on the engine with the most free slots and waits when all are taken', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    a.images.add('img:1');
    const pool = new EnginePool([{ runtime: a, slots: 2 }, { runtime: b, slots: 1 }]);
    assert.equal(pool.capacity, 3);
    const ids = await Promise.all(['t1', 't2', 't3'].map((t) => pool.start(spec(t))));
    assert.deepEqual(pool.stats().map((s) => s.started), [2, 1]);
    // The image was copied to b once, on its first trial.
    assert.deepEqual(b.copiedIn, ['img:1']);
    let fourth = '';
    const waiting = pool.start(spec('t4')).then((id) => { fourth = id; });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(fourth, '', 'a fourth container started with every slot taken');
    const onB = ids.find((id) => id.startsWith('b-')) as string;
    await pool.remove(onB);
    await waiting;
    assert.ok(fourth.startsWith('b-'), fourth);
    assert.deepEqual(b.copiedIn, ['img:1'], 'copied again');
  });

  void it('copies an image once per engine, however many trials start there at once', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    a.images.add('img:1');
    const pool = new EnginePool([{ runtime: a, slots: 1 }, { runtime: b, slots: 3 }]);
    await Promise.all(['t1', 't2', 't3'].map((t) => pool.start(spec(t))));
    assert.deepEqual(b.copiedIn, ['img:1']);
  });

  void it('drains an engine that stops answering: its trials are lost to the drain, new ones go elsewhere, its containers are swept once it is back', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    a.images.add('img:1');
    b.images.add('img:1');
    const drained: string[] = [];
    const pool = new EnginePool([{ runtime: a, slots: 1 }, { runtime: b, slots: 1 }], (ep) => drained.push(ep), 60_000);
    const onA = await pool.start(spec('ta'));
    const onB = await pool.start(spec('tb'));
    assert.ok(onB.startsWith('b-'));
    const snap = await pool.commit(onB, {});
    b.alive = false;
    await assert.rejects(pool.exec(onB, { cmd: ['true'] }), (e: unknown) => e instanceof InfraError && e.kind === 'engine-unreachable');
    assert.deepEqual(drained, ['b']);
    assert.ok(pool.lostToDrain('tb'));
    assert.ok(!pool.lostToDrain('ta'));
    await assert.rejects(pool.remove(onB));
    assert.equal(pool.capacity, 1);
    await pool.remove(onA);
    const next = await pool.start(spec('tc'));
    assert.ok(next.startsWith('a-'), next);
    // The run's end removes its snapshot: from b too, once b answers.
    await pool.removeImage(snap);
    assert.deepEqual(await pool.sweepStranded(), { removed: 0, left: 1, imagesLeft: 1 });
    b.alive = true;
    assert.deepEqual(await pool.sweepStranded(), { removed: 1, left: 0, imagesLeft: 0 });
    assert.equal(b.containers.size, 0);
    assert.ok(!b.images.has(snap));
    pool.close();
  });

  void it('starts elsewhere when the chosen engine dies before the container exists, and fails clearly when none is left', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    a.images.add('img:1');
    b.images.add('img:1');
    a.alive = false;
    const pool = new EnginePool([{ runtime: a, slots: 2 }, { runtime: b, slots: 1 }]);
    const id = await pool.start(spec('t1'));
    assert.ok(id.startsWith('b-'), id);
    assert.ok(!pool.lostToDrain('t1'));
    b.alive = false;
    await assert.rejects(pool.ping(), /no engine of the pool answers/);
    await assert.rejects(pool.start(spec('t2')), (e: unknown) => e instanceof InfraError && e.kind === 'engine-unreachable');
    pool.close();
  });

  void it('builds an image once and rebuilds it when the only engine holding it is drained', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    const pool = new EnginePool([{ runtime: a, slots: 1 }, { runtime: b, slots: 1 }]);
    await pool.buildImage({ context: Buffer.alloc(0), dockerfile: 'Dockerfile', tag: 'img:2', labels: {}, timeoutSec: 1, onLog: () => undefined });
    assert.ok(pool.knowsImage('img:2'));
    const holder = a.images.has('img:2') ? a : b;
    holder.alive = false;
    await pool.ping().catch(() => undefined);
    assert.ok(!pool.knowsImage('img:2'), 'an image known only on a drained engine is still taken as present');
    assert.equal(await pool.imageExists('img:2'), false);
    pool.close();
  });

  void it('a snapshot lost with its engine is no retry (an image id cannot be rebuilt); a lost tag is', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    a.images.add('img:1');
    const pool = new EnginePool([{ runtime: a, slots: 1 }, { runtime: b, slots: 1 }], undefined, 60_000);
    const held = await pool.start(spec('t0'));
    const snap = await pool.commit(held, {});
    a.alive = false;
    await pool.ping();
    const lost = (e: unknown): InfraError => { assert.ok(e instanceof InfraError, String(e)); return e; };
    const s1 = lost(await pool.start(spec('t1', snap)).catch((e: unknown) => e));
    assert.deepEqual([s1.kind, s1.retryable], ['image-missing', false]);
    assert.match(s1.message, /snapshot/);
    const s2 = lost(await pool.start(spec('t2', 'img:1')).catch((e: unknown) => e));
    assert.deepEqual([s2.kind, s2.retryable], ['image-missing', true]);
    pool.close();
  });

  void it('redoes a trial lost with its engine on the engine left, without spending a retry', async () => {
    const a = new FakeEngine('a');
    const b = new FakeEngine('b');
    b.dieOnVerifier = true;
    const pool = new EnginePool([{ runtime: b, slots: 1 }, { runtime: a, slots: 1 }], undefined, 60_000);
    const s = store();
    const task = await loadTask(fixture);
    const rs = await new TrialRunner({ runtime: pool }, s).runJob({ task, taskPath: 'harbor-valid', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0, retryBaseMs: 1 });
    assert.deepEqual(rs.map((r) => r.record.outcome), ['infra-error', 'passed']);
    assert.deepEqual(rs.map((r) => r.record.try), [1, 2]);
    assert.deepEqual(rs.map((r) => r.record.engine), ['b', 'a'], 'each try records the engine it ran on');
    assert.equal(rs[0]?.record.infra?.kind, 'engine-unreachable');
    assert.deepEqual(readRun(s.dir).trials.map((t) => t.outcome), ['infra-error', 'passed']);
    assert.deepEqual(pool.stats().map((x) => [x.endpoint, x.started, x.drained !== undefined]), [['b', 1, true], ['a', 1, false]]);
    pool.close();
  });
});
