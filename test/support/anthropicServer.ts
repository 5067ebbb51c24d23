import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, Script, ScriptedReply } from './scripted';

export interface AnthropicServerOptions {
  readonly apiKey: string;
  /** How the key must arrive: `Authorization: Bearer` (what SDK 1.x sends), `x-api-key`, or either. */
  readonly auth?: 'bearer' | 'x-api-key' | 'either';
  /** Required `anthropic-version` header. */
  readonly version?: string;
  readonly script: Script;
  /** Message Batches: how many `retrieve` calls answer `in_progress` before the batch has ended (default 1). */
  readonly batchPolls?: number;
  /**
   * The Models API's catalogue (`GET /v1/models`, `GET /v1/models/{id}`). When given, a Messages
   * request naming a model that is not in it, or is retired, gets the API's 404 not_found_error.
   */
  readonly models?: readonly ServerModel[];
  /** Models that refuse a forced tool_choice (`tool` / `any`) with a 400, as the Fable 5.1 generation does. */
  readonly refuseForcedTool?: readonly string[];
}

export interface ServerModel {
  readonly id: string;
  readonly line?: string | null;
  readonly lifecycle?: 'active' | 'deprecated' | 'retired';
  readonly created_at: string;
  readonly max_tokens?: number;
  readonly retires_at?: string | null;
}

export interface ScriptedServer {
  /** Base URL to give the client (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface BatchState {
  readonly requests: readonly { readonly custom_id: string; readonly params: Record<string, unknown> }[];
  polls: number;
  canceled: boolean;
}

export interface AnthropicScriptedServer extends ScriptedServer {
  /** Message Batches created on this server, by id (each request's params go through the script). */
  readonly batches: Map<string, BatchState>;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error',
};

/** A catalogue in the shape of today's list: newest first, one retired model. */
export const DEFAULT_CATALOGUE: readonly ServerModel[] = [
  { id: 'claude-fable-5-2', line: 'fable', created_at: '2026-11-17T00:00:00Z' },
  { id: 'claude-haiku-5-5', line: 'haiku', created_at: '2026-10-07T00:00:00Z' },
  { id: 'claude-sonnet-5-5', line: 'sonnet', created_at: '2026-09-28T00:00:00Z' },
  { id: 'claude-opus-5-5', line: 'opus', created_at: '2026-09-15T00:00:00Z' },
  { id: 'claude-sonnet-5', line: 'sonnet', created_at: '2026-05-20T00:00:00Z' },
  { id: 'claude-opus-4-5', line: 'opus', lifecycle: 'deprecated', created_at: '2025-11-01T00:00:00Z', retires_at: '2027-01-22T00:00:00Z' },
  { id: 'claude-sonnet-4-5', line: 'sonnet', lifecycle: 'retired', created_at: '2025-09-29T00:00:00Z', retires_at: '2026-11-30T00:00:00Z' },
];

function modelObject(m: ServerModel): Record<string, unknown> {
  return {
    type: 'model', id: m.id, display_name: m.id, created_at: m.created_at, line: m.line ?? null, lifecycle: m.lifecycle ?? 'active',
    deprecated_at: m.lifecycle && m.lifecycle !== 'active' ? '2026-06-01T00:00:00Z' : null, retires_at: m.retires_at ?? null,
    max_input_tokens: 200_000, max_tokens: m.max_tokens ?? 64_000, capabilities: null,
  };
}

/**
 * What the real API refuses in a conversation: a tool_use left without its tool_result in the next
 * user turn, and a thinking block it issued that does not come back verbatim (same text, same
 * signature) in front of the tool_use it preceded.
 */
function conversationProblem(messages: readonly Record<string, unknown>[], issued: ReadonlyMap<string, { thinking: string; signature: string }>): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const blocks = m.content as { type?: string; id?: string; thinking?: string; signature?: string }[];
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
    for (const id of uses) {
      const t = issued.get(id);
      if (t && !blocks.some((b) => b.type === 'thinking' && b.thinking === t.thinking && b.signature === t.signature)) {
        return `messages.${i}.content: the thinking block that preceded tool_use ${id} must be passed back unmodified (with its signature) when continuing a conversation`;
      }
    }
    const next = messages[i + 1];
    if (!uses.length || !next) continue;
    const answered = new Set(Array.isArray(next.content) ? (next.content as { type?: string; tool_use_id?: string }[]).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : []);
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length) return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

