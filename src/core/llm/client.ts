import Anthropic from '@anthropic-ai/sdk';

/** The Messages API version this client is written and tested against (pinned, not left to the SDK). */
export const ANTHROPIC_VERSION = '2026-10-21';
export const PUBLIC_API_URL = 'https://api.anthropic.com';

/**
 * Where the key comes from and how it is sent. Keys are handed to the SDK only: never written to a
 * log, a record, an error message or a setting.
 */
export interface Credentials {
  readonly apiKey?: string;
  /** OAuth / gateway token, always sent as `Authorization: Bearer`. */
  readonly authToken?: string;
  /** How the API key travels: `Authorization: Bearer` (the SDK's default) or `x-api-key` (what some gateways want). */
  readonly authHeader?: 'x-api-key' | 'bearer';
  readonly baseURL?: string;
}

export type SecretName = 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' | 'OPENAI_API_KEY';
/** The CLI reads the environment; the editor passes a lookup over SecretStorage. */
export type SecretLookup = (name: SecretName) => string | undefined;
export const envSecrets = (env: NodeJS.ProcessEnv = process.env): SecretLookup => (name) => env[name] || undefined;

export class MissingKeyError extends Error {}
export const MISSING_KEY = 'no Anthropic key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or store one with "Taskwright: Set API Key…"';

/** Credentials from secrets and the environment (ANTHROPIC_BASE_URL, TASKWRIGHT_ANTHROPIC_AUTH_HEADER=bearer|x-api-key). */
export function credentialsFrom(secrets: SecretLookup, env: NodeJS.ProcessEnv = process.env, over: Partial<Credentials> = {}): Credentials {
  const apiKey = over.apiKey ?? secrets('ANTHROPIC_API_KEY');
  const authToken = over.authToken ?? secrets('ANTHROPIC_AUTH_TOKEN');
  const header = over.authHeader ?? (env.TASKWRIGHT_ANTHROPIC_AUTH_HEADER === 'bearer' || env.TASKWRIGHT_ANTHROPIC_AUTH_HEADER === 'x-api-key' ? env.TASKWRIGHT_ANTHROPIC_AUTH_HEADER : undefined);
  const baseURL = over.baseURL ?? (env.ANTHROPIC_BASE_URL || undefined);
  return { ...(apiKey ? { apiKey } : {}), ...(authToken ? { authToken } : {}), ...(header ? { authHeader: header } : {}), ...(baseURL ? { baseURL } : {}) };
}

export function endpointOf(c: Credentials): string {
  return (c.baseURL ?? PUBLIC_API_URL).replace(/\/+$/, '');
}

/**
 * The SDK client. Its own retries are off (`maxRetries: 0`): the caller retries itself so every
 * wait is visible ("waiting N s (retry-after)") and in-stream faults are retried the same way.
 */
export function createClient(c: Credentials, opts: { readonly timeoutMs?: number } = {}): Anthropic {
  const key = c.apiKey;
  if (!key && !c.authToken) throw new MissingKeyError(MISSING_KEY);
  const xApiKey = c.authHeader === 'x-api-key' && key;
  return new Anthropic({
    ...(key ? { apiKey: key } : { apiKey: null, authToken: c.authToken ?? null }),
    ...(c.baseURL ? { baseURL: c.baseURL } : {}),
    maxRetries: 0,
    timeout: opts.timeoutMs ?? 600_000,
    // SDK 1.x sends the key as `Authorization: Bearer`; a null Authorization drops it when the
    // endpoint wants `x-api-key` instead.
    defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION, ...(xApiKey ? { 'x-api-key': key, Authorization: null } : {}) },
    logLevel: 'off',
  });
}
