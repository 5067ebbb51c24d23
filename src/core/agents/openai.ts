import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions/completions';
import type { ChatMessage, ChatModel, ModelTurn, ToolCall, ToolSpec } from './chat';

export interface OpenAICompatibleOptions {
  readonly model: string;
  /** `http://host:8000/v1` for vLLM / SGLang, `http://host:11434/v1` for Ollama. */
  readonly baseURL?: string;
  /** Sent as `Authorization: Bearer`; self-hosted servers usually accept any value. */
  readonly apiKey?: string;
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  readonly stream?: boolean;
  readonly temperature?: number;
}

/** Servers that reason send it as `reasoning_content` (vLLM, SGLang, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
function reasoningOf(v: unknown): string {
  if (typeof v !== 'object' || v === null) return '';
  const o = v as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof o.reasoning_content === 'string') return o.reasoning_content;
  if (typeof o.reasoning === 'string') return o.reasoning;
  return '';
}

export function toOpenAIMessages(system: string, messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'tool') for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
    else {
      out.push({
        role: 'assistant',
        content: m.text || null,
        ...(m.toolCalls.length ? {
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id, type: 'function' as const,
            function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) },
          })),
        } : {}),
      });
    }
  }
  return out;
}

function usageOf(u: ChatCompletion['usage'] | undefined | null): ModelTurn['usage'] {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? undefined;
  return { input: (u?.prompt_tokens ?? 0) - (cached ?? 0), output: u?.completion_tokens ?? 0, ...(cached ? { cacheRead: cached } : {}) };
}

export function fromCompletion(c: ChatCompletion): ModelTurn {
  const choice = c.choices[0];
  const msg = choice?.message;
  const toolCalls: ToolCall[] = (msg?.tool_calls ?? []).flatMap((t) => (t.type === 'function' ? [{ id: t.id, name: t.function.name, args: t.function.arguments }] : []));
  const reasoning = reasoningOf(msg);
  return {
    text: msg?.content ?? '',
    ...(reasoning ? { reasoning } : {}),
    toolCalls,
    usage: usageOf(c.usage),
    ...(choice?.finish_reason ? { stopReason: choice.finish_reason } : {}),
  };
}

/** Folds a chat-completions stream into one turn: text, reasoning and tool-call fragments by index. */
export async function foldChunks(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ModelTurn> {
  let text = '';
  let reasoning = '';
  let stopReason: string | undefined;
  let usage: ModelTurn['usage'] = { input: 0, output: 0 };
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for await (const chunk of chunks) {
    if (chunk.usage) usage = usageOf(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta;
      if (d?.content) text += d.content;
      reasoning += reasoningOf(d);
      for (const t of d?.tool_calls ?? []) {
        const cur = calls.get(t.index) ?? { id: '', name: '', args: '' };
        if (t.id) cur.id = t.id;
        if (t.function?.name) cur.name += t.function.name;
        if (t.function?.arguments) cur.args += t.function.arguments;
        calls.set(t.index, cur);
      }
      if (choice.finish_reason) stopReason = choice.finish_reason;
    }
  }
  const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0])
    .map(([i, c]) => ({ id: c.id || `call_${i}`, name: c.name, args: c.args }));
  return { text, ...(reasoning ? { reasoning } : {}), toolCalls, usage, ...(stopReason ? { stopReason } : {}) };
}

/** OpenAI-compatible chat completions with tools (vLLM, SGLang, Ollama, OpenAI itself). */
export class OpenAICompatibleChat implements ChatModel {
  readonly provider = 'openai';
  readonly model: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.model = options.model;
    this.client = new OpenAI({
      // Self-hosted servers rarely check keys, but the SDK insists on one; it is never logged.
      apiKey: options.apiKey ?? 'EMPTY',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 4,
      timeout: options.timeoutMs ?? 600_000,
      organization: null,
      project: null,
      logLevel: 'off',
    });
  }

  async turn(system: string, messages: readonly ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelTurn> {
    const body = {
      model: this.model,
      messages: toOpenAIMessages(system, messages),
      tools: tools.map((t): ChatCompletionTool => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> } })),
      ...(this.options.maxTokens ? { max_tokens: this.options.maxTokens } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
    };
    if (this.options.stream ?? true) {
      const stream = await this.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal });
      return foldChunks(stream);
    }
    return fromCompletion(await this.client.chat.completions.create({ ...body, stream: false }, { signal }));
  }
}
