import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Agent } from '../../src/core/agents/agent';
import { createPolicyAgent } from '../../src/core/agents/policy';
import { TRAJECTORY_FILE } from '../../src/core/agents/terminal';
import { computeBand } from '../../src/core/band/compute';
import { loadTask } from '../../src/core/loader/index';
import { readRun, RunStore } from '../../src/core/results/store';
import type { TrialRecord } from '../../src/core/results/trial';
import { DockerodeRuntime } from '../../src/core/sandbox/dockerRuntime';
import { TrialRunner, type TrialJob } from '../../src/core/sandbox/runner';
import { LABEL, LABEL_RUN } from '../../src/core/sandbox/runtime';
import { startAnthropicServer, type ScriptedServer } from '../support/anthropicServer';
import { startOpenAIServer } from '../support/openaiServer';
import { commandScript, countToolResults, errorStorm, type Script } from '../support/scripted';

const root = path.resolve(__dirname, '../../..');
const fixtures = path.join(root, 'test/fixtures/sandbox');
const KEY = 'sk-rollout-test';
const SOLVE = ['echo hello > /app/greeting.txt', 'cat /app/greeting.txt'];
const USELESS = ['ls -la /', 'echo thinking about it'];
const runtime = new DockerodeRuntime();
let workspace: string;
const servers: ScriptedServer[] = [];

/** Each new conversation (no tool results yet) alternates between solving and doing nothing useful. */
function alternating(): Script {
  let conversations = 0;
  const solve = commandScript(SOLVE);
  const idle = commandScript(USELESS);
  let current = solve;
  return (req) => {
    if (countToolResults(req.body) === 0) current = ++conversations % 2 === 1 ? solve : idle;
    return current(req);
  };
}

/** The first request's connection is dropped and the second gets a 429: both must be retried. */
function flakyThenSolve(): Script {
  const solve = commandScript(SOLVE);
  return (req) => (req.index === 0 ? { kind: 'drop' } : req.index === 1 ? { kind: 'error', status: 429, headers: { 'retry-after': '1' } } : solve(req));
}

async function runPolicy(store: RunStore, agent: Agent, taskNames: readonly string[], attempts: number): Promise<TrialRecord[]> {
  const runner = new TrialRunner({ runtime }, store);
  await runner.prepare();
  const jobs: TrialJob[] = [];
  for (let a = 1; a <= attempts; a++) {
    for (const name of taskNames) jobs.push({ task: await loadTask(path.join(fixtures, name)), taskPath: path.join(fixtures, name), agent, attempt: a });
  }
  const results = await runner.runAll(jobs, { concurrency: 1, retries: 1, retryBaseMs: 200 });
  const records = results.flat().map((r) => r.record);
  store.finish({});
  return records;
}

function newStore(id: string, agent: Agent, attempts: number): RunStore {
  return RunStore.create(path.join(workspace, '.taskwright', 'runs'), {
    id, kind: 'run', agent: agent.spec, ...(agent.model ? { model: agent.model } : {}), tasks: [], attempts, concurrency: 1, retries: 1,
    startedAt: new Date().toISOString(), pid: process.pid,
  });
}

before(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-rollout-'));
  await runtime.ping();
});

