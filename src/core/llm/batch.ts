import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { classify, sleep } from './faults';
import { usageOf, type ModelCaller, type ModelRequest, type Usage } from './request';

/** One item's answer from a batch: the message (usage and cost at the batch price), or why there is none. */
export type BatchItem = { readonly message: Message; readonly usage: Usage; readonly costUsd?: number } | Error;

export interface BatchOptions {
  /** Polling interval (default 10 s; tests use less). */
  readonly pollMs?: number;
  readonly onStatus?: (status: string) => void;
}

/**
 * Sends requests through the Message Batches API (half price): create, poll until it ends, read the
 * JSONL results by `custom_id` (they come in any order). A cancelled signal cancels the batch, so
 * nothing keeps running (and billing). An item the batch refused comes back as an Error; a refusal of
 * the forced tool is remembered by the caller, so the next requests ask with `auto`.
 */
export async function sendBatch(caller: ModelCaller, requests: readonly { readonly id: string; readonly request: ModelRequest }[], signal: AbortSignal, o: BatchOptions = {}): Promise<Map<string, BatchItem>> {
  signal.throwIfAborted();
  const client = caller.client;
  let batch;
  try {
    batch = await client.messages.batches.create({ requests: requests.map((r) => ({ custom_id: r.id, params: caller.params(r.request) })) }, { signal });
  } catch (e) {
    throw new Error(classify(e, caller.endpoint, caller.model, signal).message.replace('/v1/messages', '/v1/messages/batches'));
  }
  o.onStatus?.(`batch ${batch.id}: ${batch.processing_status}`);
  const out = new Map<string, BatchItem>(requests.map((r) => [r.id, new Error('no result in the batch')]));
  try {
    let current = batch;
    while (current.processing_status !== 'ended') {
      await sleep(o.pollMs ?? 10_000, signal);
      current = await client.messages.batches.retrieve(batch.id, {}, { signal });
      const c = current.request_counts;
      o.onStatus?.(`batch ${batch.id}: ${current.processing_status} (${c.succeeded} succeeded, ${c.processing} processing, ${c.errored} errored)`);
    }
    const results = await client.messages.batches.results(batch.id, {}, { signal });
    for await (const r of results) {
      if (!out.has(r.custom_id)) continue;
      if (r.result.type === 'succeeded') {
        const msg = r.result.message;
        const usage = usageOf(msg);
        const cost = caller.cost(usage, true);
        out.set(r.custom_id, { message: msg, usage, ...(cost !== undefined ? { costUsd: cost } : {}) });
      } else if (r.result.type === 'errored') {
        const detail = r.result.error.error.message;
        if (/tool_choice/i.test(detail)) caller.noteForcedToolRefused(detail);
        out.set(r.custom_id, new Error(`batch request ${r.custom_id} failed: ${detail}`));
      } else {
        out.set(r.custom_id, new Error(`batch request ${r.custom_id} ${r.result.type}`));
      }
    }
    return out;
  } catch (e) {
    if (signal.aborted) await client.messages.batches.cancel(batch.id).catch(() => undefined);
    throw e;
  }
}
