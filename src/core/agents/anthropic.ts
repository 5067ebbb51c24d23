import type { ContentBlock, ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { createClient, endpointOf, type Credentials } from '../llm/client';
import { assistantContent, toolUses } from '../llm/conversation';
import { ModelCaller } from '../llm/request';
import type { ChatMessage, ChatModel, ModelTurn, ToolSpec } from './chat';

export { ANTHROPIC_VERSION, MissingKeyError } from '../llm/client';

export interface AnthropicOptions extends Credentials {
  readonly model: string;
  /** Retries of 429/5xx/529, in-stream overloads and dropped streams, honouring `retry-after` (default 4). */
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  /** Waits and fallbacks, as lines for the trial's log. */
  readonly onNotice?: (line: string) => void;
}

export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  return messages.map((m): MessageParam => {
    if (m.role === 'user') return { role: 'user', content: m.text };
    if (m.role === 'tool') {
      return { role: 'user', content: m.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, ...(r.isError ? { is_error: true } : {}) })) };
    }
    // The model's own content goes back verbatim: thinking blocks and their signatures included.
    if (Array.isArray(m.raw) && m.raw.length) return { role: 'assistant', content: assistantContent(m.raw as ContentBlock[]) };
    const blocks: ContentBlockParam[] = [];
    if (m.text) blocks.push({ type: 'text', text: m.text });
    for (const c of m.toolCalls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: typeof c.args === 'object' && c.args !== null ? c.args : {} });
    return { role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '(no output)' }] };
  });
}

/** Claude for the terminal agent, through the model layer (streamed, retried with visible waits). */
export class AnthropicChat implements ChatModel {
  readonly provider = 'anthropic';
  readonly model: string;
  private readonly caller: ModelCaller;
  private readonly maxTokens: number;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.maxTokens = options.maxTokens ?? 4096;
    this.caller = new ModelCaller({
      client: createClient(options, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      endpoint: endpointOf(options), model: options.model, retry: { maxAttempts: (options.maxRetries ?? 4) + 1 },
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    });
  }

  async turn(system: string, messages: readonly ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelTurn> {
    const a = await this.caller.send({
      system, messages: toAnthropicMessages(messages), maxTokens: this.maxTokens,
      tools: tools.map((t): Tool => ({ name: t.name, description: t.description, input_schema: t.parameters as Tool['input_schema'] })),
    }, signal);
    const msg = a.message;
    const text = msg.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
    const reasoning = msg.content.filter((b) => b.type === 'thinking').map((b) => (b as { thinking: string }).thinking).join('');
    return {
      text,
      ...(reasoning ? { reasoning } : {}),
      toolCalls: toolUses(msg.content).map((t) => ({ id: t.id, name: t.name, args: t.input })),
      usage: {
        input: a.usage.input, output: a.usage.output,
        ...(a.usage.cacheRead ? { cacheRead: a.usage.cacheRead } : {}),
        ...(a.usage.cacheWrite ? { cacheWrite: a.usage.cacheWrite } : {}),
      },
      ...(msg.stop_reason ? { stopReason: a.truncated ? 'max_tokens (truncated)' : msg.stop_reason } : {}),
      raw: msg.content,
    };
  }
}
