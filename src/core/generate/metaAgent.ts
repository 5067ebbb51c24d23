import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { ANTHROPIC_VERSION, MissingKeyError } from '../agents/anthropic';
import { costUsd } from '../agents/pricing';
import type { TaskFormat } from '../model/task';
import { submitTool } from './layout';
import { systemPrompt } from './prompt';
import type { Usage } from './types';

export interface MetaAgentOptions {
  readonly model: string;
  readonly format: TaskFormat;
  readonly apiKey?: string;
  readonly authToken?: string;
  readonly baseURL?: string;
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  /** Batch polling interval (default 10 s; tests use less). */
  readonly pollMs?: number;
}

/** One answer of the meta-agent: the `submit_task` input (unchecked) and what it cost. */
export interface MetaTurn {
  /** The tool input, or undefined when the model answered without calling the tool. */
  readonly input: unknown;
  readonly toolUseId?: string;
  /** The assistant content to keep in the conversation (so repairs continue it). */
  readonly content: ContentBlockParam[];
  readonly usage: Usage;
  readonly costUsd?: number;
  readonly stopReason?: string;
}

/** A conversation with the meta-agent about one task: first request, then repair feedback as tool results. */
export class Conversation {
  readonly messages: MessageParam[] = [];

  constructor(firstRequest: string) {
    this.messages.push({ role: 'user', content: firstRequest });
  }

  addAnswer(turn: MetaTurn): void {
    this.messages.push({ role: 'assistant', content: turn.content.length ? turn.content : [{ type: 'text', text: '(no answer)' }] });
  }

  /** Feedback goes back as the tool's (failed) result, so the model sees it as the outcome of its call. */
  addFeedback(turn: MetaTurn, feedback: string): void {
    if (turn.toolUseId) this.messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: turn.toolUseId, content: feedback, is_error: true }] });
    else this.messages.push({ role: 'user', content: `${feedback}\n\nYou must answer by calling submit_task.` });
  }
}

function toParam(block: ContentBlock): ContentBlockParam | undefined {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'tool_use') return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  return undefined;
}

function usageOf(msg: Message): Usage {
  const u = msg.usage;
  return { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
}

export function turnOf(msg: Message, model: string, discount = 1): MetaTurn {
  const tool = msg.content.find((b) => b.type === 'tool_use' && b.name === 'submit_task') as { id: string; input: unknown } | undefined;
  const usage = usageOf(msg);
  const cost = costUsd(model, usage);
  return {
    input: tool?.input,
    ...(tool ? { toolUseId: tool.id } : {}),
    content: msg.content.map(toParam).filter((b): b is ContentBlockParam => b !== undefined),
    usage,
    ...(cost !== undefined ? { costUsd: cost * discount } : {}),
    ...(msg.stop_reason ? { stopReason: msg.stop_reason } : {}),
  };
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve, reject) => {
  if (signal?.aborted) { reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled')); return; }
  const onAbort = (): void => { clearTimeout(t); reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled')); };
  const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  signal?.addEventListener('abort', onAbort, { once: true });
});

/**
 * The meta-agent: Claude through the official SDK, forced to answer with the `submit_task` tool,
 * streaming (progress in tokens), the stable prefix (tools + system prompt) cached, the SDK's
 * retries and back-off (429 with retry-after, 529, dropped connections), and cancellation by signal.
 */
export class MetaAgent {
  private readonly client: Anthropic;
  private readonly tool: Tool;
  private readonly system: string;

  constructor(private readonly options: MetaAgentOptions) {
    if (!options.apiKey && !options.authToken) throw new MissingKeyError('no Anthropic key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or store one with "Taskwright: Set API Key"');
    this.client = new Anthropic({
      ...(options.apiKey ? { apiKey: options.apiKey } : { apiKey: null, authToken: options.authToken ?? null }),
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 4,
      timeout: options.timeoutMs ?? 600_000,
      defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
      logLevel: 'off',
    });
    this.tool = submitTool(options.format) as Tool;
    this.system = systemPrompt(options.format);
  }

  get model(): string {
    return this.options.model;
  }

  /** The request for one turn; the cache breakpoint on the system prompt caches tools + system. */
  params(messages: readonly MessageParam[]): MessageCreateParamsNonStreaming {
    return {
      model: this.options.model,
      max_tokens: this.options.maxTokens ?? 16_000,
      system: [{ type: 'text', text: this.system, cache_control: { type: 'ephemeral' } }],
      tools: [this.tool],
      tool_choice: { type: 'tool', name: 'submit_task' },
      messages: [...messages],
    };
  }

  /** One streamed turn; `onTokens` gets a running estimate while the tool input streams, then the real count. */
  async turn(conv: Conversation, signal: AbortSignal, onTokens?: (tokens: number) => void): Promise<MetaTurn> {
    signal.throwIfAborted();
    const stream = this.client.messages.stream(this.params(conv.messages), { signal });
    let chars = 0;
    let lastReported = -1;
    const report = (n: number): void => { if (n !== lastReported) { lastReported = n; onTokens?.(n); } };
    stream.on('inputJson', (partial) => { chars += partial.length; report(Math.ceil(chars / 4)); });
    stream.on('text', (delta) => { chars += delta.length; report(Math.ceil(chars / 4)); });
    const msg = await stream.finalMessage();
    report(msg.usage.output_tokens);
    return turnOf(msg, this.options.model);
  }

  /**
   * First turns of many conversations through the Message Batches API (half price): create, poll
   * until it ends, stream the JSONL results. Cancels the batch when the signal aborts.
   */
  async batchFirstTurns(convs: readonly Conversation[], signal: AbortSignal, onStatus?: (status: string) => void): Promise<(MetaTurn | Error)[]> {
    signal.throwIfAborted();
    const requests = convs.map((c, i) => ({ custom_id: `task-${i + 1}`, params: this.params(c.messages) }));
    const batch = await this.client.messages.batches.create({ requests }, { signal });
    onStatus?.(`batch ${batch.id}: ${batch.processing_status}`);
    try {
      let current = batch;
      while (current.processing_status !== 'ended') {
        await sleep(this.options.pollMs ?? 10_000, signal);
        current = await this.client.messages.batches.retrieve(batch.id, {}, { signal });
        const c = current.request_counts;
        onStatus?.(`batch ${batch.id}: ${current.processing_status} (${c.succeeded} succeeded, ${c.processing} processing, ${c.errored} errored)`);
      }
      const out: (MetaTurn | Error)[] = convs.map(() => new Error('no result in the batch'));
      const results = await this.client.messages.batches.results(batch.id, {}, { signal });
      for await (const r of results) {
        const i = Number(/^task-(\d+)$/.exec(r.custom_id)?.[1] ?? NaN) - 1;
        if (!(i >= 0 && i < out.length)) continue;
        out[i] = r.result.type === 'succeeded'
          ? turnOf(r.result.message, this.options.model, 0.5)
          : new Error(r.result.type === 'errored' ? `batch request failed: ${r.result.error.error.message}` : `batch request ${r.result.type}`);
      }
      return out;
    } catch (e) {
      // A cancelled request cancels its batch too, so nothing keeps running (and billing) after it.
      if (signal.aborted) await this.client.messages.batches.cancel(batch.id).catch(() => undefined);
      throw e;
    }
  }
}
