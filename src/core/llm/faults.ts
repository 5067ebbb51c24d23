/**
 * What a failed model request means for the caller: wait and retry (overloads, rate limits,
 * dropped streams), give up at once and stop the whole run (a refused key, a model that does not
 * exist), or report the request as wrong. Messages name the endpoint and the cause, never the key.
 */

export type FaultKind =
  | 'auth' // 401 / 403: no retry, stop everything
  | 'model-not-found' // 404 on the model: no retry, stop everything
  | 'forced-tool-refused' // 400: this model does not accept a forced tool_choice
  | 'rate-limit' // 429
  | 'overloaded' // 529, or an in-stream overloaded_error
  | 'server' // 5xx, in-stream api_error
  | 'dropped' // connection failed, or the stream ended before message_stop
  | 'bad-request' // other 4xx: the request is wrong, retrying will not help
  | 'aborted';

export interface Fault {
  readonly kind: FaultKind;
  readonly status?: number;
  readonly retryAfterSec?: number;
  /** One line for people: cause and endpoint. */
  readonly message: string;
}

/** A request that must not be retried and stops the run (auth, model not found, bad request, retries exhausted). */
export class ModelRequestError extends Error {
  constructor(readonly fault: Fault, readonly attempts: number) {
    super(fault.message);
  }
  /** Whether every later request of the run would fail the same way. */
  get stopsRun(): boolean {
    return this.fault.kind === 'auth' || this.fault.kind === 'model-not-found';
  }
}

interface ErrorLike {
  readonly status?: unknown;
  readonly type?: unknown;
  readonly apiMessage?: unknown;
  readonly message?: unknown;
  readonly headers?: { get?: (name: string) => string | null } | Record<string, unknown>;
  readonly cause?: unknown;
  readonly name?: unknown;
  readonly error?: unknown;
}

function header(e: ErrorLike, name: string): string | undefined {
  const h = e.headers;
  if (!h) return undefined;
  if (typeof (h as { get?: unknown }).get === 'function') return (h as { get: (n: string) => string | null }).get(name) ?? undefined;
  const v = (h as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** `retry-after` in seconds (a number or an HTTP date), or `retry-after-ms`. */
export function retryAfterSec(e: ErrorLike, now = Date.now()): number | undefined {
  const ms = header(e, 'retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms) / 1000;
  const ra = header(e, 'retry-after');
  if (!ra) return undefined;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra));
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, (at - now) / 1000) : undefined;
}

function causeText(e: unknown): string {
  const parts: string[] = [];
  let c: unknown = e;
  for (let depth = 0; c && depth < 4; depth++) {
    const o = c as { message?: unknown; code?: unknown };
    const m = typeof o.message === 'string' ? o.message : String(c);
    const code = typeof o.code === 'string' ? o.code : undefined;
    const piece = code && !m.includes(code) ? `${m} (${code})` : m;
    if (piece && !parts.includes(piece)) parts.push(piece);
    c = (c as { cause?: unknown }).cause;
  }
  return parts.join(': ') || 'unknown cause';
}

const FORCED_TOOL = /tool_choice[^.]*(not supported|cannot be used|is not compatible|may not)/i;
const STREAM_CUT = /terminated|socket|ECONNRESET|other side closed|stream ended|Unexpected event order|request ended without sending|premature close|aborted/i;

/** Reads an SDK error (or any thrown value) as a fault, naming `endpoint` and the cause. */
export function classify(e: unknown, endpoint: string, model: string, signal?: AbortSignal): Fault {
  const o = (e ?? {}) as ErrorLike;
  if (signal?.aborted || o.name === 'APIUserAbortError') return { kind: 'aborted', message: 'cancelled' };
  const status = typeof o.status === 'number' ? o.status : undefined;
  const type = typeof o.type === 'string' ? o.type : undefined;
  const apiMessage = typeof o.apiMessage === 'string' ? o.apiMessage : typeof o.message === 'string' ? o.message : String(e);
  const at = `${endpoint}/v1/messages`;
  const ra = retryAfterSec(o);
  const withRa = ra !== undefined ? { retryAfterSec: ra } : {};
  if (status === 401 || status === 403) {
    return { kind: 'auth', status, message: `${at} refused the key (${status} ${type ?? ''}: ${apiMessage}); check ANTHROPIC_API_KEY / the stored key and the auth header (x-api-key or Bearer)`.replace(/\( /, '(') };
  }
  if (status === 404 && (type === 'not_found_error' || /model/i.test(apiMessage))) {
    return { kind: 'model-not-found', status, message: `model '${model}' was not found at ${endpoint} (404: ${apiMessage}); it may be retired — run without --model to use the default, or pick one from GET ${endpoint}/v1/models` };
  }
  if (status === 400 && FORCED_TOOL.test(apiMessage)) return { kind: 'forced-tool-refused', status, message: `${model} refuses a forced tool_choice: ${apiMessage}` };
  if (status === 429) return { kind: 'rate-limit', status, ...withRa, message: `${at}: rate limited (429: ${apiMessage})` };
  if (status === 529 || type === 'overloaded_error') return { kind: 'overloaded', ...(status ? { status } : {}), ...withRa, message: `${at}: overloaded (${status ?? 'in-stream'} overloaded_error: ${apiMessage})` };
  if ((status !== undefined && status >= 500) || type === 'api_error') return { kind: 'server', ...(status ? { status } : {}), ...withRa, message: `${at}: server error (${status ?? 'in-stream'} ${type ?? ''}: ${apiMessage})` };
  if (status === 408 || status === 409) return { kind: 'server', status, ...withRa, message: `${at}: ${status} ${apiMessage}` };
  if (status !== undefined) return { kind: 'bad-request', status, message: `${at} rejected the request (${status} ${type ?? ''}: ${apiMessage})` };
  if (o.name === 'APIConnectionError' || o.name === 'APIConnectionTimeoutError') {
    return { kind: 'dropped', message: `cannot reach ${at}: ${causeText(e)}` };
  }
  if (STREAM_CUT.test(causeText(e)) || e instanceof TypeError) return { kind: 'dropped', message: `the stream from ${at} was cut mid-answer (${causeText(e)})` };
  return { kind: 'bad-request', message: `${at}: ${causeText(e)}` };
}

export const RETRYABLE: ReadonlySet<FaultKind> = new Set(['rate-limit', 'overloaded', 'server', 'dropped']);

export interface RetryPolicy {
  /** Attempts in all, the first included (default 5). */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

/** Exponential back-off with jitter, capped; a server's retry-after wins (still capped). */
export function retryDelayMs(fault: Fault, attempt: number, p: RetryPolicy = {}): { ms: number; why: string } {
  const cap = p.maxDelayMs ?? 60_000;
  if (fault.retryAfterSec !== undefined) return { ms: Math.min(cap, Math.ceil(fault.retryAfterSec * 1000)), why: 'retry-after' };
  const base = p.baseDelayMs ?? 1000;
  const exp = Math.min(cap, base * 2 ** (attempt - 1));
  return { ms: Math.round(exp * (0.75 + Math.random() * 0.25)), why: 'back-off' };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled')); return; }
    const onAbort = (): void => { clearTimeout(t); reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled')); };
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
