import type { Agent } from './agent';
import { AnthropicChat, type AnthropicOptions } from './anthropic';
import { CommandAgent } from './command';
import { OpenAICompatibleChat, type OpenAICompatibleOptions } from './openai';
import { TerminalAgent, type TerminalAgentOptions } from './terminal';

// Where policy agents get their keys (the environment, or SecretStorage in the editor): one home, the model layer.
export { envSecrets, type SecretLookup } from '../llm/client';
import { envSecrets, type SecretLookup } from '../llm/client';

export interface PolicyAgentOptions extends TerminalAgentOptions {
  readonly secrets?: SecretLookup;
  /** Anthropic base URL (default ANTHROPIC_BASE_URL or the public API). */
  readonly anthropicBaseURL?: string;
  readonly anthropicAuthHeader?: AnthropicOptions['authHeader'];
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  readonly stream?: boolean;
  /** Extra environment for `command:` agents. */
  readonly commandEnv?: Readonly<Record<string, string>>;
}

export class PolicySpecError extends Error {}

/** Splits `openai:<model>@<base-url>`: the URL starts at the `@` followed by `http(s)://`. */
export function parseOpenAISpec(rest: string): { model: string; baseURL?: string } {
  const m = /^(.+?)@(https?:\/\/.+)$/.exec(rest);
  const model = m ? m[1]! : rest;
  if (!model) throw new PolicySpecError('openai: needs a model, e.g. openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1');
  return m ? { model, baseURL: m[2]! } : { model };
}

/** Makes `anthropic:<model>`, `openai:<model>@<base-url>` or `command:<program>` agents. */
export function createPolicyAgent(spec: string, options: PolicyAgentOptions = {}): Agent {
  const i = spec.indexOf(':');
  const kind = i >= 0 ? spec.slice(0, i) : spec;
  const rest = i >= 0 ? spec.slice(i + 1) : '';
  const secrets = options.secrets ?? envSecrets();
  const common = {
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  };
  const stream = options.stream !== undefined ? { stream: options.stream } : {};
  switch (kind) {
    case 'anthropic': {
      if (!rest) throw new PolicySpecError('anthropic: needs a model, e.g. anthropic:claude-sonnet-4-5');
      const apiKey = secrets('ANTHROPIC_API_KEY');
      const authToken = secrets('ANTHROPIC_AUTH_TOKEN');
      const chat = new AnthropicChat({
        model: rest, ...common,
        ...(apiKey ? { apiKey } : {}), ...(authToken ? { authToken } : {}),
        ...(options.anthropicBaseURL ? { baseURL: options.anthropicBaseURL } : {}),
        ...(options.anthropicAuthHeader ? { authHeader: options.anthropicAuthHeader } : {}),
      });
      return new TerminalAgent(spec, chat, { ...options, knownSecrets: [apiKey, authToken].filter((k): k is string => !!k) });
    }
    case 'openai': {
      const parsed = parseOpenAISpec(rest);
      const { model } = parsed;
      // Never a request to an endpoint the user did not name: the SDK would default to api.openai.com.
      const baseURL = parsed.baseURL ?? (process.env.OPENAI_BASE_URL || undefined);
      if (!baseURL) {
        throw new PolicySpecError(`${spec}: name the server, e.g. openai:${model}@http://127.0.0.1:8000/v1 (or set OPENAI_BASE_URL; for OpenAI itself openai:${model}@https://api.openai.com/v1)`);
      }
      const apiKey = secrets('OPENAI_API_KEY');
      const o: OpenAICompatibleOptions = { model, ...common, ...stream, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
      return new TerminalAgent(spec, new OpenAICompatibleChat(o), { ...options, knownSecrets: apiKey ? [apiKey] : [] });
    }
    case 'command':
      if (!rest.trim()) throw new PolicySpecError('command: needs a program, e.g. command:./my-agent.sh');
      return new CommandAgent(rest, { ...(options.commandEnv ? { env: options.commandEnv } : {}) });
    default:
      throw new PolicySpecError(`unknown policy agent '${spec}' (anthropic:<model>, openai:<model>@<base-url>, command:<program>)`);
  }
}