after(async () => {
  for (const s of servers) await s.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

void describe('rollouts in real containers (integration)', () => {
  void it('records passed, failed and agent-error trials from scripted Anthropic and OpenAI servers, and bands them (integration)', async () => {
    const claude = await startAnthropicServer({ apiKey: KEY, auth: 'bearer', script: flakyThenSolve() });
    const qwen = await startOpenAIServer({ reasoningField: 'reasoning_content', script: alternating() });
    const storm = await startAnthropicServer({ apiKey: KEY, script: errorStorm(529) });
    servers.push(claude, qwen, storm);
    const secrets = (n: string) => (n === 'ANTHROPIC_API_KEY' ? KEY : undefined);

    const solver = createPolicyAgent('anthropic:claude-sonnet-4-5', { secrets, anthropicBaseURL: claude.url, maxRetries: 3, maxSteps: 6 });
    const solved = await runPolicy(newStore('claude', solver, 2), solver, ['harbor-valid', 'tb1-valid'], 2);
    assert.deepEqual(solved.map((r) => `${r.taskId}#${r.attempt} ${r.outcome}`), [
      'harbor-valid#1 passed', 'tb1-valid#1 passed', 'harbor-valid#2 passed', 'tb1-valid#2 passed',
    ]);
    for (const r of solved) {
      assert.equal(r.model, 'claude-sonnet-4-5');
      assert.ok(r.usage && r.usage.input > 0 && r.steps === 2 && r.costUsd! > 0, JSON.stringify(r));
    }
    assert.equal(claude.requests[0]!.headers['anthropic-version'], '2026-10-21');
    // The model layer retries itself (so each wait is shown): the dropped connection and the 429 were
    // followed by the same request again.
    assert.deepEqual(claude.requests[2]!.body, claude.requests[0]!.body, 'the dropped connection and the 429 were retried');
    const trialLogs = path.join(workspace, '.taskwright', 'runs', 'claude', solved[0]!.logs);
    const steps = fs.readFileSync(path.join(trialLogs, TRAJECTORY_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; command?: string; exitCode?: number });
    assert.deepEqual(steps.filter((s) => s.type === 'bash').map((s) => [s.command, s.exitCode]), [[SOLVE[0], 0], [SOLVE[1], 0]]);

    const mixed = createPolicyAgent(`openai:Qwen/Qwen3-8B@${qwen.url}`, { secrets, maxRetries: 1, maxSteps: 6 });
    const half = await runPolicy(newStore('qwen', mixed, 2), mixed, ['harbor-valid'], 2);
    assert.deepEqual(half.map((r) => r.outcome), ['passed', 'failed']);

    const stormy = createPolicyAgent('anthropic:claude-haiku-4-5', { secrets, anthropicBaseURL: storm.url, maxRetries: 1 });
    const stormed = await runPolicy(newStore('storm', stormy, 2), stormy, ['harbor-valid'], 2);
    // A provider that never answers made no attempt: infra (retried, then reported), never a scored failure.
    assert.ok(stormed.length >= 2);
    for (const r of stormed) {
      assert.equal(r.outcome, 'infra-error', 'an error storm is no attempt of the policy');
      assert.equal(r.infra?.kind, 'provider-unreachable');
      assert.match(r.infra?.message ?? '', /529|overloaded/i);
      assert.equal(r.durations.verifier, null, 'the verifier does not score an attempt that did not happen');
    }
    assert.equal(readRun(path.join(workspace, '.taskwright', 'runs', 'storm')).trials.length, stormed.length);

    const { report } = computeBand([workspace], { k: 2 });
    const bands = Object.fromEntries(report.models.map((m) => [m.model, Object.fromEntries(m.tasks.map((t) => [t.id, `${t.band} ${t.successes}/${t.attempts}`]))]));
    assert.deepEqual(bands, {
      'claude-haiku-4-5': { 'harbor-valid': 'insufficient 0/0' },
      'claude-sonnet-4-5': { 'harbor-valid': 'too-easy 2/2', 'tb1-valid': 'too-easy 2/2' },
      'Qwen/Qwen3-8B': { 'harbor-valid': 'in-band 1/2' },
    });
    assert.equal(report.models.find((m) => m.model === 'claude-sonnet-4-5')!.meanPassAtK, 1);
    assert.equal(report.models.reduce((s, m) => s + m.infraErrors, 0), stormed.length);
    for (const id of ['claude', 'qwen', 'storm']) {
      const left = (await runtime.listByLabel(LABEL)).filter((c) => c.labels[LABEL_RUN] === id);
      assert.equal(left.length, 0, `containers left behind by run ${id}`);
    }
  });

  void it('runs a command agent on the host that drives the container through DOCKER_HOST (integration)', async () => {
    const agent = createPolicyAgent('command:docker exec "$TASKWRIGHT_CONTAINER_ID" sh -c "cat > /app/greeting.txt" < /dev/null; printf "%s" "$TASKWRIGHT_INSTRUCTION" | grep -q greeting.txt && docker exec "$TASKWRIGHT_CONTAINER_ID" sh -c "echo hello > /app/greeting.txt"');
    const records = await runPolicy(newStore('command', agent, 1), agent, ['harbor-valid'], 1);
    assert.deepEqual(records.map((r) => r.outcome), ['passed']);
    const failing = createPolicyAgent('command:exit 7');
    const failed = await runPolicy(newStore('command-fails', failing, 1), failing, ['harbor-valid'], 1);
    assert.equal(failed[0]!.outcome, 'failed');
    assert.match(failed[0]!.error ?? '', /exited with 7/);
  });
});
