import { createClient, endpointOf, type Credentials } from './client';
import type { RetryPolicy } from './faults';
import { resolveModel, type ResolvedModel } from './models';
import type { PriceOverrides } from './prices';
import { ModelCaller } from './request';

export * from './client';
export * from './faults';
export * from './models';
export * from './prices';
export * from './request';
export * from './conversation';

export interface ConnectOptions {
  readonly credentials: Credentials;
  /** The model asked for, and where that came from (`--model`, `taskwright.model`, `TASKWRIGHT_MODEL`). */
  readonly model?: string;
  readonly modelSource?: string;
  readonly retry?: RetryPolicy;
  readonly prices?: PriceOverrides;
  readonly timeoutMs?: number;
  readonly onNotice?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * A caller for one run: the client, the model checked (or chosen by the default rule) against the
 * live list, once — so a model that does not exist stops the run with one message, before any work.
 */
export async function connect(o: ConnectOptions): Promise<{ caller: ModelCaller; model: ResolvedModel }> {
  const client = createClient(o.credentials, o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {});
  const endpoint = endpointOf(o.credentials);
  const model = await resolveModel(client, endpoint, { ...(o.model ? { id: o.model } : {}), ...(o.modelSource ? { source: o.modelSource } : {}) }, o.signal);
  o.onNotice?.(`model ${model.id} (${model.why})`);
  if (model.warning) o.onNotice?.(`warning: ${model.warning}`);
  const caller = new ModelCaller({
    client, endpoint, model: model.id,
    ...(o.retry ? { retry: o.retry } : {}), ...(o.prices ? { prices: o.prices } : {}), ...(o.onNotice ? { onNotice: o.onNotice } : {}),
    ...(model.entry?.maxTokens ? { maxTokensCeiling: model.entry.maxTokens } : {}),
  });
  return { caller, model };
}
