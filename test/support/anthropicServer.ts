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
}

export interface ScriptedServer {
  /** Base URL to give the client (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error',
};

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
function writeStream(res: http.ServerResponse, model: string, r: Extract<ScriptedReply, { kind: 'turn' }>): void {
  const blocks = blocksOf(r);
  const usage = r.usage ?? { input: 50, output: 10 };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id('req') });
  const ev = (name: string, data: unknown): void => { res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`); };
  ev('message_start', { type: 'message_start', message: { id: id('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } });
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
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } });
  ev('message_stop', { type: 'message_stop' });
  res.end();
}

function writeJson(res: http.ServerResponse, model: string, r: Extract<ScriptedReply, { kind: 'turn' }>): void {
  const blocks = blocksOf(r);
  const usage = r.usage ?? { input: 50, output: 10 };
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(JSON.stringify({
    id: id('msg'), type: 'message', role: 'assistant', model, content: blocks,
    stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }));
}

/**
 * A local server on 127.0.0.1 that speaks the Anthropic Messages API for real: it checks the key
 * (Bearer or x-api-key) and `anthropic-version`, answers JSON or SSE as the request asks, and returns
 * the API's error shapes (429 with retry-after, 529 overloaded) or drops the connection when scripted.
 */
export async function startAnthropicServer(options: AnthropicServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const auth = options.auth ?? 'either';
  const version = options.version ?? '2026-10-21';
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') return sendError(res, 404, `no route ${req.method} ${req.url}`);
      const bearer = req.headers.authorization === `Bearer ${options.apiKey}`;
      const xKey = req.headers['x-api-key'] === options.apiKey;
      const authOk = auth === 'bearer' ? bearer : auth === 'x-api-key' ? xKey : bearer || xKey;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        return sendError(res, 400, 'request body is not JSON');
      }
      const rec: RecordedRequest = { method: req.method, path: req.url, headers: req.headers, body, index: requests.length };
      requests.push(rec);
      if (!authOk) return sendError(res, 401, 'invalid x-api-key');
      if (req.headers['anthropic-version'] !== version) return sendError(res, 400, `anthropic-version must be ${version} (got ${String(req.headers['anthropic-version'])})`);
      if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) return sendError(res, 400, 'model, max_tokens and messages are required');
      const reply = options.script(rec);
      if (reply.kind === 'drop') { req.socket.destroy(); return; }
      if (reply.kind === 'error') return sendError(res, reply.status, reply.message ?? (reply.status === 529 ? 'Overloaded' : `scripted ${reply.status}`), reply.headers);
      if (body.stream === true) writeStream(res, body.model, reply);
      else writeJson(res, body.model, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
