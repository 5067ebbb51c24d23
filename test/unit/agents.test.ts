import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { AgentSpecError, createAgent } from '../../src/core/agents/factory';
import { AnthropicChat } from '../../src/core/agents/anthropic';
import type { ChatModel, ModelTurn } from '../../src/core/agents/chat';
import { CommandAgent } from '../../src/core/agents/command';
import { formatObservation, truncateMiddle } from '../../src/core/agents/observation';
import { OpenAICompatibleChat } from '../../src/core/agents/openai';
import { createPolicyAgent, parseOpenAISpec } from '../../src/core/agents/policy';
import { TerminalAgent, TRAJECTORY_FILE } from '../../src/core/agents/terminal';
import { InfraError } from '../../src/core/sandbox/runtime';
import { startAnthropicServer } from '../support/anthropicServer';
import { fakeTask, LocalBashSession } from '../support/fakeSession';
import { startOpenAIServer } from '../support/openaiServer';
import { commandScript, errorStorm, firstThen, type Script } from '../support/scripted';

const KEY = 'sk-test-0123456789';
const SOLVE = ['printf "hello\\n" > hello.txt', 'cat hello.txt'];
const sessions: LocalBashSession[] = [];
function session(instruction = 'Create hello.txt containing hello.'): LocalBashSession {
  const s = new LocalBashSession(fakeTask(instruction));
  sessions.push(s);
  return s;
}
after(() => { for (const s of sessions) s.dispose(); });

