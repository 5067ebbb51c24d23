import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedServer } from './anthropicServer';
import type { RecordedRequest, Script, ScriptedReply } from './scripted';

export interface OpenAIServerOptions {
  /** When set, `Authorization: Bearer <key>` is required. */
  readonly apiKey?: string;
  /** Field the server puts reasoning in: vLLM/SGLang send `reasoning_content`, Ollama `reasoning`. */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
  readonly script: Script;
}

let seq = 0;
const id = (prefix: string): string => `${prefix}-${Date.now().toString(36)}${(++seq).toString(36)}`;

function sendError(res: http.ServerResponse, status: number, message: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_request_error' : 'server_error', param: null, code: null } }));
}

type Turn = Extract<ScriptedReply, { kind: 'turn' }>;

function toolCallsOf(r: Turn): { id: string; type: 'function'; function: { name: string; arguments: string } }[] {
  return (r.toolCalls ?? []).map((c) => ({ id: c.id ?? id('call'), type: 'function', function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) } }));
}

function writeJson(res: http.ServerResponse, model: string, r: Turn, field: string): void {
  const calls = toolCallsOf(r);
  const usage = r.usage ?? { input: 50, output: 10 };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: id('chatcmpl'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message: { role: 'assistant', content: r.text ?? null, ...(r.reasoning ? { [field]: r.reasoning } : {}), ...(calls.length ? { tool_calls: calls } : {}) }, logprobs: null, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  }));
}

function writeStream(res: http.ServerResponse, model: string, r: Turn, field: string, includeUsage: boolean): void {
  const calls = toolCallsOf(r);
  const usage = r.usage ?? { input: 50, output: 10 };
  const base = { id: id('chatcmpl'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): void => {
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`);
  };
  chunk({ role: 'assistant', content: '' });
  if (r.reasoning) for (let i = 0; i < r.reasoning.length; i += 8) chunk({ [field]: r.reasoning.slice(i, i + 8) });
  if (r.text) for (let i = 0; i < r.text.length; i += 6) chunk({ content: r.text.slice(i, i + 6) });
  calls.forEach((c, index) => {
    chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
    for (let i = 0; i < c.function.arguments.length; i += 4) chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments.slice(i, i + 4) } }] });
  });
  chunk({}, calls.length ? 'tool_calls' : 'stop');
  if (includeUsage) res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * A local server on 127.0.0.1 that speaks OpenAI chat completions with `tool_calls` (JSON and SSE),
 * the way vLLM, SGLang and Ollama serve it, including their reasoning field.
 */
export async function startOpenAIServer(options: OpenAIServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const field = options.reasoningField ?? 'reasoning_content';
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/chat/completions') return sendError(res, 404, `no route ${req.method} ${req.url}`);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        return sendError(res, 400, 'request body is not JSON');
      }
      const rec: RecordedRequest = { method: req.method, path: req.url, headers: req.headers, body, index: requests.length };
      requests.push(rec);
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) return sendError(res, 401, 'Incorrect API key provided');
      if (typeof body.model !== 'string' || !Array.isArray(body.messages)) return sendError(res, 400, 'model and messages are required');
      const reply = options.script(rec);
      if (reply.kind === 'drop') { req.socket.destroy(); return; }
      if (reply.kind === 'error') return sendError(res, reply.status, reply.message ?? `scripted ${reply.status}`, reply.headers);
      const streamOpts = body.stream_options as { include_usage?: boolean } | undefined;
      if (body.stream === true) writeStream(res, body.model, reply, field, streamOpts?.include_usage === true);
      else writeJson(res, body.model, reply, field);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
