import type { Agent } from './agent';
import { NopAgent } from './nop';
import { OracleAgent } from './oracle';
import { MissingKeyError } from '../llm/client';
import { createPolicyAgent, PolicySpecError } from './policy';

/** Makes an agent from the part of its spec after `kind:` (empty for `oracle` / `nop`). */
export type AgentMaker = (rest: string, spec: string) => Agent;

/**
 * Agent kinds by the spec prefix before the first `:`. Adding a kind is one entry here, e.g.
 * `anthropic: (model) => new AnthropicAgent(model)`.
 */
export const AGENT_KINDS: Readonly<Record<string, AgentMaker>> = {
  oracle: () => new OracleAgent(),
  nop: () => new NopAgent(),
  anthropic: (_rest, spec) => policyAgent(spec),
  openai: (_rest, spec) => policyAgent(spec),
  command: (_rest, spec) => policyAgent(spec),
};

export class AgentSpecError extends Error {}

/** Policy agents (keys from the environment); a bad spec or a missing key is a usage error. */
function policyAgent(spec: string): Agent {
  try {
    return createPolicyAgent(spec);
  } catch (e) {
    if (e instanceof PolicySpecError || e instanceof MissingKeyError) throw new AgentSpecError(e.message);
    throw e;
  }
}

export function createAgent(spec: string): Agent {
  const i = spec.indexOf(':');
  const kind = i >= 0 ? spec.slice(0, i) : spec;
  const make = AGENT_KINDS[kind];
  if (!make) throw new AgentSpecError(`unknown agent '${spec}' (known kinds: ${Object.keys(AGENT_KINDS).join(', ')})`);
  return make(i >= 0 ? spec.slice(i + 1) : '', spec);
}
