/**
 * GET /v1/observe/summary in the store actor: what a run did, in one answer: its time span, events
 * by type and evidence level, tool calls, processes, files (not the loader's and locale's opens:
 * counted apart), network destinations and DNS names, its
 * coverage (gaps tied to it, and host-wide gaps during its span) and its graph. Lists are bounded;
 * every list says how many distinct values there are in all.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { requireRun } from '../store/run-exists.sql.js';
import type { DateTimeText } from '../shared/schema/wire-types.js';
import { readRows, sql, type Statement } from '../store/sql.js';
import { hiddenLoaderOpen, shownByDefault } from './loader-opens.sql.js';
import { evidenceName, typeCode, typeName } from '../model/codes.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { jsonText, type JsonText } from '../store/json-text.js';
import type { CountsByName, ObservabilitySummary, TopValues } from './observability-summary.js';
import { runCoverage } from './run-coverage.sql.js';

/** The params of the `summary` store query. */
export interface SummaryParams {
  run: string;
}

/** Most values a summary list shows (the most frequent first). */
export const summaryListMax = 20;

/** Summarizes one run. */
export async function summarizeRun(
  connection: StoreConnection,
  params: SummaryParams,
): Promise<JsonText<ObservabilitySummary>> {
  const run = params.run;
  await requireRun(connection, run);
  const [facts] = await readRows<{
    first_seen_ns: bigint;
    first_ns: bigint | null;
    last_ns: bigint | null;
    total: bigint;
    processes: bigint;
    execs: bigint;
    loader_locale_opens: bigint;
  }>(
    connection,
    sql`SELECT (SELECT first_seen_ns FROM runs WHERE run_id = ${run}) AS first_seen_ns,
          min(time_ns) AS first_ns, max(time_ns) AS last_ns, count(*) AS total,
          count(DISTINCT coalesce(tgid, pid)) AS processes, count(*) FILTER (WHERE type = ${typeCode('execve')}) AS execs,
          count(*) FILTER (WHERE ${hiddenLoaderOpen}) AS loader_locale_opens
        FROM events WHERE run_id = ${run}`,
  );
  const byType = await readRows<{ code: number; n: bigint }>(
    connection,
    sql`SELECT type AS code, count(*) AS n FROM events WHERE run_id = ${run} GROUP BY 1 ORDER BY 1`,
  );
  const byLevel = await readRows<{ code: number; n: bigint }>(
    connection,
    sql`SELECT evidence_level AS code, count(*) AS n FROM events WHERE run_id = ${run} GROUP BY 1 ORDER BY 1`,
  );
  const toolCalls = await readRows<{ status: string; n: bigint }>(
    connection,
    sql`SELECT status, count(*) AS n FROM tool_calls WHERE run_id = ${run} GROUP BY 1 ORDER BY 1`,
  );
  const [context] = await readRows<{ bindings: bigint; bound: bigint; objects: bigint; batches: bigint }>(
    connection,
    sql`SELECT (SELECT count(*) FROM bindings WHERE run_id = ${run}) AS bindings,
          (SELECT count(DISTINCT tool_call_id) FROM bindings WHERE run_id = ${run}) AS bound,
          (SELECT count(*) FROM objects WHERE run_id = ${run}) AS objects,
          (SELECT count(*) FROM objects WHERE run_id = ${run} AND kind = 'event_batch') AS batches`,
  );
  const [checkpoint] = await readRows<{ hash: string; chain_index: bigint }>(
    connection,
    sql`SELECT hash, chain_index FROM checkpoints WHERE run_id = ${run} ORDER BY chain_index DESC LIMIT 1`,
  );
  const [verified] = await readRows<{
    status: 'ok' | 'failed';
    error_count: bigint;
    warning_count: bigint;
    verified_ns: bigint;
  }>(
    connection,
    sql`SELECT status, error_count, warning_count, verified_ns FROM verify_results WHERE run_id = ${run}`,
  );
  const coverage = await runCoverage(connection, run, facts!.first_ns, facts!.last_ns);
  const counts = (rows: { code: number; n: bigint }[], name: (code: number) => string): CountsByName =>
    Object.fromEntries(rows.map((row) => [name(row.code), Number(row.n)]));
  const time = (ns: bigint | null): DateTimeText | null => (ns === null ? null : formatRfc3339Nanos(ns));
  const answer: ObservabilitySummary = {
    schema_version: 'provenance.observability_summary/v1',
    run_id: run,
    first_seen: formatRfc3339Nanos(facts!.first_seen_ns),
    span: { first_event: time(facts!.first_ns), last_event: time(facts!.last_ns) },
    events: {
      total: Number(facts!.total),
      by_type: counts(byType, typeName),
      by_evidence_level: counts(byLevel, evidenceName),
      loader_locale_opens: Number(facts!.loader_locale_opens),
    },
    tool_calls: {
      recorded: toolCalls.reduce((sum, row) => sum + Number(row.n), 0),
      by_status: Object.fromEntries(toolCalls.map((row) => [row.status, Number(row.n)])),
      bound: Number(context!.bound),
    },
    bindings: Number(context!.bindings),
    processes: { distinct: Number(facts!.processes), execs: Number(facts!.execs) },
    files: await topValues(connection, run, '$.path', undefined, shownByDefault),
    network_destinations: await topValues(connection, run, '$.dst_ip', '$.dst_port'),
    dns_names: await topValues(connection, run, '$.query'),
    coverage,
    graph: {
      objects: Number(context!.objects),
      event_batches: Number(context!.batches),
      last_checkpoint:
        checkpoint === undefined ? null : { hash: checkpoint.hash, index: Number(checkpoint.chain_index) },
      last_verify:
        verified === undefined
          ? null
          : {
              status: verified.status,
              error_count: Number(verified.error_count),
              warning_count: Number(verified.warning_count),
              verified_at: formatRfc3339Nanos(verified.verified_ns),
            },
    },
  };
  return jsonText(answer);
}

/**
 * The most frequent values of an attrs field (with a `:port` when given) among the run's events
 * (those `shown` selects).
 */
async function topValues(
  connection: StoreConnection,
  run: string,
  field: '$.path' | '$.dst_ip' | '$.query',
  port?: '$.dst_port',
  shown: Statement = sql`TRUE`,
): Promise<TopValues> {
  const value =
    port === undefined
      ? sql`json_extract_string(attrs, ${field})`
      : sql`json_extract_string(attrs, ${field}) || coalesce(':' || json_extract_string(attrs, ${port}), '')`;
  const rows = await readRows<{ value: string; n: bigint; distinct_values: bigint }>(
    connection,
    sql`SELECT value, n, count(*) OVER () AS distinct_values FROM (
          SELECT ${value} AS value, count(*) AS n FROM events
          WHERE run_id = ${run} AND json_extract_string(attrs, ${field}) IS NOT NULL AND ${shown} GROUP BY 1)
        ORDER BY n DESC, value LIMIT ${summaryListMax}`,
  );
  return {
    distinct: rows.length === 0 ? 0 : Number(rows[0]!.distinct_values),
    top: rows.map((row) => ({ value: row.value, events: Number(row.n) })),
  };
}
