import type Anthropic from '@anthropic-ai/sdk';
import type { ModelInfo } from '@anthropic-ai/sdk/resources/models';
import { classify, ModelRequestError } from './faults';

/**
 * The default model is read from the live list (`GET /v1/models`), never hard-coded, so it cannot
 * retire under the user. The rule: among `active` models (never `deprecated` or `retired`), take
 * the first line of DEFAULT_LINES that has one, and within it the newest by `created_at`; with no
 * line known, the newest active model. `--model`, the `taskwright.model` setting or TASKWRIGHT_MODEL
 * override it.
 */
export const DEFAULT_LINES: readonly string[] = ['sonnet', 'opus', 'fable', 'haiku'];

export interface ModelEntry {
  readonly id: string;
  readonly displayName: string;
  readonly line: string | null;
  readonly lifecycle: 'active' | 'deprecated' | 'retired';
  readonly createdAt: string;
  readonly retiresAt: string | null;
  readonly maxTokens: number | null;
}

function entryOf(m: ModelInfo): ModelEntry {
  return {
    id: m.id, displayName: m.display_name, line: m.line ?? null, lifecycle: m.lifecycle ?? 'active',
    createdAt: m.created_at, retiresAt: m.retires_at ?? null, maxTokens: m.max_tokens ?? null,
  };
}

export async function listModels(client: Anthropic, endpoint: string, signal?: AbortSignal): Promise<ModelEntry[]> {
  const out: ModelEntry[] = [];
  try {
    for await (const m of client.models.list({ limit: 100 }, { signal })) out.push(entryOf(m));
  } catch (e) {
    const f = classify(e, endpoint, '(listing models)', signal);
    throw new ModelRequestError({ ...f, message: f.kind === 'auth' ? f.message.replace('/v1/messages', '/v1/models') : `cannot list models at ${endpoint}/v1/models: ${f.message}` }, 1);
  }
  return out;
}

export function pickDefault(models: readonly ModelEntry[], lines: readonly string[] = DEFAULT_LINES): ModelEntry | undefined {
  const active = models.filter((m) => m.lifecycle === 'active');
  const newest = (ms: readonly ModelEntry[]): ModelEntry | undefined => [...ms].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || a.id.localeCompare(b.id))[0];
  for (const line of lines) {
    const m = newest(active.filter((x) => x.line === line));
    if (m) return m;
  }
  return newest(active);
}

export interface ResolvedModel {
  readonly id: string;
  /** How it was chosen, for the log: "--model", "default: newest active sonnet", … */
  readonly why: string;
  readonly entry?: ModelEntry;
  /** A warning to show (deprecated model, list unavailable). */
  readonly warning?: string;
}

/**
 * The model a run uses. Asked for one: it must exist and not be retired (one clear error, before
 * any task is started). Not asked: the default rule over the live list.
 */
export async function resolveModel(client: Anthropic, endpoint: string, requested: { readonly id?: string; readonly source?: string }, signal?: AbortSignal): Promise<ResolvedModel> {
  if (requested.id) {
    const id = requested.id;
    let entry: ModelEntry | undefined;
    try {
      entry = entryOf(await client.models.retrieve(id, {}, { signal }));
    } catch (e) {
      const f = classify(e, endpoint, id, signal);
      if (f.kind === 'model-not-found') throw new ModelRequestError({ ...f, message: `model '${id}' (${requested.source ?? '--model'}) was not found at ${endpoint}/v1/models/${id} (404); run without --model to use the default, or pick one from GET ${endpoint}/v1/models` }, 1);
      if (f.kind === 'auth') throw new ModelRequestError(f, 1);
      // A gateway without the Models API: use the name as given, and say the check was skipped.
      return { id, why: requested.source ?? '--model', warning: `could not check '${id}' at ${endpoint}/v1/models/${id} (${f.message}); using it as given` };
    }
    if (entry.lifecycle === 'retired') {
      throw new ModelRequestError({ kind: 'model-not-found', status: 404, message: `model '${id}' (${requested.source ?? '--model'}) is retired${entry.retiresAt ? ` since ${entry.retiresAt.slice(0, 10)}` : ''}; run without --model to use the default, or pick an active one from GET ${endpoint}/v1/models` }, 1);
    }
    return {
      id: entry.id, why: requested.source ?? '--model', entry,
      ...(entry.lifecycle === 'deprecated' ? { warning: `model '${id}' is deprecated${entry.retiresAt ? ` and retires on ${entry.retiresAt.slice(0, 10)}` : ''}` } : {}),
    };
  }
  const models = await listModels(client, endpoint, signal);
  const pick = pickDefault(models);
  if (!pick) throw new ModelRequestError({ kind: 'model-not-found', message: `no active model listed at ${endpoint}/v1/models; pass --model` }, 1);
  return { id: pick.id, why: `default: the newest active ${pick.line ?? 'model'} listed at ${endpoint}/v1/models`, entry: pick };
}
