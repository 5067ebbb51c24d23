/**
 * Model prices as dated data. Every figure is USD per million tokens at Anthropic's public list
 * price, read from https://platform.claude.com/docs/en/about-claude/pricing on PRICES_CHECKED (cache
 * writes are the 5-minute rate). A model not in the table has no price: costs are `null`, never a
 * guess. Settings may add or replace rows (`taskwright.models.prices`, or TASKWRIGHT_PRICES for the CLI).
 */
export const PRICES_CHECKED = '2026-12-02';
export const PRICES_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing';

export interface Price {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  /** Share of the price the Message Batches API charges (0.5: half price). */
  readonly batch: number;
  /**
   * Prompt-length tier: a request whose prompt (input + cache reads + cache writes) is over
   * `threshold` tokens pays every rate × `factor` on every token of that request.
   */
  readonly longPrompt?: { readonly threshold: number; readonly factor: number };
}

interface PriceRow extends Price {
  /** Model id; a dated snapshot (`<id>-YYYYMMDD`) matches its row too. */
  readonly id: string;
  /** Smallest prefix, in tokens, the API caches for this model (null: not published). */
  readonly minCacheTokens: number | null;
}

const row = (id: string, input: number, output: number, cacheWrite: number, cacheRead: number, minCacheTokens: number | null, extra: Partial<Price> = {}): PriceRow =>
  ({ id, input, output, cacheWrite, cacheRead, batch: 0.5, minCacheTokens, ...extra });

export const PRICE_TABLE: readonly PriceRow[] = [
  row('claude-fable-5-2', 8, 40, 10, 0.2, null),
  row('claude-mythos-5-2', 8, 40, 10, 0.2, null),
  row('claude-fable-5-1', 10, 50, 12.5, 0.25, null),
  row('claude-mythos-5-1', 10, 50, 12.5, 0.25, null),
  row('claude-fable-5', 10, 50, 12.5, 1, 2048),
  row('claude-mythos-5', 10, 50, 12.5, 1, 2048),
  row('claude-opus-5-5', 4, 20, 5, 0.2, null),
  row('claude-opus-5', 5, 25, 6.25, 0.5, 512),
  row('claude-opus-4-8', 5, 25, 6.25, 0.5, 1024),
  row('claude-opus-4-7', 5, 25, 6.25, 0.5, 4096),
  row('claude-opus-4-6', 5, 25, 6.25, 0.5, 4096),
  row('claude-opus-4-5', 5, 25, 6.25, 0.5, 4096),
  row('claude-opus-4-1', 15, 75, 18.75, 1.5, 1024),
  row('claude-opus-4-0', 15, 75, 18.75, 1.5, 1024),
  row('claude-opus-4', 15, 75, 18.75, 1.5, 1024),
  // Sonnet 5.5's cache reads went from $0.20 to $0.10 on 2026-10-07.
  row('claude-sonnet-5-5', 2, 10, 2.5, 0.1, null),
  row('claude-sonnet-5', 2, 10, 2.5, 0.2, 1024),
  row('claude-sonnet-4-6', 3, 15, 3.75, 0.3, 2048),
  row('claude-sonnet-4-5', 3, 15, 3.75, 0.3, 1024),
  row('claude-sonnet-4-0', 3, 15, 3.75, 0.3, 1024),
  row('claude-sonnet-4', 3, 15, 3.75, 0.3, 1024),
  row('claude-3-7-sonnet', 3, 15, 3.75, 0.3, 1024),
  row('claude-haiku-5-5', 0.1, 0.5, 0.125, 0.01, null, { longPrompt: { threshold: 100_000, factor: 5 } }),
  row('claude-haiku-4-5', 1, 5, 1.25, 0.1, 4096),
  row('claude-3-5-haiku', 0.8, 4, 1, 0.08, 2048),
];

/** Used when a model's minimum is not published: a breakpoint below the real minimum would be silently ignored. */
export const UNKNOWN_MIN_CACHE_TOKENS = 4096;

export type PriceOverrides = Readonly<Record<string, Partial<Price>>>;

/** Exact id, or the id followed by a date snapshot suffix; the longest match wins (claude-opus-4-5 over claude-opus-4). */
function rowOf(model: string): PriceRow | undefined {
  let best: PriceRow | undefined;
  for (const r of PRICE_TABLE) {
    if (model === r.id || new RegExp(`^${r.id}-\\d{8}$`).test(model)) {
      if (!best || r.id.length > best.id.length) best = r;
    }
  }
  return best;
}

/** The price of a model: the table's row, with a settings override (a whole row for a model the table lacks). */
export function priceOf(model: string, overrides: PriceOverrides = {}): Price | undefined {
  const base = rowOf(model);
  const o = overrides[model] ?? (base ? overrides[base.id] : undefined);
  if (!o) return base;
  const merged = { batch: 0.5, ...(base ?? {}), ...o };
  const { input, output } = merged;
  if (typeof input !== 'number' || typeof output !== 'number') return base;
  return { input, output, cacheWrite: merged.cacheWrite ?? input * 1.25, cacheRead: merged.cacheRead ?? input * 0.1, batch: merged.batch, ...(merged.longPrompt ? { longPrompt: merged.longPrompt } : {}) };
}

export function minCacheTokens(model: string): number {
  return rowOf(model)?.minCacheTokens ?? UNKNOWN_MIN_CACHE_TOKENS;
}

export interface PricedUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** Cost of one request's usage in USD, or undefined when the model has no known price. */
export function costUsd(model: string, u: PricedUsage, opts: { readonly batch?: boolean; readonly overrides?: PriceOverrides } = {}): number | undefined {
  const p = priceOf(model, opts.overrides);
  if (!p) return undefined;
  const prompt = u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
  const tier = p.longPrompt && prompt > p.longPrompt.threshold ? p.longPrompt.factor : 1;
  const raw = (u.input * p.input + u.output * p.output + (u.cacheRead ?? 0) * p.cacheRead + (u.cacheWrite ?? 0) * p.cacheWrite) / 1_000_000;
  return raw * tier * (opts.batch ? p.batch : 1);
}

/** Reads `{"model": {"input": 3, "output": 15, ...}}` (settings, TASKWRIGHT_PRICES); bad entries are reported, not guessed. */
export function parsePriceOverrides(value: unknown): { overrides: PriceOverrides; problems: string[] } {
  const problems: string[] = [];
  const out: Record<string, Partial<Price>> = {};
  if (value === undefined || value === null) return { overrides: out, problems };
  if (typeof value !== 'object' || Array.isArray(value)) return { overrides: out, problems: ['prices: expected an object of model → {input, output, cacheWrite, cacheRead, batch}'] };
  for (const [model, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null) { problems.push(`prices.${model}: expected an object`); continue; }
    const entry: Record<string, number> = {};
    for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
      if (!['input', 'output', 'cacheWrite', 'cacheRead', 'batch'].includes(k)) { problems.push(`prices.${model}.${k}: unknown field`); continue; }
      if (typeof n !== 'number' || !(n >= 0)) { problems.push(`prices.${model}.${k}: expected a number ≥ 0`); continue; }
      entry[k] = n;
    }
    out[model] = entry;
  }
  return { overrides: out, problems };
}
