import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a scripted model server answers to one request. Shared by the Anthropic and OpenAI wire-format
 * servers so one script drives either provider (the task-generation tests reuse them too).
 */
export type ScriptedReply =
  | {
    readonly kind: 'turn';
    readonly text?: string;
    /** Reasoning: Anthropic `thinking` blocks; OpenAI `reasoning_content` or `reasoning`. */
    readonly reasoning?: string;
    readonly toolCalls?: readonly { readonly name: string; readonly input: unknown; readonly id?: string }[];
    readonly usage?: { readonly input: number; readonly output: number; readonly cacheRead?: number; readonly cacheWrite?: number };
    /** SSE only: stop after this many events and keep the connection open (a stalled stream, for cancellation). */
    readonly stallAfterEvents?: number;
    /** SSE only: destroy the connection after this many events (a stream cut mid-answer). */
    readonly cutAfterEvents?: number;
    /** SSE only: after this many events send an `event: error` (e.g. overloaded_error) and end the stream. */
    readonly errorAfterEvents?: number;
    readonly errorType?: string;
    /** Stop reason to report (default tool_use when a tool is called, else end_turn); `max_tokens` for a cut answer. */
    readonly stopReason?: 'max_tokens' | 'end_turn' | 'tool_use';
  }
  | { readonly kind: 'error'; readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly message?: string }
  /** Close the connection without an answer (a dropped connection). */
  | { readonly kind: 'drop' };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
  /** Index of this request among all requests the server received (0-based). */
  readonly index: number;
}

export type Script = (req: RecordedRequest) => ScriptedReply;

/** A model that runs `commands` one per turn through the bash tool, then calls submit. */
export function commandScript(commands: readonly string[], opts: { readonly reasoning?: string } = {}): Script {
  return (req) => {
    const done = countToolResults(req.body);
    if (done < commands.length) {
      return { kind: 'turn', text: `Step ${done + 1}.`, ...(opts.reasoning ? { reasoning: opts.reasoning } : {}), toolCalls: [{ name: 'bash', input: { command: commands[done]! } }], usage: { input: 100 + done, output: 20 } };
    }
    return { kind: 'turn', text: 'Done.', toolCalls: [{ name: 'submit', input: {} }], usage: { input: 120, output: 5 } };
  };
}

/** Counts the tool results already in the conversation (either wire format), i.e. the turn number. */
export function countToolResults(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  let n = 0;
  for (const m of messages) {
    if (m.role === 'tool') n++;
    else if (m.role === 'user' && Array.isArray(m.content)) n += (m.content as { type?: string }[]).filter((b) => b.type === 'tool_result').length;
  }
  return n;
}

/** Every request fails with `status` (an error storm). */
export const errorStorm = (status: number, headers: Readonly<Record<string, string>> = {}): Script => () => ({ kind: 'error', status, headers });

/** The first `n` requests get `first`, the rest go to `then`. */
export function firstThen(n: number, first: ScriptedReply, then: Script): Script {
  return (req) => (req.index < n ? first : then(req));
}
