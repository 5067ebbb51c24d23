import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatMessage, ChatModel, ModelTurn, ToolSpec } from './chat';

/** The Messages API version this client is written and tested against (pinned, not left to the SDK). */
export const ANTHROPIC_VERSION = '2026-10-21';

export interface AnthropicOptions {
  readonly model: string;
  /** API key: sent as `Authorization: Bearer` (the SDK's way) or as `x-api-key` (`authHeader`). */
  readonly apiKey?: string;
  /** OAuth / gateway token, sent as `Authorization: Bearer`. */
  readonly authToken?: string;
  readonly authHeader?: 'bearer' | 'x-api-key';
  readonly baseURL?: string;
  /** Retries of 408/409/429/5xx/529 and dropped connections, honouring `retry-after` (default 4). */
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  /** Server-sent events (default) or one JSON response per turn. */
  readonly stream?: boolean;
}

export class MissingKeyError extends Error {}

function toParam(block: ContentBlock): ContentBlockParam | undefined {
  switch (block.type) {
    case 'text': return { type: 'text', text: block.text };
    case 'tool_use': return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'thinking': return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking': return { type: 'redacted_thinking', data: block.data };
    default: return undefined;
  }
}

export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  return messages.map((m): MessageParam => {
    if (m.role === 'user') return { role: 'user', content: m.text };
    if (m.role === 'tool') {
      return { role: 'user', content: m.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, ...(r.isError ? { is_error: true } : {}) })) };
    }
    if (Array.isArray(m.raw)) {
      const blocks = (m.raw as ContentBlock[]).map(toParam).filter((b): b is ContentBlockParam => b !== undefined);
      if (blocks.length) return { role: 'assistant', content: blocks };
    }
    const blocks: ContentBlockParam[] = [];
    if (m.text) blocks.push({ type: 'text', text: m.text });
    for (const c of m.toolCalls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: typeof c.args === 'object' && c.args !== null ? c.args : {} });
    return { role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '(no output)' }] };
  });
}

export function fromAnthropicMessage(msg: Message): ModelTurn {
  const text = msg.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
  const reasoning = msg.content.filter((b) => b.type === 'thinking').map((b) => (b as { thinking: string }).thinking).join('');
  const toolCalls = msg.content.filter((b) => b.type === 'tool_use').map((b) => {
    const t = b as { id: string; name: string; input: unknown };
    return { id: t.id, name: t.name, args: t.input };
  });
  const u = msg.usage;
  return {
    text,
    ...(reasoning ? { reasoning } : {}),
    toolCalls,
    usage: {
      input: u.input_tokens,
      output: u.output_tokens,
      ...(u.cache_read_input_tokens ? { cacheRead: u.cache_read_input_tokens } : {}),
      ...(u.cache_creation_input_tokens ? { cacheWrite: u.cache_creation_input_tokens } : {}),
    },
    ...(msg.stop_reason ? { stopReason: msg.stop_reason } : {}),
    raw: msg.content,
  };
}

/** Claude through the official SDK (Messages API with tools), streaming by default. */
export class AnthropicChat implements ChatModel {
  readonly provider = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;
  private readonly stream: boolean;
  private readonly maxTokens: number;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.stream = options.stream ?? true;
    this.maxTokens = options.maxTokens ?? 4096;
    const key = options.apiKey;
    if (!key && !options.authToken) throw new MissingKeyError('no Anthropic key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or store one with "Taskwright: Set API Key"');
    const xApiKey = options.authHeader === 'x-api-key' && key;
    this.client = new Anthropic({
      ...(options.authToken && !key ? { authToken: options.authToken } : { apiKey: key ?? null }),
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 4,
      timeout: options.timeoutMs ?? 600_000,
      // Pinned here so a newer SDK cannot silently change the wire contract; a null Authorization
      // drops the SDK's Bearer header when the endpoint wants the key as x-api-key instead.
      defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION, ...(xApiKey ? { 'x-api-key': key, Authorization: null } : {}) },
      logLevel: 'off',
    });
  }

  async turn(system: string, messages: readonly ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelTurn> {
    const params: MessageCreateParamsNonStreaming = {
      model: this.model,
      max_tokens: this.maxTokens,
      system,
      messages: toAnthropicMessages(messages),
      tools: tools.map((t): Tool => ({ name: t.name, description: t.description, input_schema: t.parameters as Tool['input_schema'] })),
    };
    const msg = this.stream
      ? await this.client.messages.stream(params, { signal }).finalMessage()
      : await this.client.messages.create(params, { signal });
    return fromAnthropicMessage(msg);
  }
}
