import type { TokenUsage } from './agent';

/** USD per million tokens. Cache reads and writes are priced as Anthropic prices them (0.1× and 1.25× input). */
interface Price {
  readonly input: number;
  readonly output: number;
}

/**
 * Public list prices of models whose cost we can state; other models (self-hosted ones above all)
 * get no cost rather than a guess. Matched by prefix of the model name.
 */
export const PRICES: readonly (readonly [string, Price])[] = [
  ['claude-opus-4', { input: 15, output: 75 }],
  ['claude-sonnet-4', { input: 3, output: 15 }],
  ['claude-3-7-sonnet', { input: 3, output: 15 }],
  ['claude-3-5-sonnet', { input: 3, output: 15 }],
  ['claude-haiku-4', { input: 1, output: 5 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4 }],
];

export function priceOf(model: string): Price | undefined {
  return PRICES.find(([prefix]) => model.startsWith(prefix))?.[1];
}

export function costUsd(model: string, u: TokenUsage): number | undefined {
  const p = priceOf(model);
  if (!p) return undefined;
  const perTok = (x: number): number => x / 1_000_000;
  return perTok(u.input) * p.input + perTok(u.output) * p.output
    + perTok(u.cacheRead ?? 0) * p.input * 0.1 + perTok(u.cacheWrite ?? 0) * p.input * 1.25;
}