let seq = 0;
const id = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(++seq).toString(36).padStart(6, '0')}`;

function sendError(res: http.ServerResponse, status: number, message: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }));
}

type Block = { type: 'thinking'; thinking: string; signature: string } | { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

function blocksOf(r: Extract<ScriptedReply, { kind: 'turn' }>): Block[] {
  const blocks: Block[] = [];
  if (r.reasoning) blocks.push({ type: 'thinking', thinking: r.reasoning, signature: `sig-${seq}` });
  if (r.text) blocks.push({ type: 'text', text: r.text });
  for (const c of r.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id ?? id('toolu'), name: c.name, input: c.input });
  return blocks;
}

function chunks(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length ? out : [''];
}

/** Writes the turn as the Messages API's server-sent events, tool input streamed as `input_json_delta`. */
function writeStream(res: http.ServerResponse, model: string, r: Extract<ScriptedReply, { kind: 'turn' }>, blocks: readonly Block[]): void {
  const usage = r.usage ?? { input: 50, output: 10 };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id('req') });
  let sent = 0;
  let ended = false;
  const stalled = (): boolean => ended || (r.stallAfterEvents !== undefined && sent >= r.stallAfterEvents);
  const ev = (name: string, data: unknown): void => {
    if (stalled()) return;
    if (r.cutAfterEvents !== undefined && sent >= r.cutAfterEvents) {
      // Let what was written reach the client first: the cut is mid-answer, not before it.
      ended = true;
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (r.errorAfterEvents !== undefined && sent >= r.errorAfterEvents) {
      ended = true;
      const type = r.errorType ?? 'overloaded_error';
      res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: type === 'overloaded_error' ? 'Overloaded' : 'scripted in-stream error' } })}\n\n`);
      return;
    }
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    sent++;
  };
  ev('message_start', { type: 'message_start', message: { id: id('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0 } } });
  ev('ping', { type: 'ping' });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const part of chunks(b.text, 7)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
    } else if (b.type === 'thinking') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const part of chunks(b.thinking, 9)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: part } });
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    } else {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const part of chunks(JSON.stringify(b.input), 5)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
  });
  const stop = r.stopReason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } });
  ev('message_stop', { type: 'message_stop' });
  // A stalled stream stays open until the client gives up (aborts) or the server closes.
  if (!stalled()) { res.end(); return; }
}

function messageOf(model: string, r: Extract<ScriptedReply, { kind: 'turn' }>, blocks: readonly Block[] = blocksOf(r)): Record<string, unknown> {
  const usage = r.usage ?? { input: 50, output: 10 };
  return {
    id: id('msg'), type: 'message', role: 'assistant', model, content: blocks,
    stop_reason: r.stopReason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'), stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0 },
  };
}

function writeJson(res: http.ServerResponse, model: string, r: Extract<ScriptedReply, { kind: 'turn' }>, blocks: readonly Block[]): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(JSON.stringify(messageOf(model, r, blocks)));
}

/** The batch object as `retrieve` returns it; `results_url` only once it has ended. */
function batchObject(baseUrl: string, batchId: string, b: BatchState, ended: boolean): Record<string, unknown> {
  const n = b.requests.length;
  return {
    id: batchId, type: 'message_batch', processing_status: ended ? 'ended' : b.canceled ? 'canceling' : 'in_progress',
    request_counts: { processing: ended ? 0 : n, succeeded: ended && !b.canceled ? n : 0, errored: 0, canceled: ended && b.canceled ? n : 0, expired: 0 },
    created_at: new Date(0).toISOString(), expires_at: new Date(86_400_000).toISOString(), ended_at: ended ? new Date().toISOString() : null,
    archived_at: null, cancel_initiated_at: b.canceled ? new Date().toISOString() : null,
    results_url: ended ? `${baseUrl}/v1/messages/batches/${batchId}/results` : null,
  };
}

/**
 * A local server on 127.0.0.1 that speaks the Anthropic Messages API for real: it checks the key
 * (Bearer or x-api-key) and `anthropic-version`, answers JSON or SSE as the request asks, and returns
 * the API's error shapes (429 with retry-after, 529 overloaded) or drops the connection when scripted.
 */
