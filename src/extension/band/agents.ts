import type { Agent } from '../../core/agents/agent';
import { createAgent } from '../../core/agents/factory';
import { createPolicyAgent } from '../../core/agents/policy';
import type { Ctx } from '../context';
import { bandOf } from './bandService';

/** An agent from its spec, policy keys from the editor's secret storage (Run Policy, Resume Run). */
export async function makeAgent(ctx: Ctx, spec: string): Promise<Agent> {
  if (spec === 'oracle' || spec === 'nop') return createAgent(spec);
  return createPolicyAgent(spec, { secrets: await bandOf(ctx).secrets() });
}
