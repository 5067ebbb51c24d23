import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam, TextBlockParam, Tool, ToolChoice } from '@anthropic-ai/sdk/resources/messages/messages';
import { classify, ModelRequestError, RETRYABLE, retryDelayMs, sleep, type RetryPolicy } from './faults';
import { costUsd, minCacheTokens, type PriceOverrides } from './prices';

export interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}
export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  return { input: a.input + (b.input ?? 0), output: a.output + (b.output ?? 0), cacheRead: a.cacheRead + (b.cacheRead ?? 0), cacheWrite: a.cacheWrite + (b.cacheWrite ?? 0) };
}
export function usageOf(msg: Message): Usage {
  const u = msg.usage;
  return { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
}

/** One request to the model, independent of how it is sent (streamed now, or in a batch). */
export interface ModelRequest {
  /** The stable part of the system prompt (cached when long enough). */
  readonly system: string;
  readonly messages: readonly MessageParam[];
  readonly tools?: readonly Tool[];
  readonly maxTokens: number;
  /** The answer must come through this tool: forced where the model accepts it, else asked for in words. */
  readonly answerTool?: string;
  /** One tool call per answer (`disable_parallel_tool_use`). */
  readonly singleCall?: boolean;
}

export interface ModelAnswer {
  readonly message: Message;
  /** Every attempt's tokens that were billed (a truncated first try included). */
  readonly usage: Usage;
  readonly costUsd?: number;
  /** Stopped by max_tokens even after the retry with more room. */
  readonly truncated: boolean;
  readonly attempts: number;
}

export interface CallerOptions {
  readonly client: Anthropic;
  readonly endpoint: string;
  readonly model: string;
  readonly retry?: RetryPolicy;
  /** Visible lines: waits, fallbacks, truncation retries. Never carries a key. */
  readonly onNotice?: (line: string) => void;
  readonly prices?: PriceOverrides;
  /** Largest max_tokens a truncation retry may ask for (the model's own limit when known). */
  readonly maxTokensCeiling?: number;
}

/** Tokens of a text, under-estimated on purpose (≈4 characters a token) so a breakpoint is never placed too early. */
export const estimateTokens = (text: string): number => Math.floor(text.length / 4);

export function answerInstruction(tool: string): string {
  return `Answer by calling the \`${tool}\` tool exactly once, with the complete input; an answer in plain text is not read.`;
}

/**
 * The one way Taskwright talks to Claude: streamed Messages requests with its own retries (so every
 * wait is shown), the forced-tool fallback, one retry with more room after a max_tokens stop, cache
 * breakpoints only where the prefix is long enough to be cached, and costs from the dated price table.
 */
export class ModelCaller {
  /** Set once the model refused a forced tool_choice: the rest of the run asks through `auto`. */
  private refusesForcedTool = false;

  constructor(private readonly o: CallerOptions) {}

  get model(): string {
    return this.o.model;
  }

  get endpoint(): string {
    return this.o.endpoint;
  }

  /** The SDK client (for the Batches API, which has no streaming to retry). */
  get client(): Anthropic {
    return this.o.client;
  }

  /** Whether this caller will force `answerTool` (false once the model refused it). */
  forcesTool(): boolean {
    return !this.refusesForcedTool;
  }

  /** The request's parameters (also what a batch item carries). */
  params(req: ModelRequest, maxTokens = req.maxTokens): MessageCreateParamsNonStreaming {
    const tools = req.tools ? [...req.tools] : undefined;
    const forced = req.answerTool !== undefined && this.forcesTool();
    const prefix = `${JSON.stringify(tools ?? [])}${req.system}`;
    const cache = estimateTokens(prefix) >= minCacheTokens(this.o.model);
    const system: TextBlockParam[] = [{ type: 'text', text: req.system, ...(cache ? { cache_control: { type: 'ephemeral' as const } } : {}) }];
    // After the cached block, so switching to `auto` does not change the cached prefix.
    if (req.answerTool !== undefined && !forced) system.push({ type: 'text', text: answerInstruction(req.answerTool) });
    let toolChoice: ToolChoice | undefined;
    if (req.answerTool !== undefined) {
      toolChoice = forced
        ? { type: 'tool', name: req.answerTool, ...(req.singleCall ? { disable_parallel_tool_use: true } : {}) }
        : { type: 'auto', ...(req.singleCall ? { disable_parallel_tool_use: true } : {}) };
    } else if (req.singleCall && tools?.length) {
      toolChoice = { type: 'auto', disable_parallel_tool_use: true };
    }
    return {
      model: this.o.model,
      max_tokens: maxTokens,
      system,
      messages: [...req.messages],
      ...(tools?.length ? { tools } : {}),
      ...(toolChoice ? { tool_choice: toolChoice } : {}),
    };
  }

  /** Cost of usage at this model's price (batch at its discount), undefined when unknown. */
  cost(u: Usage, batch = false): number | undefined {
    return costUsd(this.o.model, u, { batch, ...(this.o.prices ? { overrides: this.o.prices } : {}) });
  }

  /** Reads a refusal of the forced tool (from a stream or a batch item) and remembers it. */
  noteForcedToolRefused(detail: string): void {
    if (this.refusesForcedTool) return;
    this.refusesForcedTool = true;
    this.o.onNotice?.(`${this.o.model} refuses a forced tool_choice (${detail}); asking with tool_choice auto and the instruction to answer through the tool`);
  }

  /** One answer, streamed, with retries; throws ModelRequestError when it cannot get one. */
  async send(req: ModelRequest, signal: AbortSignal, onTokens?: (tokens: number) => void): Promise<ModelAnswer> {
    const maxAttempts = this.o.retry?.maxAttempts ?? 5;
    const ceiling = Math.max(req.maxTokens, this.o.maxTokensCeiling ?? 64_000);
    let usage = ZERO_USAGE;
    let cost: number | undefined = 0;
    let maxTokens = req.maxTokens;
    let grown = false;
    let attempt = 0;
    for (;;) {
      attempt++;
      signal.throwIfAborted();
      let msg: Message;
      try {
        msg = await this.stream(this.params(req, maxTokens), signal, onTokens);
      } catch (e) {
        const fault = classify(e, this.o.endpoint, this.o.model, signal);
        if (fault.kind === 'aborted') throw e;
        if (fault.kind === 'forced-tool-refused' && this.forcesTool()) {
          this.noteForcedToolRefused(fault.message.replace(/^.*?: /, ''));
          attempt--;
          continue;
        }
        if (!RETRYABLE.has(fault.kind) || attempt >= maxAttempts) {
          const tried = attempt > 1 ? ` (after ${attempt} attempts)` : '';
          throw new ModelRequestError({ ...fault, message: `${fault.message}${tried}` }, attempt);
        }
        const { ms, why } = retryDelayMs(fault, attempt, this.o.retry);
        this.o.onNotice?.(`${fault.message}; waiting ${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s (${why}), then attempt ${attempt + 1} of ${maxAttempts}`);
        await sleep(ms, signal);
        continue;
      }
      const u = usageOf(msg);
      usage = addUsage(usage, u);
      const c = this.cost(u);
      cost = cost === undefined || c === undefined ? undefined : cost + c;
      if (msg.stop_reason === 'max_tokens' && !grown && maxTokens < ceiling) {
        grown = true;
        const more = Math.min(ceiling, maxTokens * 2);
        this.o.onNotice?.(`the answer was truncated at max_tokens ${maxTokens}; retrying once with ${more}`);
        maxTokens = more;
        continue;
      }
      return { message: msg, usage, ...(cost !== undefined ? { costUsd: cost } : {}), truncated: msg.stop_reason === 'max_tokens', attempts: attempt };
    }
  }

  private async stream(params: MessageCreateParamsNonStreaming, signal: AbortSignal, onTokens?: (tokens: number) => void): Promise<Message> {
    const stream = this.o.client.messages.stream(params, { signal });
    let chars = 0;
    let last = -1;
    const report = (n: number): void => { if (n !== last) { last = n; onTokens?.(n); } };
    if (onTokens) {
      stream.on('inputJson', (partial) => { chars += partial.length; report(Math.ceil(chars / 4)); });
      stream.on('text', (delta) => { chars += delta.length; report(Math.ceil(chars / 4)); });
    }
    const msg = await stream.finalMessage();
    report(msg.usage.output_tokens);
    return msg;
  }
}