function trajectory(s: LocalBashSession): Record<string, unknown>[] {
  return fs.readFileSync(path.join(s.logDir, TRAJECTORY_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A model that replays turns in order (for loop logic without any wire format). */
function fakeModel(turns: ModelTurn[]): ChatModel {
  let i = 0;
  return { provider: 'fake', model: 'fake-1', turn: () => Promise.resolve(turns[Math.min(i++, turns.length - 1)]!) };
}
const u = { input: 10, output: 2 };

void describe('agents: observations', () => {
  void it('keeps the first and last 5,000 bytes with a note, and appends the exit code', () => {
    const big = `${'a'.repeat(6000)}MIDDLE${'z'.repeat(6000)}`;
    const t = truncateMiddle(big);
    assert.ok(t.startsWith('a'.repeat(5000) + '\n[… 2006 bytes of output cut'));
    assert.ok(t.endsWith('z'.repeat(5000)));
    assert.ok(!t.includes('MIDDLE'));
    assert.equal(truncateMiddle('short'), 'short');
    // Multi-byte characters are never split.
    const cut = truncateMiddle('é'.repeat(6000), 5000);
    assert.ok(!cut.includes('\ufffd'));
    assert.equal(formatObservation({ exitCode: 3, stdout: 'out\n', stderr: 'err', timedOut: false, durationMs: 1 }, 120), 'out\nerr\n[exit code 3]');
    assert.equal(formatObservation({ exitCode: 124, stdout: '', stderr: '', timedOut: true, durationMs: 1 }, 5), '[exit code 124] (timed out after 5 s and was killed)');
  });
});

void describe('agents: the terminal loop', () => {
  void it('feeds malformed tool calls back as errors and counts them as steps', async () => {
    const s = session();
    const agent = new TerminalAgent('fake', fakeModel([
      { text: '', toolCalls: [{ id: 'a', name: 'bash', args: '{"command": ' }], usage: u },
      { text: '', toolCalls: [{ id: 'b', name: 'python', args: '{}' }], usage: u },
      { text: '', toolCalls: [{ id: 'c', name: 'bash', args: { cmd: 'ls' } }], usage: u },
      { text: '', toolCalls: [{ id: 'd', name: 'bash', args: '{"command":"echo ok > f"}' }], usage: u },
      { text: '', toolCalls: [{ id: 'e', name: 'submit', args: '' }], usage: u },
    ]));
    const r = await agent.run(s, new AbortController().signal);
    assert.equal(r.status, 'completed');
    assert.equal(r.steps, 4);
    assert.deepEqual(r.usage, { input: 50, output: 10 });
    assert.equal(fs.readFileSync(path.join(s.workDir, 'f'), 'utf8'), 'ok\n');
    const errors = trajectory(s).filter((e) => e.type === 'tool-error').map((e) => String(e.error));
    assert.equal(errors.length, 3);
    assert.match(errors[0]!, /not valid JSON/);
    assert.match(errors[1]!, /unknown tool 'python'/);
    assert.match(errors[2]!, /non-empty string argument "command"/);
  });

  void it('stops at the step limit and enforces the per-command timeout', async () => {
    const s = session();
    const agent = new TerminalAgent('fake', fakeModel([{ text: 'thinking', toolCalls: [{ id: 'x', name: 'bash', args: { command: 'sleep 5; echo never' } }], usage: u }]), { maxSteps: 2, commandTimeoutSec: 1 });
    const r = await agent.run(s, new AbortController().signal);
    assert.equal(r.status, 'completed');
    assert.equal(r.steps, 2);
    const bash = trajectory(s).filter((e) => e.type === 'bash');
    assert.equal(bash.length, 2);
    assert.equal(bash[0]!.timedOut, true);
    assert.match(String(bash[0]!.output), /timed out after 1 s/);
    assert.match(String(trajectory(s).at(-1)!.note), /step limit \(2\) reached/);
  });

  void it('turns a provider failure into the policy\'s error, not an exception', async () => {
    const s = session();
    const failing: ChatModel = { provider: 'fake', model: 'm', turn: () => Promise.reject(new Error('boom')) };
    const r = await new TerminalAgent('fake', failing).run(s, new AbortController().signal);
    assert.equal(r.status, 'error');
    assert.match(r.error!, /boom/);
  });
});

async function withAnthropic(script: Script, opts: { auth?: 'bearer' | 'x-api-key' | 'either'; stream?: boolean; authHeader?: 'bearer' | 'x-api-key'; maxRetries?: number; key?: string } = {}) {
  const server = await startAnthropicServer({ apiKey: KEY, auth: opts.auth ?? 'either', script });
  const chat = new AnthropicChat({
    model: 'claude-sonnet-4-5', apiKey: opts.key ?? KEY, baseURL: server.url,
    maxRetries: opts.maxRetries ?? 3, ...(opts.authHeader ? { authHeader: opts.authHeader } : {}),
  });
  const s = session();
  try {
    const result = await new TerminalAgent('anthropic:claude-sonnet-4-5', chat).run(s, new AbortController().signal);
    return { result, s, requests: server.requests };
  } finally {
    await server.close();
  }
}

void describe('agents: Anthropic Messages over the wire', () => {
  void it('solves over SSE with Bearer auth and the pinned anthropic-version, recording tokens and cost', async () => {
    const { result, s, requests } = await withAnthropic(commandScript(SOLVE, { reasoning: 'I will write the file.' }), { auth: 'bearer' });
    assert.equal(result.status, 'completed');
    assert.equal(result.steps, 2);
    assert.equal(fs.readFileSync(path.join(s.workDir, 'hello.txt'), 'utf8'), 'hello\n');
    assert.equal(requests.length, 3);
    assert.equal(requests[0]!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(requests[0]!.headers['anthropic-version'], '2026-10-21');
    assert.equal(requests[0]!.body.stream, true);
    // The second request carries the tool_use and its tool_result, and the thinking block sent back.
    const msgs = requests[1]!.body.messages as { role: string; content: unknown }[];
    assert.equal(msgs.length, 3);
    const assistant = msgs[1]!.content as { type: string; input?: unknown }[];
    assert.deepEqual(assistant.map((b) => b.type), ['thinking', 'text', 'tool_use']);
    assert.deepEqual(assistant[2]!.input, { command: SOLVE[0] });
    assert.equal((msgs[2]!.content as { type: string }[])[0]!.type, 'tool_result');
    assert.deepEqual(result.usage, { input: 100 + 101 + 120, output: 45 });
    assert.ok(result.costUsd! > 0);
    const t = trajectory(s);
    assert.equal(t.filter((e) => e.type === 'bash').length, 2);
    assert.equal(t.find((e) => e.type === 'model')!.reasoning, 'I will write the file.');
    assert.ok(!fs.readFileSync(path.join(s.logDir, TRAJECTORY_FILE), 'utf8').includes(KEY), 'the key is never logged');
  });

  void it('sends the key as x-api-key when asked', async () => {
    const { result, requests } = await withAnthropic(commandScript(SOLVE), { auth: 'x-api-key', authHeader: 'x-api-key' });
    assert.equal(result.status, 'completed');
    assert.equal(requests[0]!.headers['x-api-key'], KEY);
    assert.equal(requests[0]!.headers.authorization, undefined);
    assert.equal(requests[0]!.body.stream, true);
  });

  void it('sends an auth token (gateway / OAuth) as Bearer', async () => {
    const server = await startAnthropicServer({ apiKey: 'tok-123', auth: 'bearer', script: commandScript([]) });
    try {
      const chat = new AnthropicChat({ model: 'claude-haiku-4-5', authToken: 'tok-123', baseURL: server.url });
      const r = await new TerminalAgent('anthropic:claude-haiku-4-5', chat).run(session(), new AbortController().signal);
      assert.equal(r.status, 'completed');
      assert.equal(server.requests[0]!.headers.authorization, 'Bearer tok-123');
    } finally {
      await server.close();
    }
  });

  void it('retries a 429 with retry-after and a dropped connection, then solves', async () => {
    const solve = commandScript(SOLVE);
    let n = 0;
    const script: Script = (req) => {
      n++;
      if (n === 1) return { kind: 'error', status: 429, headers: { 'retry-after': '0' } };
      if (n === 3) return { kind: 'drop' };
      return solve(req);
    };
    const { result, s, requests } = await withAnthropic(script);
    assert.equal(result.status, 'completed');
    assert.equal(fs.readFileSync(path.join(s.workDir, 'hello.txt'), 'utf8'), 'hello\n');
    assert.equal(requests.length, 5);
    // Each retry repeats the same request (the model layer retries, so every wait can be shown).
    assert.deepEqual(requests[1]!.body.messages, requests[0]!.body.messages);
    assert.deepEqual(requests[3]!.body.messages, requests[2]!.body.messages);
  });

  void it('an error storm (529 overloaded) is infra (no attempt), a rejected key stops the run, and neither leaks the key', async () => {
    let requests = 0;
    await assert.rejects(withAnthropic(errorStorm(529), { maxRetries: 1 }).then(() => undefined, (e: unknown) => { throw e; }), (e: unknown) => {
      assert.ok(e instanceof InfraError);
      assert.equal(e.kind, 'provider-unreachable');
      assert.equal(e.retryable, true);
      assert.match(e.message, /529|Overloaded/i);
      return true;
    });
    const badKey = withAnthropic(commandScript(SOLVE), { key: 'sk-wrong-key-0123456789abcdef', maxRetries: 0 });
    await assert.rejects(badKey, (e: unknown) => {
      assert.ok(e instanceof InfraError);
      assert.equal(e.kind, 'provider-refused');
      assert.equal(e.retryable, false);
      assert.match(e.message, /401/);
      assert.ok(!e.message.includes('sk-wrong-key-0123456789abcdef'));
      requests++;
      return true;
    });
    assert.equal(requests, 1);
  });
});

void describe('agents: OpenAI-compatible chat completions over the wire', () => {
  void it('solves over SSE with tool_calls fragments and reasoning_content (vLLM style)', async () => {
    const server = await startOpenAIServer({ apiKey: KEY, reasoningField: 'reasoning_content', script: commandScript(SOLVE, { reasoning: 'plan: write then check' }) });
    const s = session();
    try {
      const chat = new OpenAICompatibleChat({ model: 'Qwen/Qwen3-8B', baseURL: server.url, apiKey: KEY });
      const r = await new TerminalAgent(`openai:Qwen/Qwen3-8B@${server.url}`, chat).run(s, new AbortController().signal);
      assert.equal(r.status, 'completed');
      assert.equal(fs.readFileSync(path.join(s.workDir, 'hello.txt'), 'utf8'), 'hello\n');
      assert.deepEqual(r.usage, { input: 321, output: 45 });
      assert.equal(r.costUsd, undefined, 'no price is guessed for a self-hosted model');
      assert.equal(server.requests[0]!.body.stream, true);
      const msgs = server.requests[1]!.body.messages as { role: string; tool_calls?: unknown[] }[];
      assert.deepEqual(msgs.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
      assert.equal(trajectory(s).find((e) => e.type === 'model')!.reasoning, 'plan: write then check');
    } finally {
      await server.close();
    }
  });

  void it('solves over plain JSON with `reasoning` (Ollama style), and a 500 storm is infra, never a scored attempt', async () => {
    const server = await startOpenAIServer({ reasoningField: 'reasoning', script: commandScript(SOLVE, { reasoning: 'r' }) });
    const s = session();
    try {
      const chat = new OpenAICompatibleChat({ model: 'llama3', baseURL: server.url, stream: false });
      const r = await new TerminalAgent('openai:llama3', chat).run(s, new AbortController().signal);
      assert.equal(r.status, 'completed');
      assert.equal(trajectory(s).find((e) => e.type === 'model')!.reasoning, 'r');
    } finally {
      await server.close();
    }
    const storm = await startOpenAIServer({ script: firstThen(100, { kind: 'error', status: 500 }, errorStorm(500)) });
    try {
      const chat = new OpenAICompatibleChat({ model: 'm', baseURL: storm.url, maxRetries: 1 });
      await assert.rejects(new TerminalAgent('openai:m', chat).run(session(), new AbortController().signal), (e: unknown) => e instanceof InfraError && e.kind === 'provider-unreachable');
      assert.equal(storm.requests.length, 2);
    } finally {
      await storm.close();
    }
  });
});

void describe('agents: command agent and specs', () => {
  void it('runs a host program with the instruction, container id and DOCKER_HOST', async () => {
    const s = session('Say hi.');
    const withHost = Object.assign(Object.create(Object.getPrototypeOf(s) as object) as LocalBashSession, s, { dockerHost: '/var/run/docker.sock' });
    const agent = new CommandAgent('cat > seen-stdin; env | grep -E "^(TASKWRIGHT_|DOCKER_HOST)" | sort > seen-env');
    const r = await agent.run(withHost, new AbortController().signal);
    assert.equal(r.status, 'completed');
    assert.equal(fs.readFileSync(path.join(s.logDir, 'seen-stdin'), 'utf8'), 'Say hi.');
    const env = fs.readFileSync(path.join(s.logDir, 'seen-env'), 'utf8');
    assert.match(env, /^DOCKER_HOST=unix:\/\/\/var\/run\/docker\.sock$/m);
    assert.match(env, /^TASKWRIGHT_CONTAINER_ID=local-test$/m);
    assert.match(env, /^TASKWRIGHT_INSTRUCTION=Say hi\.$/m);
    const fail = await new CommandAgent('exit 3').run(s, new AbortController().signal);
    assert.deepEqual(fail, { status: 'error', error: "'exit 3' exited with 3" });
    const ctl = new AbortController();
    const slow = new CommandAgent('sleep 30', { killGraceMs: 100 }).run(s, ctl.signal);
    setTimeout(() => ctl.abort(), 100);
    assert.match((await slow).error!, /SIGTERM/);
  });

  void it('parses agent specs and reports a missing key as a usage error', () => {
    assert.deepEqual(parseOpenAISpec('Qwen/Qwen3-8B@http://127.0.0.1:8000/v1'), { model: 'Qwen/Qwen3-8B', baseURL: 'http://127.0.0.1:8000/v1' });
    assert.deepEqual(parseOpenAISpec('llama3'), { model: 'llama3' });
    const a = createPolicyAgent('openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1', { secrets: () => undefined });
    assert.equal(a.model, 'Qwen/Qwen3-8B');
    assert.equal(a.spec, 'openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1');
    assert.equal(createPolicyAgent('anthropic:claude-haiku-4-5', { secrets: (n) => (n === 'ANTHROPIC_API_KEY' ? KEY : undefined) }).model, 'claude-haiku-4-5');
    const saved = { a: process.env.ANTHROPIC_API_KEY, b: process.env.ANTHROPIC_AUTH_TOKEN };
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_AUTH_TOKEN;
    try {
      assert.throws(() => createAgent('anthropic:claude-sonnet-4-5'), AgentSpecError);
    } finally {
      if (saved.a !== undefined) process.env.ANTHROPIC_API_KEY = saved.a;
      if (saved.b !== undefined) process.env.ANTHROPIC_AUTH_TOKEN = saved.b;
    }
    assert.equal(createAgent('command:./agent.sh').spec, 'command:./agent.sh');
    assert.throws(() => createAgent('anthropic:'), AgentSpecError);
  });
});
