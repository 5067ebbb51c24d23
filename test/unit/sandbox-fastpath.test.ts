import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { NopAgent } from '../../src/core/agents/nop';
import { OracleAgent } from '../../src/core/agents/oracle';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { TrialRunner } from '../../src/core/sandbox/runner';
import type {
  BuildSpec, ContainerRuntime, ContainerSpec, ContainerState, ContainerSummary, ExecOutcome, ExecRequest, OomWatch,
} from '../../src/core/sandbox/runtime';
import type { FileChange, SnapshotRuntime } from '../../src/core/sandbox/snapshot';
import { packTar } from '../../src/core/sandbox/tar';
import { tempDir } from '../support/tempDir';

const fixture = path.resolve(__dirname, '../../../test/fixtures/sandbox/harbor-valid');

/** An engine double with snapshots; removals wait until `release()` when `holdRemovals` is set. */
class Engine implements ContainerRuntime, SnapshotRuntime {
  readonly endpoint = 'fake://';
  private n = 0;
  readonly images = new Map<string, string>();
  readonly puts: { id: string; dir: string }[] = [];
  readonly removed: string[] = [];
  readonly removedImages: string[] = [];
  readonly commits: string[] = [];
  private held: (() => void)[] = [];
  private readonly verified = new Set<string>();
  constructor(private readonly opts: { holdRemovals?: boolean; ooms?: number } = {}) {}
  ping(): Promise<void> { return Promise.resolve(); }
  imageExists(): Promise<boolean> { return Promise.resolve(true); }
  buildImage(_spec: BuildSpec): Promise<void> { return Promise.resolve(); }
  start(spec: ContainerSpec): Promise<string> {
    const id = `c${++this.n}`;
    this.images.set(id, spec.image);
    return Promise.resolve(id);
  }
  exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
    if (req.cmd.includes('/tests/test.sh')) this.verified.add(id);
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 });
  }
  putArchive(id: string, dir: string): Promise<void> { this.puts.push({ id, dir }); return Promise.resolve(); }
  getArchive(id: string, p: string): Promise<Readable | undefined> {
    if (p !== '/logs/verifier' || !this.verified.has(id)) return Promise.resolve(undefined);
    return Promise.resolve(Readable.from([packTar([{ name: 'verifier', mode: 0o755, type: 'dir' }, { name: 'verifier/reward.txt', mode: 0o644, type: 'file', data: Buffer.from('1') }])]));
  }
  remove(id: string): Promise<void> {
    if (!this.opts.holdRemovals) { this.removed.push(id); return Promise.resolve(); }
    return new Promise((resolve) => this.held.push(() => { this.removed.push(id); resolve(); }));
  }
  /** Lets every removal asked for so far finish. */
  release(): void { const h = this.held; this.held = []; for (const f of h) f(); }
  get pending(): number { return this.held.length; }
  listByLabel(): Promise<ContainerSummary[]> { return Promise.resolve([]); }
  inspect(): Promise<ContainerState | undefined> { return Promise.resolve({ running: true, oomKilled: false, exitCode: null }); }
  watchOom(): Promise<OomWatch> { return Promise.resolve({ stop: () => Promise.resolve(this.opts.ooms ?? 0) }); }
  diff(): Promise<FileChange[]> { return Promise.resolve([]); }
  commit(id: string): Promise<string> { this.commits.push(id); return Promise.resolve(`sha256:snap-of-${id}`); }
  removeImage(ref: string): Promise<void> { this.removedImages.push(ref); return Promise.resolve(); }
}

