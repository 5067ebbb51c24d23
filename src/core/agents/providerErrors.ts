import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ModelRequestError, type FaultKind } from '../llm/faults';
import { InfraError } from '../sandbox/runtime';

/**
 * What a model provider's failure means for the trial. A model that never answered produced no
 * attempt, so nothing may be scored: an unreachable server is the infrastructure's fault (retried,
 * then reported), a refused key or an unknown model is the run's configuration (it stops the run
 * with one message). Only a request the server understood and rejected (a prompt too long, a bad
 * tool schema) is the policy's failed attempt.
 */
export type ProviderFault = 'unreachable' | 'refused' | 'policy' | 'aborted';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The model layer's own reading of a failure (after its retries), mapped to what it means for a trial. */
const FROM_MODEL_LAYER: Readonly<Record<FaultKind, ProviderFault>> = {
  auth: 'refused',
  'model-not-found': 'refused',
  'rate-limit': 'unreachable',
  overloaded: 'unreachable',
  server: 'unreachable',
  dropped: 'unreachable',
  'forced-tool-refused': 'policy',
  'bad-request': 'policy',
  aborted: 'aborted',
};

export function classifyProviderError(e: unknown): ProviderFault {
  if (e instanceof ModelRequestError) return FROM_MODEL_LAYER[e.fault.kind];
  if (e instanceof Anthropic.APIUserAbortError || e instanceof OpenAI.APIUserAbortError) return 'aborted';
  if (e instanceof Anthropic.APIConnectionError || e instanceof OpenAI.APIConnectionError) return 'unreachable';
  const status = (e as { status?: unknown } | null)?.status;
  if (typeof status === 'number') {
    if (status === 401 || status === 403 || status === 404) return 'refused';
    // Overloaded, rate limited or failing after the SDK's own retries: the provider is not there.
    if (status === 408 || status === 429 || status >= 500) return 'unreachable';
    return 'policy';
  }
  const code = causeCode(e);
  if (code !== undefined && CONNECTION_CODES.has(code)) return 'unreachable';
  return 'policy';
}

const KEY_PATTERNS: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /("?(?:x-api-key|api[_-]?key|authorization)"?\s*[:=]\s*"?)[^\s",}]{8,}/gi,
];

/**
 * Removes keys from text a provider sent back (some echo the key in their error body): the exact
 * secrets the agent was given, and anything shaped like a key or an Authorization header value.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[redacted]');
  for (const re of KEY_PATTERNS) {
    out = out.replace(re, (m: string, lead?: string) => (lead && /[:=]/.test(lead) ? `${lead}[redacted]` : /^(Bearer|Basic)\s/i.test(m) ? `${m.split(/\s+/)[0]} [redacted]` : '[redacted]'));
  }
  return out;
}

/**
 * The error the terminal agent raises for a provider's failure: an `InfraError` when no attempt
 * happened (the runner records it apart, retries an unreachable server, stops on a refusal), or
 * undefined when the failure is the policy's own, with the message redacted either way.
 */
export function providerInfraError(e: unknown, what: string, secrets: readonly string[] = []): { infra?: InfraError; message: string } {
  const message = redactSecrets(`${what}: ${e instanceof Error ? e.message : String(e)}`, secrets);
  const fault = classifyProviderError(e);
  if (fault === 'unreachable') return { infra: new InfraError('provider-unreachable', `model server unreachable — ${message}`), message };
  if (fault === 'refused') return { infra: new InfraError('provider-refused', `model server refused the request (check the key and the model name) — ${message}`, false), message };
  return { message };
}

/** Infra kinds after which no further trial can succeed: the run stops with the trial's message. */
export const RUN_STOPPING_KINDS: ReadonlySet<string> = new Set(['provider-refused']);
