import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { validateAtif, type AtifTrajectory } from '../../src/core/trials/atif';
import { tempDir } from '../support/tempDir';

const REPO = path.resolve(__dirname, '../../..');

function captureIo(cwd: string): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), cwd, env: {}, signal: new AbortController().signal }, out, err };
}

/** A workspace with the fixture run, its task (for the instruction) and an oracle trial without a trajectory. */
function workspace(): string {
  const ws = tempDir('tw-export-');
  fs.cpSync(path.join(REPO, 'test/fixtures/trials/runs'), path.join(ws, '.taskwright/runs'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'tasks/hello'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'tasks/hello/task.toml'), 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n');
  fs.writeFileSync(path.join(ws, 'tasks/hello/instruction.md'), 'Write "Hello, world!" to /app/hello.txt.\n');
  const run = path.join(ws, '.taskwright/runs/run-1');
  const oracle = { trial: 'hello__oracle', task: 'tasks/hello', taskId: 'hello', agent: 'oracle', attempt: 2, outcome: 'passed', reward: 1, startedAt: '2026-11-30T10:00:30.000Z', durations: { build: 0, agent: 1, verifier: 2 }, logs: 'trials/hello__oracle' };
  fs.mkdirSync(path.join(run, 'trials/hello__oracle'));
  fs.appendFileSync(path.join(run, 'trials.jsonl'), `${JSON.stringify(oracle)}\n`);
  return ws;
}

void describe('cli: taskwright export --atif', () => {
  void it('writes one valid ATIF file per trial with a trajectory, with the task\'s instruction first', async () => {
    const ws = workspace();
    const { io, out, err } = captureIo(ws);
    const code = await main(['export', '--atif', 'run-1', '--out', 'atif-out'], io);
    assert.equal(code, 0, err.join('\n'));
    assert.deepEqual(fs.readdirSync(path.join(ws, 'atif-out')), ['hello__1.json']);
    assert.match(out.join('\n'), /wrote 1 ATIF trajectory to atif-out/);
    assert.match(err.join('\n'), /skipped hello__oracle: oracle wrote no trajectory\.jsonl/);
    const atif = JSON.parse(fs.readFileSync(path.join(ws, 'atif-out/hello__1.json'), 'utf8')) as AtifTrajectory;
    assert.deepEqual(validateAtif(atif), []);
    assert.equal(atif.session_id, 'hello__1');
    assert.equal(atif.agent.name, 'terminal:anthropic/claude-sonnet-4-5');
    assert.equal(atif.agent.model_name, 'claude-sonnet-4-5');
    assert.equal(atif.steps[0]?.source, 'user');
    assert.match(atif.steps[0]?.message ?? '', /Hello, world!/);
    assert.equal(atif.notes, undefined);
    assert.deepEqual(atif.extra, { outcome: 'failed', reward: 0 });
  });

  void it('writes into RUN/atif by default, and says when the instruction was not found', async () => {
    const ws = workspace();
    fs.rmSync(path.join(ws, 'tasks'), { recursive: true });
    const { io, err } = captureIo(ws);
    assert.equal(await main(['export', '--atif', '.taskwright/runs/run-1'], io), 0, err.join('\n'));
    const atif = JSON.parse(fs.readFileSync(path.join(ws, '.taskwright/runs/run-1/atif/hello__1.json'), 'utf8')) as AtifTrajectory;
    assert.deepEqual(validateAtif(atif), []);
    assert.equal(atif.steps[0]?.source, 'agent');
    assert.match(atif.notes ?? '', /instruction was not recorded/);
  });

  void it('refuses a missing format or run', async () => {
    const ws = workspace();
    assert.equal(await main(['export', 'run-1'], captureIo(ws).io), 2);
    assert.equal(await main(['export', '--atif', 'no-such-run'], captureIo(ws).io), 2);
  });
});