export async function startAnthropicServer(options: AnthropicServerOptions): Promise<AnthropicScriptedServer> {
  const requests: RecordedRequest[] = [];
  const batches = new Map<string, BatchState>();
  const issuedThinking = new Map<string, { thinking: string; signature: string }>();
  const auth = options.auth ?? 'either';
  const version = options.version ?? '2026-10-21';
  let baseUrl = '';
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const route = req.url?.split('?')[0] ?? '';
      if (route.startsWith('/v1/messages/batches')) return handleBatches(req, res, route, Buffer.concat(parts));
      if (route.startsWith('/v1/models')) return handleModels(req, res, route);
      if (req.method !== 'POST' || route !== '/v1/messages') return sendError(res, 404, `no route ${req.method} ${req.url}`);
      const bearer = req.headers.authorization === `Bearer ${options.apiKey}`;
      const xKey = req.headers['x-api-key'] === options.apiKey;
      const authOk = auth === 'bearer' ? bearer : auth === 'x-api-key' ? xKey : bearer || xKey;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        return sendError(res, 400, 'request body is not JSON');
      }
      const rec: RecordedRequest = { method: req.method, path: req.url ?? route, headers: req.headers, body, index: requests.length };
      requests.push(rec);
      if (!authOk) return sendError(res, 401, 'invalid x-api-key');
      if (req.headers['anthropic-version'] !== version) return sendError(res, 400, `anthropic-version must be ${version} (got ${String(req.headers['anthropic-version'])})`);
      if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) return sendError(res, 400, 'model, max_tokens and messages are required');
      if (options.models) {
        const m = options.models.find((x) => x.id === body.model);
        if (!m || m.lifecycle === 'retired') return sendError(res, 404, `model: ${body.model}`);
      }
      const choice = body.tool_choice as { type?: string } | undefined;
      if (options.refuseForcedTool?.includes(body.model) && (choice?.type === 'tool' || choice?.type === 'any')) {
        return sendError(res, 400, 'tool_choice: type "tool" and "any" are not supported for this model.');
      }
      const problem = conversationProblem(body.messages as Record<string, unknown>[], issuedThinking);
      if (problem) return sendError(res, 400, problem);
      const reply = options.script(rec);
      if (reply.kind === 'drop') { req.socket.destroy(); return; }
      if (reply.kind === 'error') return sendError(res, reply.status, reply.message ?? (reply.status === 529 ? 'Overloaded' : `scripted ${reply.status}`), reply.headers);
      const blocks = blocksOf(reply);
      const thinking = blocks.find((b): b is Extract<Block, { type: 'thinking' }> => b.type === 'thinking');
      if (thinking) for (const b of blocks) if (b.type === 'tool_use') issuedThinking.set(b.id, { thinking: thinking.thinking, signature: thinking.signature });
      if (body.stream === true) writeStream(res, body.model, reply, blocks);
      else writeJson(res, body.model, reply, blocks);
    });
  });

  /** The Models API: the catalogue with lifecycles; retired models only when `lifecycle` asks for them. */
  function handleModels(req: http.IncomingMessage, res: http.ServerResponse, route: string): void {
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body: {}, index: requests.length });
    const bearer = req.headers.authorization === `Bearer ${options.apiKey}`;
    const xKey = req.headers['x-api-key'] === options.apiKey;
    if (!(auth === 'bearer' ? bearer : auth === 'x-api-key' ? xKey : bearer || xKey)) return sendError(res, 401, 'invalid x-api-key');
    // Without a catalogue every model asked for exists (older tests name models freely).
    const catalogue = options.models ?? DEFAULT_CATALOGUE;
    const one = /^\/v1\/models\/([^/]+)$/.exec(route);
    if (one && !options.models) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(modelObject({ id: decodeURIComponent(one[1]!), created_at: '2026-01-01T00:00:00Z' })));
    }
    res.setHeader('request-id', id('req'));
    if (one) {
      const m = catalogue.find((x) => x.id === decodeURIComponent(one[1]!));
      if (!m) return sendError(res, 404, `model: ${decodeURIComponent(one[1]!)}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(modelObject(m)));
    }
    const withRetired = /lifecycle[^&]*=retired/.test(decodeURIComponent(req.url ?? ''));
    const data = catalogue.filter((m) => withRetired || m.lifecycle !== 'retired').map(modelObject);
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }));
  }

  /**
   * The Message Batches endpoints: create (each request's params recorded and later answered by the
   * script), retrieve (in_progress for `batchPolls` calls, then ended with a results_url), results
   * (JSONL, one line per request, by custom_id) and cancel.
   */
  function handleBatches(req: http.IncomingMessage, res: http.ServerResponse, route: string, raw: Buffer): void {
    const bearer = req.headers.authorization === `Bearer ${options.apiKey}`;
    const xKey = req.headers['x-api-key'] === options.apiKey;
    const authOk = auth === 'bearer' ? bearer : auth === 'x-api-key' ? xKey : bearer || xKey;
    let body: Record<string, unknown> = {};
    if (raw.length) {
      try { body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>; } catch { return sendError(res, 400, 'request body is not JSON'); }
    }
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body, index: requests.length });
    if (!authOk) return sendError(res, 401, 'invalid x-api-key');
    if (req.headers['anthropic-version'] !== version) return sendError(res, 400, `anthropic-version must be ${version} (got ${String(req.headers['anthropic-version'])})`);
    const m = /^\/v1\/messages\/batches(?:\/([^/]+))?(?:\/(results|cancel))?$/.exec(route);
    if (!m) return sendError(res, 404, `no route ${req.method} ${req.url}`);
    const batchId = m[1];
    const action = m[2];
    if (!batchId) {
      if (req.method !== 'POST' || !Array.isArray(body.requests) || !body.requests.length) return sendError(res, 400, 'requests: a non-empty list is required');
      const newId = id('msgbatch');
      const state: BatchState = { requests: body.requests as BatchState['requests'], polls: 0, canceled: false };
      batches.set(newId, state);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
      return void res.end(JSON.stringify(batchObject(baseUrl, newId, state, false)));
    }
    const b = batches.get(batchId);
    if (!b) return sendError(res, 404, `no batch ${batchId}`);
    const ended = b.polls > (options.batchPolls ?? 1);
    if (action === 'cancel' && req.method === 'POST') {
      b.canceled = true;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
      return void res.end(JSON.stringify(batchObject(baseUrl, batchId, b, ended)));
    }
    if (action === 'results' && req.method === 'GET') {
      if (!ended) return sendError(res, 400, `batch ${batchId} has not ended`);
      res.writeHead(200, { 'content-type': 'application/binary', 'request-id': id('req') });
      const lines = b.requests.map((r) => {
        if (b.canceled) return { custom_id: r.custom_id, result: { type: 'canceled' } };
        const choice = r.params.tool_choice as { type?: string } | undefined;
        if (options.refuseForcedTool?.includes(String(r.params.model)) && (choice?.type === 'tool' || choice?.type === 'any')) {
          return { custom_id: r.custom_id, result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'tool_choice: type "tool" and "any" are not supported for this model.' }, request_id: null } } };
        }
        const rec: RecordedRequest = { method: 'BATCH', path: `${route}#${r.custom_id}`, headers: req.headers, body: r.params, index: requests.length };
        requests.push(rec);
        const reply = options.script(rec);
        if (reply.kind !== 'turn') return { custom_id: r.custom_id, result: { type: 'errored', error: { type: 'error', error: { type: ERROR_TYPES[reply.kind === 'error' ? reply.status : 500] ?? 'api_error', message: 'scripted failure' }, request_id: null } } };
        return { custom_id: r.custom_id, result: { type: 'succeeded', message: messageOf(String(r.params.model), reply) } };
      });
      // Results come back out of request order, as the API warns they may.
      return void res.end(lines.reverse().map((l) => JSON.stringify(l)).join('\n') + '\n');
    }
    if (!action && req.method === 'GET') {
      b.polls++;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
      return void res.end(JSON.stringify(batchObject(baseUrl, batchId, b, b.polls > (options.batchPolls ?? 1))));
    }
    return sendError(res, 404, `no route ${req.method} ${req.url}`);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    requests,
    batches,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
