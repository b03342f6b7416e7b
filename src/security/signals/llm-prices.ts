/**
 * A small built-in table of LLM list prices, per model family, for the cost signals' estimates.
 * An estimate only: the providers' public list prices for standard API use as of `pricesAsOf`, in
 * US dollars per million tokens. Not modelled: batch and priority tiers, long-context surcharges,
 * regional endpoints, negotiated discounts, cache-write durations beyond Anthropic's 5-minute
 * price. A model no family names is priced null, and counted.
 */

/** The date the table's prices were read from the providers' pricing pages. */
export const pricesAsOf = '2025-11-01';

/** US dollars per million tokens of each kind. */
export interface TokenPrices {
  input: number;
  cached_input: number;
  cache_write: number;
  output: number;
}

const openai = (input: number, cached: number, output: number): TokenPrices => ({
  input,
  cached_input: cached,
  cache_write: 0,
  output,
});
// Anthropic: cache reads at 0.1x, 5-minute cache writes at 1.25x the input price
const anthropic = (input: number, output: number): TokenPrices => ({
  input,
  cached_input: input / 10,
  cache_write: input * 1.25,
  output,
});

/** Families by the model-name prefix that names them; the longest prefix that matches wins. */
const families: Readonly<Record<string, TokenPrices>> = {
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-5-pro': openai(15, 15, 120),
  'gpt-4.1': openai(2, 0.5, 8),
  'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
  'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
  'gpt-4o': openai(2.5, 1.25, 10),
  'gpt-4o-mini': openai(0.15, 0.075, 0.6),
  o1: openai(15, 7.5, 60),
  'o1-mini': openai(1.1, 0.55, 4.4),
  'o1-pro': openai(150, 150, 600),
  o3: openai(2, 0.5, 8),
  'o3-mini': openai(1.1, 0.55, 4.4),
  'o3-pro': openai(20, 20, 80),
  'o4-mini': openai(1.1, 0.275, 4.4),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-opus': anthropic(15, 75),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-haiku': anthropic(0.25, 1.25),
};

// longest first, so `gpt-4o-mini` is tried before `gpt-4o`
const prefixes = Object.keys(families).sort((a, b) => b.length - a.length);

/** The family a model belongs to: a prefix that is the whole name or is followed by `-`, `.` or `@`. */
export function priceFamily(model: string | null): string | null {
  if (model === null) return null;
  const name = model.toLowerCase();
  return (
    prefixes.find(
      (prefix) => name === prefix || (name.startsWith(prefix) && '-.@'.includes(name[prefix.length]!)),
    ) ?? null
  );
}

/** A family's prices. */
export function familyPrices(family: string): TokenPrices {
  return families[family]!;
}

/** Tokens of one model's usage, as the cost signals sum them. */
export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
}

/** The estimated price in US dollars (to a millionth), or null for a model of no known family. */
export function estimatePrice(model: string | null, tokens: TokenCounts): number | null {
  const family = priceFamily(model);
  if (family === null) return null;
  const prices = familyPrices(family);
  // input_tokens holds the cached and cache-written tokens: each is billed at its own price
  const uncached = Math.max(0, tokens.input_tokens - tokens.cached_input_tokens - tokens.cache_write_tokens);
  const dollars =
    (uncached * prices.input +
      tokens.cached_input_tokens * prices.cached_input +
      tokens.cache_write_tokens * prices.cache_write +
      tokens.output_tokens * prices.output) /
    1_000_000;
  return Math.round(dollars * 1_000_000) / 1_000_000;
}
