/**
 * The cost signals of a run, in the store actor: LLM token usage per model and its estimated price,
 * from two sources kept apart, since both may count the same requests: what the run's TLS responses
 * reported (run_llm_usage, folded from the bodies by llm-usage-values.sql.ts) and what the harness
 * asserted in the run's tool-call records (`llm_usage` of POST /v1/record).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { readRows, sql } from '../../store/sql.js';
import type { CostSignals, ModelUsage, TokenUsage, UsageSignals } from './cost-signals.js';
import { estimatePrice, familyPrices, priceFamily, pricesAsOf } from './llm-prices.js';
import { basis, signalBounds, type SignalBasis } from './signal-basis.js';

interface ModelRow {
  model: string | null;
  requests: bigint;
  incomplete: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  cached_input_tokens: bigint;
  cache_write_tokens: bigint;
  ids: string[];
}

const tokenSums = sql`sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(cache_write_tokens) AS cache_write_tokens`;

// the record's llm_usage items as the record route normalized them (record-request.ts)
const usageItems = `[{"model":"VARCHAR","requests":"UBIGINT","input_tokens":"UBIGINT","output_tokens":"UBIGINT",
  "cached_input_tokens":"UBIGINT","cache_write_tokens":"UBIGINT"}]`;

/** The cost signals of the run. */
export async function readCost(connection: StoreConnection, run: string): Promise<CostSignals> {
  const observed = await readRows<ModelRow>(
    connection,
    sql`SELECT model, count(*) AS requests, count(*) FILTER (WHERE NOT complete) AS incomplete, ${tokenSums},
          min_by(event_id, seq, ${signalBounds.basis_ids}) AS ids
        FROM run_llm_usage WHERE run_id = ${run} GROUP BY model ORDER BY requests DESC, model NULLS LAST`,
  );
  const asserted = await readRows<ModelRow>(
    connection,
    sql`SELECT u.model AS model, sum(u.requests) AS requests, 0 AS incomplete,
          sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
          sum(u.cached_input_tokens) AS cached_input_tokens, sum(u.cache_write_tokens) AS cache_write_tokens,
          min_by(tool_call_id, started_ns, ${signalBounds.basis_ids}) AS ids
        FROM (SELECT tool_call_id, started_ns, unnest(from_json(record->'$.llm_usage', ${usageItems})) AS u
              FROM tool_calls WHERE run_id = ${run})
        GROUP BY 1 ORDER BY requests DESC, model`,
  );
  return {
    observed: usageSignals(
      observed,
      'run_llm_usage',
      "usage objects in the bodies of the run's tls_read HTTP responses, one per response, by model; events: the first responses",
    ),
    asserted: usageSignals(
      asserted,
      'tool_calls',
      "llm_usage items of the run's tool-call records, by model; tool calls: the first that asserted it",
    ),
    prices: {
      as_of: pricesAsOf,
      currency: 'USD',
      note: 'an estimate from public list prices per model family; batch, priority and long-context prices and discounts are not modelled',
    },
  };
}

function usageSignals(
  rows: readonly ModelRow[],
  table: 'run_llm_usage' | 'tool_calls',
  method: string,
): UsageSignals {
  // a response's usage rests on its event, an assertion on its tool call
  const basisOf = (ids: readonly string[]): SignalBasis =>
    basis([table], method, table === 'run_llm_usage' ? { events: ids } : { toolCalls: ids });
  const models = rows.map((row): ModelUsage => {
    const tokens = tokenUsage(row);
    const family = priceFamily(row.model);
    return {
      model: row.model,
      family,
      ...tokens,
      estimated_price_usd: estimatePrice(row.model, tokens),
      prices: family === null ? null : familyPrices(family),
      basis: basisOf(row.ids),
    };
  });
  const sum = (read: (model: ModelUsage) => number): number =>
    models.reduce((total, model) => total + read(model), 0);
  return {
    models: models.slice(0, signalBounds.list_items),
    totals: {
      requests: sum((model) => model.requests),
      incomplete: sum((model) => model.incomplete),
      input_tokens: sum((model) => model.input_tokens),
      output_tokens: sum((model) => model.output_tokens),
      cached_input_tokens: sum((model) => model.cached_input_tokens),
      cache_write_tokens: sum((model) => model.cache_write_tokens),
      estimated_price_usd: Math.round(sum((model) => model.estimated_price_usd ?? 0) * 1e6) / 1e6,
      unpriced_requests: sum((model) => (model.estimated_price_usd === null ? model.requests : 0)),
    },
    basis: basisOf(rows.flatMap((row) => row.ids)),
  };
}

function tokenUsage(row: ModelRow): TokenUsage {
  return {
    requests: Number(row.requests),
    incomplete: Number(row.incomplete),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_input_tokens: Number(row.cached_input_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
  };
}
