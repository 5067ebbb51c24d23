import type { TokenUsage } from './agent';

/**
 * A provider-neutral conversation for the terminal agent: each provider maps it to its own wire
 * format (Anthropic Messages, OpenAI chat completions) and back.
 */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Arguments as the model sent them: a JSON string (OpenAI) or an object (Anthropic). */
  readonly args: unknown;
}

export interface ToolResult {
  readonly id: string;
  readonly content: string;
  readonly isError: boolean;
}

export type ChatMessage =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ToolCall[]; readonly reasoning?: string; readonly raw?: unknown }
  | { readonly role: 'tool'; readonly results: readonly ToolResult[] };

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelTurn {
  readonly text: string;
  readonly reasoning?: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: TokenUsage;
  readonly stopReason?: string;
  /** Provider-specific content to send back verbatim in the next request (e.g. Anthropic thinking blocks). */
  readonly raw?: unknown;
}

export interface ChatModel {
  readonly provider: string;
  readonly model: string;
  turn(system: string, messages: readonly ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelTurn>;
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum = (x?: number, y?: number): number | undefined => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const cacheRead = sum(a.cacheRead, b.cacheRead);
  const cacheWrite = sum(a.cacheWrite, b.cacheWrite);
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
  };
}
