import type { ContentBlockParam, Message, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { createClient, endpointOf, type Credentials } from '../llm/client';
import { assistantContent, Conversation as LlmConversation, toolUses } from '../llm/conversation';
import { sendBatch } from '../llm/batch';
import type { RetryPolicy } from '../llm/faults';
import { ModelCaller, usageOf, type ModelRequest } from '../llm/request';
import type { TaskFormat } from '../model/task';
import { submitTool } from './layout';
import { systemPrompt } from './prompt';
import type { Usage } from './types';

export const SUBMIT_TOOL = 'submit_task';

export interface MetaAgentOptions extends Credentials {
  readonly format: TaskFormat;
  /** The model layer's caller (model checked, notices wired); without one, one is made from the credentials. */
  readonly caller?: ModelCaller;
  readonly model?: string;
  /** Retries of overloads, rate limits and dropped streams after the first attempt (default 4). */
  readonly maxRetries?: number;
  readonly retry?: RetryPolicy;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  /** Batch polling interval (default 10 s; tests use less). */
  readonly pollMs?: number;
  readonly onNotice?: (line: string) => void;
}

/** One answer of the meta-agent: the `submit_task` input (unchecked) and what it cost. */
export interface MetaTurn {
  /** The tool input, or undefined when the model answered without calling the tool. */
  readonly input: unknown;
  readonly toolUseId?: string;
  /** The assistant content to keep in the conversation, thinking blocks verbatim. */
  readonly content: ContentBlockParam[];
  readonly usage: Usage;
  readonly costUsd?: number;
  readonly stopReason?: string;
  /** Cut at max_tokens even after the retry with more room: the files did not fit. */
  readonly truncated?: boolean;
}

/** A conversation with the meta-agent about one task: first request, then repair feedback as tool results. */
export class Conversation extends LlmConversation {
  addAnswer(turn: MetaTurn): void {
    this.messages.push({ role: 'assistant', content: turn.content.length ? turn.content : [{ type: 'text', text: '(no answer)' }] });
  }

  /** Feedback goes back as the submit_task call's (failed) result; any other tool_use is answered too. */
  addFeedback(turn: MetaTurn, feedback: string): void {
    this.addReply((call) => (turn.toolUseId ? call.id === turn.toolUseId : call.name === SUBMIT_TOOL), feedback, true, SUBMIT_TOOL);
  }
}

export function turnOf(msg: Pick<Message, 'content' | 'usage' | 'stop_reason'>, extra: { usage?: Usage; costUsd?: number; truncated?: boolean } = {}): MetaTurn {
  const tool = toolUses(msg.content).find((b) => b.name === SUBMIT_TOOL);
  return {
    input: tool?.input,
    ...(tool ? { toolUseId: tool.id } : {}),
    content: assistantContent(msg.content),
    usage: extra.usage ?? usageOf(msg as Message),
    ...(extra.costUsd !== undefined ? { costUsd: extra.costUsd } : {}),
    ...(msg.stop_reason ? { stopReason: msg.stop_reason } : {}),
    ...(extra.truncated || msg.stop_reason === 'max_tokens' ? { truncated: true } : {}),
  };
}

/**
 * The meta-agent: Claude through the model layer, answering with the `submit_task` tool (forced
 * where the model accepts it, one call per answer), streamed with progress in tokens, the stable
 * prefix cached when long enough, overloads and dropped streams retried with visible waits.
 */
export class MetaAgent {
  readonly caller: ModelCaller;
  private readonly tool: Tool;
  private readonly system: string;

  constructor(private readonly options: MetaAgentOptions) {
    if (options.caller) this.caller = options.caller;
    else {
      if (!options.model) throw new Error('MetaAgent needs a model or a caller');
      const retry: RetryPolicy = options.retry ?? { maxAttempts: (options.maxRetries ?? 4) + 1 };
      this.caller = new ModelCaller({
        client: createClient(options, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), endpoint: endpointOf(options),
        model: options.model, retry, ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      });
    }
    this.tool = submitTool(options.format) as Tool;
    this.system = systemPrompt(options.format);
  }

  get model(): string {
    return this.caller.model;
  }

  request(messages: readonly MessageParam[]): ModelRequest {
    return { system: this.system, messages, tools: [this.tool], maxTokens: this.options.maxTokens ?? 16_000, answerTool: SUBMIT_TOOL, singleCall: true };
  }

  /** One streamed turn; `onTokens` gets a running estimate while the tool input streams, then the real count. */
  async turn(conv: Conversation, signal: AbortSignal, onTokens?: (tokens: number) => void): Promise<MetaTurn> {
    const a = await this.caller.send(this.request(conv.messages), signal, onTokens);
    return turnOf(a.message, { usage: a.usage, ...(a.costUsd !== undefined ? { costUsd: a.costUsd } : {}), truncated: a.truncated });
  }

  /**
   * First turns of many conversations through the Message Batches API (half price): create, poll
   * until it ends, stream the JSONL results (matched by custom_id: they come in any order). Cancels
   * the batch when the signal aborts. A failed item comes back as an Error (the pipeline streams it).
   */
  async batchFirstTurns(convs: readonly Conversation[], signal: AbortSignal, onStatus?: (status: string) => void): Promise<(MetaTurn | Error)[]> {
    const ids = convs.map((_, i) => `task-${i + 1}`);
    const items = await sendBatch(this.caller, convs.map((c, i) => ({ id: ids[i] as string, request: this.request(c.messages) })), signal, {
      ...(this.options.pollMs !== undefined ? { pollMs: this.options.pollMs } : {}), ...(onStatus ? { onStatus } : {}),
    });
    return ids.map((id) => {
      const item = items.get(id) ?? new Error('no result in the batch');
      return item instanceof Error ? item : turnOf(item.message, { usage: item.usage, ...(item.costUsd !== undefined ? { costUsd: item.costUsd } : {}) });
    });
  }
}
