/**
 * The cost signals of GET /v1/signals: a run's LLM token usage per model and its estimated price,
 * observed and asserted, as the CLI reads them and the store writes them (cost-signals.sql.ts): the
 * wire contract alone, with no store code.
 */
import type { Count } from '../../shared/schema/wire-types.js';
import type { TokenPrices } from './llm-prices.js';
import type { SignalBasis } from './signal-basis.js';

/** What the run's LLM requests cost, as observed and as asserted. */
export interface CostSignals {
  /** Usage the run's tls_read responses reported in their bodies. */
  observed: UsageSignals;
  /** Usage the harness asserted in the run's tool-call records; never added to `observed`. */
  asserted: UsageSignals;
  /** Where the estimated prices come from. */
  prices: { as_of: string; currency: 'USD'; note: string };
}

/** Usage from one source, per model and in total. */
export interface UsageSignals {
  /** The models, the most requests first, at most `bounds.list_items`. */
  models: ModelUsage[];
  totals: UsageTotals;
  basis: SignalBasis;
}

/** Token counts of a set of requests. */
export interface TokenUsage {
  requests: Count;
  /** Responses whose body was cut before their last usage: their counts are a floor, never guessed. */
  incomplete: Count;
  /** Prompt tokens, cached and cache-written ones included. */
  input_tokens: Count;
  output_tokens: Count;
  /** Of input_tokens, those read from the provider's prompt cache. */
  cached_input_tokens: Count;
  /** Of input_tokens, those written to the prompt cache (Anthropic bills them apart). */
  cache_write_tokens: Count;
}

/** The usage of one model (as the responses or records name it; null when they name none). */
export interface ModelUsage extends TokenUsage {
  model: string | null;
  /** The price table's family for it; null when none matches. */
  family: string | null;
  /** An estimate from the family's list prices; null for an unknown model. */
  estimated_price_usd: number | null;
  /** The family's US dollars per million tokens; null for an unknown model. */
  prices: TokenPrices | null;
  basis: SignalBasis;
}

/** The usage of every model together. */
export interface UsageTotals extends TokenUsage {
  /** The sum of the estimates of the models with a known price. */
  estimated_price_usd: number;
  /** Requests of models with no known price, so in no estimate. */
  unpriced_requests: Count;
}