function store(): RunStore {
  const dir = tempDir('tw-fastpath-');
  return RunStore.create(dir, { id: newRunId('nop'), kind: 'run', tasks: [], concurrency: 1, retries: 0, startedAt: 'now', pid: process.pid });
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

void describe('trial fast path (engine double)', () => {
  void it('returns a recorded trial before its container is removed, and settles only once it is gone', async () => {
    const rt = new Engine({ holdRemovals: true });
    const task = await loadTask(fixture);
    const s = store();
    const runner = new TrialRunner({ runtime: rt }, s);
    const [r] = await runner.runJob({ task, taskPath: 'harbor-valid', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0, deferRemoval: true });
    assert.equal(r?.record.outcome, 'passed');
    // The verdict is in the ledger while the removal is still under way.
    assert.deepEqual(readRun(s.dir).trials.map((t) => t.outcome), ['passed']);
    assert.equal(rt.pending, 1);
    assert.deepEqual(rt.removed, []);
    let settled = false;
    const done = runner.settle().then(() => { settled = true; });
    await tick();
    assert.equal(settled, false, 'settle waits for the removal');
    rt.release();
    await done;
    assert.deepEqual(rt.removed, ['c1']);
  });

  void it('without deferRemoval, runJob returns only once the container is removed', async () => {
    const rt = new Engine({ holdRemovals: true });
    const task = await loadTask(fixture);
    let returned = false;
    const p = new TrialRunner({ runtime: rt }, store()).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0 }).then(() => { returned = true; });
    for (let i = 0; i < 50 && rt.pending === 0; i++) await tick();
    assert.equal(rt.pending, 1);
    assert.equal(returned, false);
    rt.release();
    await p;
    assert.deepEqual(rt.removed, ['c1']);
  });

  void it('runAll returns only after every container is removed', async () => {
    const rt = new Engine({ holdRemovals: true });
    const task = await loadTask(fixture);
    const runner = new TrialRunner({ runtime: rt }, store());
    let returned = false;
    const p = runner.runAll([1, 2, 3].map((attempt) => ({ task, taskPath: 'x', agent: new NopAgent(), attempt })), { concurrency: 1, retries: 0 }).then(() => { returned = true; });
    // The next trial starts while the last one's container is still being removed.
    for (let i = 0; i < 200 && rt.pending < 3; i++) await tick();
    assert.equal(rt.pending, 3);
    assert.equal(returned, false);
    rt.release();
    await p;
    assert.deepEqual(rt.removed.sort(), ['c1', 'c2', 'c3']);
  });

  void it('starts inert trials from a verifier-ready snapshot from the third on, and removes it when the run closes', async () => {
    const rt = new Engine();
    const task = await loadTask(fixture);
    const runner = new TrialRunner({ runtime: rt }, store());
    const rs = await runner.runAll([1, 2, 3, 4].map((attempt) => ({ task, taskPath: 'x', agent: new NopAgent(), attempt })), { concurrency: 1, retries: 0 });
    assert.deepEqual(rs.map((r) => r[0]?.record.outcome), ['passed', 'passed', 'passed', 'passed']);
    // The second trial committed its state right before the verifier; the third and fourth started from it.
    assert.deepEqual(rt.commits, ['c2']);
    assert.equal(rt.images.get('c3'), 'sha256:snap-of-c2');
    assert.equal(rt.images.get('c4'), 'sha256:snap-of-c2');
    assert.notEqual(rt.images.get('c1'), 'sha256:snap-of-c2');
    // …and had nothing copied in (the tests are in the snapshot).
    assert.deepEqual(rt.puts.filter((p) => p.id === 'c3' || p.id === 'c4'), []);
    assert.ok(rt.puts.some((p) => p.id === 'c1') && rt.puts.some((p) => p.id === 'c2'));
    assert.deepEqual(rt.removedImages, ['sha256:snap-of-c2']);
    assert.deepEqual(rt.removed.sort(), ['c1', 'c2', 'c3', 'c4']);
  });

  void it('never starts an agent that works in the container, or a trial with a hook, from a snapshot', async () => {
    const rt = new Engine();
    const task = await loadTask(fixture);
    const hook = (): Promise<void> => Promise.resolve();
    await new TrialRunner({ runtime: rt }, store()).runAll([
      ...[1, 2, 3].map((attempt) => ({ task, taskPath: 'x', agent: new OracleAgent(), attempt })),
      ...[1, 2, 3].map((attempt) => ({ task, taskPath: 'x', agent: new NopAgent(), attempt, beforeVerifier: hook })),
    ], { concurrency: 1, retries: 0 });
    assert.deepEqual(rt.commits, []);
  });

  void it('an OOM kill seen while the reward is read back is no verdict, and no reward file is kept', async () => {
    const rt = new Engine({ ooms: 1 });
    const task = await loadTask(fixture);
    const s = store();
    const [r] = await new TrialRunner({ runtime: rt }, s).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    assert.equal(r?.record.outcome, 'verifier-oom');
    assert.equal(r?.record.reward, null);
    assert.equal(fs.existsSync(path.join(s.dir, r?.record.logs ?? '', 'reward.txt')), false);
  });
});
