import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { NopAgent } from '../../src/core/agents/nop';
import { loadTask } from '../../src/core/loader/index';
import { newRunId, readRun, RunStore } from '../../src/core/results/store';
import { TrialRunner } from '../../src/core/sandbox/runner';
import {
  InfraError, type BuildSpec, type ContainerRuntime, type ContainerSpec, type ContainerState, type ContainerSummary, type ExecOutcome, type ExecRequest,
} from '../../src/core/sandbox/runtime';
import { Readable } from 'node:stream';
import { packTar } from '../../src/core/sandbox/tar';
import { tempDir } from '../support/tempDir';

const fixture = path.resolve(__dirname, '../../../test/fixtures/sandbox/harbor-valid');

/** An engine double: `start` fails the first `failStarts` times; the verifier writes `reward`. */
class FakeRuntime implements ContainerRuntime {
  readonly endpoint = 'fake://';
  starts = 0;
  readonly removed: string[] = [];
  readonly specs: ContainerSpec[] = [];
  constructor(private failStarts: number, private readonly reward = '1') {}
  ping(): Promise<void> { return Promise.resolve(); }
  imageExists(): Promise<boolean> { return Promise.resolve(true); }
  buildImage(_spec: BuildSpec): Promise<void> { return Promise.resolve(); }
  start(spec: ContainerSpec): Promise<string> {
    this.starts++;
    this.specs.push(spec);
    if (this.failStarts-- > 0) return Promise.reject(new InfraError('container-start', 'engine hiccup'));
    return Promise.resolve(`c${this.starts}`);
  }
  /** Containers whose verifier ran: only then does the reward folder hold a reward. */
  private readonly verified = new Set<string>();
  exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
    if (req.cmd.includes('/tests/test.sh')) this.verified.add(id);
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 1 });
  }
  putArchive(): Promise<void> { return Promise.resolve(); }
  getArchive(id: string, p: string): Promise<Readable | undefined> {
    if (p !== '/logs/verifier' || !this.verified.has(id)) return Promise.resolve(undefined);
    return Promise.resolve(Readable.from([packTar([{ name: 'verifier', mode: 0o755, type: 'dir' }, { name: 'verifier/reward.txt', mode: 0o644, type: 'file', data: Buffer.from(this.reward) }])]));
  }
  remove(id: string): Promise<void> { this.removed.push(id); return Promise.resolve(); }
  listByLabel(): Promise<ContainerSummary[]> { return Promise.resolve([]); }
  inspect(): Promise<ContainerState | undefined> { return Promise.resolve({ running: true, oomKilled: false, exitCode: null }); }
}

function store(): RunStore {
  const dir = tempDir('tw-runner-');
  return RunStore.create(dir, { id: newRunId('nop'), kind: 'run', tasks: [], concurrency: 1, retries: 2, startedAt: 'now', pid: process.pid });
}

void describe('trial runner (engine double)', () => {
  void it('retries infra errors with back-off, records every try, and never counts them as failures', async () => {
    const rt = new FakeRuntime(2);
    const s = store();
    const task = await loadTask(fixture);
    const rs = await new TrialRunner({ runtime: rt }, s).runJob({ task, taskPath: 'harbor-valid', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 3, retryBaseMs: 1 });
    assert.deepEqual(rs.map((r) => r.record.outcome), ['infra-error', 'infra-error', 'passed']);
    assert.deepEqual(rs.map((r) => r.record.try), [1, 2, 3]);
    assert.ok(rs.every((r) => r.record.attempt === 1));
    assert.equal(rs[0]?.record.infra?.kind, 'container-start');
    assert.equal(rs[0]?.record.reward, null);
    const ledger = readRun(s.dir);
    assert.deepEqual(ledger.trials.map((t) => t.outcome), ['infra-error', 'infra-error', 'passed']);
  });

  void it('stops retrying after the configured number of tries', async () => {
    const rt = new FakeRuntime(10);
    const task = await loadTask(fixture);
    const rs = await new TrialRunner({ runtime: rt }, store()).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 1, retryBaseMs: 1 });
    assert.equal(rs.length, 2);
    assert.ok(rs.every((r) => r.record.outcome === 'infra-error'));
  });

  void it('hardens every trial container and removes it afterwards', async () => {
    const rt = new FakeRuntime(0, '0');
    const task = await loadTask(fixture);
    const [r] = await new TrialRunner({ runtime: rt }, store()).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0 });
    assert.equal(r?.record.outcome, 'failed');
    assert.equal(r?.record.reward, 0);
    const spec = rt.specs[0];
    assert.equal(spec?.networkMode, 'none');
    assert.equal(spec?.labels.taskwright, '1');
    assert.equal(spec?.labels['taskwright.pid'], String(process.pid));
    // harbor-valid asks for 1 CPU and 512 MB.
    assert.deepEqual(spec?.limits, { nanoCpus: 1e9, memoryBytes: 512 * 1024 * 1024, pidsLimit: 1024 });
    assert.deepEqual(rt.removed, ['c1']);
  });

  void it('prefixes every line of live output with its trial and never splits a line across chunks', async () => {
    // The verifier's output arrives in fragments that cut lines in the middle, as an engine's stream does.
    class ChunkyRuntime extends FakeRuntime {
      override exec(id: string, req: ExecRequest): Promise<ExecOutcome> {
        if (req.cmd.includes('/tests/test.sh')) for (const c of ['PASS', 'ED test_one\nFAI', 'LED test_two\nno newline at the end']) req.onStdout?.(Buffer.from(c));
        return super.exec(id, req);
      }
    }
    const task = await loadTask(fixture);
    const chunks: string[] = [];
    const [r] = await new TrialRunner({ runtime: new ChunkyRuntime(0) }, store()).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 0, onOutput: (t) => chunks.push(t) });
    const prefix = `[${r?.record.trial ?? '?'}] `;
    assert.ok(chunks.every((c) => c.endsWith('\n')), `each write is whole lines: ${JSON.stringify(chunks)}`);
    const lines = chunks.join('').split('\n').filter(Boolean);
    assert.ok(lines.every((l) => l.startsWith(prefix)), `every line starts with ${prefix}: ${JSON.stringify(lines)}`);
    for (const l of ["PASSED test_one", "FAILED test_two", "no newline at the end"]) assert.ok(lines.includes(prefix + l), `${l} is one line: ${JSON.stringify(lines)}`);
  });

  void it('records a cancelled trial as cancelled, not as a failure', async () => {
    const rt = new FakeRuntime(0);
    const task = await loadTask(fixture);
    const c = new AbortController();
    c.abort();
    const [r] = await new TrialRunner({ runtime: rt }, store()).runJob({ task, taskPath: 'x', agent: new NopAgent(), attempt: 1 }, { concurrency: 1, retries: 2, signal: c.signal });
    assert.equal(r?.record.outcome, 'cancelled');
  });
});
