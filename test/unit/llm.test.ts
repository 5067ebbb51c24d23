// The model layer against the wire-level server: each fault case asserts what the user sees (the
// notices and errors) and what the next request contained.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { MetaAgent } from '../../src/core/generate/metaAgent';
import { generateTasks } from '../../src/core/generate/pipeline';
import type { GenerateRequest } from '../../src/core/generate/types';
import { connect, costUsd, createClient, endpointOf, ModelCaller, ModelRequestError, pickDefault, priceOf, type ModelEntry } from '../../src/core/llm/index';
import { DEFAULT_CATALOGUE, startAnthropicServer, type AnthropicScriptedServer, type AnthropicServerOptions } from '../support/anthropicServer';
import { fakeGates } from '../support/generateGates';
import { goodDraft, submit, WRONG_SOLVE } from '../support/generateDrafts';
import type { RecordedRequest, Script, ScriptedReply } from '../support/scripted';
import { tempDir } from '../support/tempDir';

const KEY = 'sk-llm-unit-0123';
const servers: AnthropicScriptedServer[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => { const d = tempDir('tw-llm-'); dirs.push(d); return d; };

async function server(script: Script, extra: Partial<AnthropicServerOptions> = {}): Promise<AnthropicScriptedServer> {
  const s = await startAnthropicServer({ apiKey: KEY, script, ...extra });
  servers.push(s);
  return s;
}

function caller(s: { url: string }, model: string, notices: string[], key = KEY): ModelCaller {
  const creds = { apiKey: key, baseURL: s.url };
  return new ModelCaller({ client: createClient(creds), endpoint: endpointOf(creds), model, retry: { maxAttempts: 4, baseDelayMs: 5 }, onNotice: (l) => notices.push(l) });
}

const request = (outDir: string, model: string, over: Partial<GenerateRequest> = {}): GenerateRequest =>
  ({ topic: 'sums', count: 1, format: 'harbor', difficulty: 'easy', outDir, model, rounds: 2, ...over });

const messagesOf = (r: RecordedRequest): { role: string; content: unknown }[] => r.body.messages as { role: string; content: unknown }[];
const posts = (s: AnthropicScriptedServer): RecordedRequest[] => s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages');

void describe('llm: choosing the model', () => {
  void it('picks the newest active Sonnet from GET /v1/models, never a deprecated or retired one', async () => {
    const s = await server(() => submit(goodDraft()));
    const notices: string[] = [];
    const { caller: c, model } = await connect({ credentials: { apiKey: KEY, baseURL: s.url }, onNotice: (l) => notices.push(l) });
    assert.equal(c.model, 'claude-sonnet-5-5');
    assert.match(model.why, /newest active sonnet/);
    assert.match(notices[0]!, /^model claude-sonnet-5-5 \(default: the newest active sonnet listed at http:\/\/127\.0\.0\.1:\d+\/v1\/models\)$/);
    assert.deepEqual(s.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`), ['GET /v1/models']);
    const m = (id: string, line: string | null, lifecycle: ModelEntry['lifecycle'], createdAt: string): ModelEntry => ({ id, displayName: id, line, lifecycle, createdAt, retiresAt: null, maxTokens: null });
    // No active Sonnet: the next line; lines unknown: the newest active model.
    assert.equal(pickDefault([m('s', 'sonnet', 'deprecated', '2026-10-01'), m('o', 'opus', 'active', '2026-01-01')])?.id, 'o');
    assert.equal(pickDefault([m('x', null, 'active', '2026-01-01'), m('y', null, 'active', '2026-02-01')])?.id, 'y');
  });

  void it('a retired model (--model) stops the whole run with one message before any task is tried', async () => {
    const s = await server(() => submit(goodDraft()), { models: DEFAULT_CATALOGUE });
    const err: string[] = [];
    const io = { out: () => undefined, err: (t: string) => err.push(t), cwd: tmp(), env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: s.url }, signal: new AbortController().signal };
    const code = await main(['generate', '--topic', 't', '--count', '3', '--out', 'o', '--model', 'claude-sonnet-4-5'], io);
    assert.equal(code, 2);
    assert.equal(err.length, 1, err.join('\n'));
    assert.match(err[0]!, /model 'claude-sonnet-4-5' \(--model\) is retired since 2026-11-30; run without --model to use the default/);
    assert.equal(posts(s).length, 0, 'no Messages request was made');
    assert.ok(!err.join('').includes(KEY));
  });

  void it('a model the Messages API does not know (404) stops the run after the first task', async () => {
    const s = await server(() => submit(goodDraft()), { models: [{ id: 'claude-sonnet-5-5', line: 'sonnet', created_at: '2026-09-28T00:00:00Z' }] });
    const notices: string[] = [];
    const agent = new MetaAgent({ caller: caller(s, 'claude-gone-1', notices), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-gone-1', { count: 3 }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.errors, 3);
    assert.equal(posts(s).length, 1, 'not retried, and the other tasks were not tried');
    assert.match(report.tasks[0]!.reasons.at(-1)!, /model 'claude-gone-1' was not found at http:\/\/127\.0\.0\.1:\d+ \(404: model: claude-gone-1\)/);
    assert.deepEqual(notices, []);
  });
});

void describe('llm: tool use that works on every current model', () => {
  void it('falls back to tool_choice auto with the instruction when a forced tool is refused, and says so once', async () => {
    const s = await server(() => submit(goodDraft()), { refuseForcedTool: ['claude-fable-5-2'] });
    const notices: string[] = [];
    const agent = new MetaAgent({ caller: caller(s, 'claude-fable-5-2', notices), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-fable-5-2', { count: 2 }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 2);
    const p = posts(s);
    assert.equal(p.length, 3, 'one refused request, then one per task');
    assert.deepEqual(p[0]!.body.tool_choice, { type: 'tool', name: 'submit_task', disable_parallel_tool_use: true });
    for (const r of [p[1]!, p[2]!]) {
      assert.deepEqual(r.body.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
      const system = r.body.system as { text: string; cache_control?: unknown }[];
      assert.match(system[1]!.text, /Answer by calling the `submit_task` tool exactly once/);
      assert.deepEqual(system[0], (p[0]!.body.system as unknown[])[0], 'the stable prefix is unchanged by the fallback');
    }
    assert.equal(notices.filter((n) => /refuses a forced tool_choice/.test(n)).length, 1);
    assert.match(notices[0]!, /claude-fable-5-2 refuses a forced tool_choice \(tool_choice: type "tool" and "any" are not supported for this model\.\); asking with tool_choice auto/);
  });

  void it('sends thinking blocks back verbatim, with their signatures, in the repair round', async () => {
    const s = await server((req) => {
      const round = messagesOf(req).filter((m) => m.role === 'assistant').length + 1;
      const draft = round === 1 ? goodDraft({ 'solution/solve.sh': WRONG_SOLVE() }) : goodDraft();
      return { ...submit(draft), reasoning: `plan for round ${round}` };
    });
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', []), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5'), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1, JSON.stringify(report.tasks));
    const second = messagesOf(posts(s)[1]!);
    const assistant = second[1]!.content as { type: string; thinking?: string; signature?: string }[];
    assert.deepEqual(assistant.map((b) => b.type), ['thinking', 'tool_use']);
    assert.equal(assistant[0]!.thinking, 'plan for round 1');
    assert.match(assistant[0]!.signature!, /^sig-/);
  });

  void it('answers every tool_use block of a turn with a tool_result', async () => {
    const s = await server((req) => {
      const round = messagesOf(req).filter((m) => m.role === 'assistant').length + 1;
      if (round === 1) return { kind: 'turn', toolCalls: [{ name: 'submit_task', input: goodDraft({ 'solution/solve.sh': WRONG_SOLVE() }) }, { name: 'submit_task', input: goodDraft() }] };
      return submit(goodDraft());
    });
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', []), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5'), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    const reply = messagesOf(posts(s)[1]!)[2]!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
    const uses = (messagesOf(posts(s)[1]!)[1]!.content as { type: string; id: string }[]).filter((b) => b.type === 'tool_use').map((b) => b.id);
    assert.deepEqual(reply.map((b) => b.tool_use_id), uses);
    assert.match(reply[0]!.content, /Gate failed: oracle/);
    assert.match(reply[1]!.content, /not read: only one submit_task call of an answer is read/);
  });
});

void describe('llm: faults', () => {
  const twoTurns = (first: ScriptedReply): Script => (req) => (req.index === 0 ? first : submit(goodDraft()));
  const cutTurn = (over: Partial<Extract<ScriptedReply, { kind: 'turn' }>>): ScriptedReply => ({ ...(submit(goodDraft()) as Extract<ScriptedReply, { kind: 'turn' }>), ...over });

  void it('retries a stream cut mid-answer with back-off, and resends the same request', async () => {
    const s = await server(twoTurns(cutTurn({ cutAfterEvents: 6 })));
    const notices: string[] = [];
    const a = await caller(s, 'claude-sonnet-5-5', notices).send(new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', []), format: 'harbor' }).request([{ role: 'user', content: 'write a task' }]), new AbortController().signal);
    assert.equal(a.attempts, 2);
    assert.equal(a.message.stop_reason, 'tool_use');
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /^the stream from http:\/\/127\.0\.0\.1:\d+\/v1\/messages was cut mid-answer \(.+\); waiting \d+\.\d s \(back-off\), then attempt 2 of 4$/);
    assert.deepEqual(s.requests[1]!.body, s.requests[0]!.body);
  });

  void it('retries an in-stream overloaded_error', async () => {
    const s = await server(twoTurns(cutTurn({ errorAfterEvents: 4 })));
    const notices: string[] = [];
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', notices), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5'), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 1);
    assert.match(notices[0]!, /overloaded \(in-stream overloaded_error: Overloaded\); waiting \d+\.\d s \(back-off\), then attempt 2 of 4/);
    assert.deepEqual(s.requests[1]!.body.messages, s.requests[0]!.body.messages);
  });

  void it('honours a 429 retry-after and shows the wait', async () => {
    const s = await server(twoTurns({ kind: 'error', status: 429, headers: { 'retry-after': '1' } }));
    const notices: string[] = [];
    const a = await caller(s, 'claude-sonnet-5-5', notices).send({ system: 's', messages: [{ role: 'user', content: 'hi' }], maxTokens: 100 }, new AbortController().signal);
    assert.equal(a.attempts, 2);
    assert.match(notices[0]!, /rate limited \(429: scripted 429\); waiting 1\.0 s \(retry-after\), then attempt 2 of 4/);
    assert.deepEqual(s.requests[1]!.body, s.requests[0]!.body);
  });

  void it('stops at once on 401, naming the URL, never the key', async () => {
    const s = await server(() => submit(goodDraft()));
    const notices: string[] = [];
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', notices, 'sk-wrong-key'), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5', { count: 2 }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.errors, 2);
    assert.equal(s.requests.length, 1);
    assert.match(report.tasks[0]!.reasons.at(-1)!, /http:\/\/127\.0\.0\.1:\d+\/v1\/messages refused the key \(401 authentication_error: invalid x-api-key\)/);
    assert.ok(!JSON.stringify(report).includes('sk-wrong-key'));
    assert.deepEqual(notices, []);
  });

  void it('names the URL and the cause when the endpoint cannot be reached', async () => {
    const port = await new Promise<number>((resolve) => { const srv = net.createServer(); srv.listen(0, '127.0.0.1', () => { const p = (srv.address() as net.AddressInfo).port; srv.close(() => resolve(p)); }); });
    const notices: string[] = [];
    const c = caller({ url: `http://127.0.0.1:${port}` }, 'claude-sonnet-5-5', notices);
    await assert.rejects(c.send({ system: 's', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 }, new AbortController().signal), (e: unknown) => {
      assert.ok(e instanceof ModelRequestError);
      assert.match(e.message, new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}/v1/messages: .*ECONNREFUSED.* \\(after 4 attempts\\)$`));
      return true;
    });
    assert.equal(notices.length, 3);
  });

  void it('retries a max_tokens stop once with more room, then reports the task as truncated, never as a missing file', async () => {
    const cut = { kind: 'turn' as const, toolCalls: [{ name: 'submit_task', input: { id: 'half', summary: 's', files: [] } }], stopReason: 'max_tokens' as const, usage: { input: 100, output: 16000 } };
    const s = await server(() => cut);
    const notices: string[] = [];
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', notices), format: 'harbor' });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5', { rounds: 2 }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    const p = posts(s);
    assert.deepEqual(p.map((r) => r.body.max_tokens), [16000, 32000, 16000, 32000]);
    assert.match(notices[0]!, /the answer was truncated at max_tokens 16000; retrying once with 32000/);
    assert.deepEqual(report.tasks[0]!.failedGates, ['truncated', 'truncated']);
    assert.match(report.tasks[0]!.reasons[0]!, /^truncated: the answer was truncated at max_tokens/);
    const feedback = (messagesOf(p[2]!)[2]!.content as { content: string }[])[0]!.content;
    assert.match(feedback, /Gate failed: truncated/);
    assert.doesNotMatch(feedback, /missing/);
    // Both tries of each round are billed: 2 rounds × 2 tries × 100 in / 16000 out.
    assert.deepEqual(report.tokens, { input: 400, output: 64000, cacheRead: 0, cacheWrite: 0 });
  });

  void it('reads batch results out of order by custom_id, and streams an item the batch refused', async () => {
    let n = 0;
    const s = await server(() => submit(goodDraft({}, `sum-numbers-${++n}`)), { refuseForcedTool: [] });
    const agent = new MetaAgent({ caller: caller(s, 'claude-sonnet-5-5', []), format: 'harbor', pollMs: 5 });
    const report = await generateTasks(request(tmp(), 'claude-sonnet-5-5', { count: 3, batch: true }), { agent, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(report.counts.accepted, 3);
    // The server drafts sum-numbers-N for task-N but sends the JSONL lines in reverse: read by custom_id.
    assert.deepEqual(report.tasks.map((t) => t.id), ['sum-numbers-1', 'sum-numbers-2', 'sum-numbers-3']);
    const refused = await server(() => submit(goodDraft()), { refuseForcedTool: ['claude-fable-5-2'] });
    const notices: string[] = [];
    const a2 = new MetaAgent({ caller: caller(refused, 'claude-fable-5-2', notices), format: 'harbor', pollMs: 5 });
    const r2 = await generateTasks(request(tmp(), 'claude-fable-5-2', { batch: true }), { agent: a2, gates: fakeGates([]), signal: new AbortController().signal });
    assert.equal(r2.counts.accepted, 1);
    assert.match(notices[0]!, /refuses a forced tool_choice/);
    const streamed = posts(refused);
    assert.equal(streamed.length, 1);
    assert.deepEqual(streamed[0]!.body.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
  });
});

void describe('llm: prices and cache breakpoints', () => {
  void it('prices by the dated table: Opus 4.5+ at $5/$25, dated snapshots, the long-prompt tier, batch, unknown → undefined', () => {
    const u = { input: 1_000_000, output: 1_000_000 };
    assert.equal(costUsd('claude-opus-4-5', u), 30);
    assert.equal(costUsd('claude-opus-4-5-20251101', u), 30);
    assert.equal(costUsd('claude-opus-4-1', u), 90);
    assert.equal(costUsd('claude-sonnet-5-5', { input: 0, output: 0, cacheRead: 1_000_000 }), 0.1);
    assert.equal(costUsd('claude-fable-5-2', u), 48);
    assert.equal(costUsd('claude-fable-5-2', u, { batch: true }), 24);
    assert.ok(Math.abs(costUsd('claude-haiku-5-5', { input: 50_000, output: 0 })! - 0.005) < 1e-12);
    assert.ok(Math.abs(costUsd('claude-haiku-5-5', { input: 200_000, output: 0 })! - 0.1) < 1e-12, 'over 100k tokens every rate is 5×');
    assert.equal(costUsd('claude-new-9', u), undefined);
    assert.equal(costUsd('Qwen/Qwen3-8B', u), undefined);
    assert.equal(costUsd('claude-new-9', u, { overrides: { 'claude-new-9': { input: 1, output: 2 } } }), 3);
    assert.equal(priceOf('claude-sonnet-5-5', { 'claude-sonnet-5-5': { cacheRead: 0.05 } })?.cacheRead, 0.05);
  });

  void it('puts a cache breakpoint only where the prefix reaches the model\'s minimum', async () => {
    const s = await server(() => ({ kind: 'turn', text: 'ok' }));
    const c = caller(s, 'claude-sonnet-5', []);
    const short = c.params({ system: 'short', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    assert.equal((short.system as { cache_control?: unknown }[])[0]!.cache_control, undefined);
    const long = c.params({ system: 'x'.repeat(4 * 1024), messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    assert.deepEqual((long.system as { cache_control?: unknown }[])[0]!.cache_control, { type: 'ephemeral' });
    // A model whose minimum is not published gets the conservative 4,096.
    const unknown = caller(s, 'claude-opus-5-5', []).params({ system: 'x'.repeat(4 * 2048), messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    assert.equal((unknown.system as { cache_control?: unknown }[])[0]!.cache_control, undefined);
  });
});
