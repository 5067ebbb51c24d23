import type { Agent, AgentResult } from './agent';

/** Does nothing: the verifier must give it reward 0. */
export class NopAgent implements Agent {
  readonly spec = 'nop';
  readonly inert = true;

  run(): Promise<AgentResult> {
    return Promise.resolve({ status: 'completed', steps: 0 });
  }
}
