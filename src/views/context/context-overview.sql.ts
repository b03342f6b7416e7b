/**
 * GET /v1/context/overview in the store actor: a run's application context at a glance: its
 * context chain (head and length), its tool calls by status and evidence level, its bindings by
 * source, its output artifacts and file effects, and when the context began and last grew. Every
 * count is aggregated in SQL over the run's rows of tool_calls, bindings and objects.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import { readRows, sql } from '../../store/sql.js';
import type { BindingSource } from '../../telemetry/binding.js';
import type { ObjectHash } from '../../model/object-hash.js';
import type { FileEffect } from '../../provenance/record/file-effects.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import { runNotFound } from '../../store/run-exists.sql.js';

/** Validated parameters: the run. */
export interface ContextOverviewParams {
  run: string;
}

/** A run's application context summed up (`provenance.context_overview/v1`). */
export interface ContextOverview {
  schema_version: 'provenance.context_overview/v1';
  run_id: string;
  first_seen_at: DateTimeText;
  /** The run object, the root of its chains; null for a run stored before the graph until it is sealed. */
  run_object: ObjectHash | null;
  /** The run's `context` chain: its latest object and how many objects it holds. */
  chain: { head: ObjectHash | null; length: Count; updated_at: DateTimeText | null };
  tool_calls: {
    total: Count;
    by_status: { [status in ToolCallStatus]?: Count };
    by_evidence_level: { self_observed?: Count; context_asserted?: Count };
    /** Start of the first, end of the last (its start while it has no end); null without tool calls. */
    first_started_at: DateTimeText | null;
    last_ended_at: DateTimeText | null;
  };
  bindings: {
    total: Count;
    by_source: { [source in BindingSource]?: Count };
    /** Distinct tool call ids the bindings name. */
    tool_calls_bound: Count;
  };
  /** The recorded output streams: bytes they carried, and bytes stored (the first MiB of each). */
  artifacts: { count: Count; bytes: Count; stored_bytes: Count; truncated: Count };
  file_effects: {
    count: Count;
    by_effect: { [effect in FileEffect['effect']]?: Count };
    /** Tool calls whose snapshot was cut by a bound: effects outside it are unknown. */
    incomplete_tool_calls: Count;
    /** Effects found beyond those kept, summed over the tool calls. */
    omitted: Count;
  };
  /** When provd stored the first and the latest object of the context chain; null when it is empty. */
  first_recorded_at: DateTimeText | null;
  last_recorded_at: DateTimeText | null;
}

const time = (ns: bigint | null): DateTimeText | null => (ns === null ? null : formatRfc3339Nanos(ns));

/** Sums up the run's context; 404 run_not_found for an unknown run. */
export async function overviewContext(
  connection: StoreConnection,
  params: ContextOverviewParams,
): Promise<ContextOverview> {
  const { run } = params;
  const [root] = await readRows<{
    first_seen_ns: bigint;
    object_hash: string | null;
    head: string | null;
    head_index: bigint | null;
    updated_ns: bigint | null;
  }>(
    connection,
    sql`SELECT r.first_seen_ns, r.object_hash, h.hash AS head, h.chain_index AS head_index, h.updated_ns
        FROM runs r LEFT JOIN run_heads h ON h.run_id = r.run_id AND h.chain = 'context'
        WHERE r.run_id = ${run}`,
  );
  if (root === undefined) throw runNotFound(run);
  const calls = await readRows<{
    status: ToolCallStatus;
    level: 'self_observed' | 'context_asserted';
    n: bigint;
    first_ns: bigint;
    last_ns: bigint;
    incomplete: bigint;
    omitted: bigint;
  }>(
    connection,
    sql`SELECT status, json_extract_string(record, '$.evidence_level') AS level, count(*) AS n,
          min(started_ns) AS first_ns, max(coalesce(ended_ns, started_ns)) AS last_ns,
          count(*) FILTER (WHERE json_extract_string(record, '$.file_effects_complete') = 'false') AS incomplete,
          coalesce(sum(CAST(json_extract(record, '$.file_effects_omitted') AS BIGINT)), 0)::BIGINT AS omitted
        FROM tool_calls WHERE run_id = ${run} GROUP BY ALL`,
  );
  const bindings = await readRows<{ source: BindingSource; n: bigint; bound: bigint }>(
    connection,
    sql`SELECT json_extract_string(record, '$.binding_source') AS source, count(*) AS n,
          (SELECT count(DISTINCT tool_call_id) FROM bindings WHERE run_id = ${run}) AS bound
        FROM bindings WHERE run_id = ${run} GROUP BY ALL`,
  );
  const objects = await readRows<{
    kind: string;
    effect: FileEffect['effect'] | null;
    n: bigint;
    bytes: bigint;
    stored: bigint;
    truncated: bigint;
    first_ns: bigint;
    last_ns: bigint;
  }>(
    connection,
    sql`SELECT kind, json_extract_string(body, '$.payload.effect') AS effect, count(*) AS n,
          coalesce(sum(CAST(json_extract(body, '$.payload.size') AS BIGINT)), 0)::BIGINT AS bytes,
          coalesce(sum(CAST(json_extract(body, '$.payload.stored_bytes') AS BIGINT)), 0)::BIGINT AS stored,
          count(*) FILTER (WHERE json_extract_string(body, '$.payload.truncated') = 'true') AS truncated,
          min(created_ns) AS first_ns, max(created_ns) AS last_ns
        FROM objects WHERE run_id = ${run} AND kind IN ('binding', 'tool_call', 'artifact', 'file_effect')
        GROUP BY ALL`,
  );
  const sum = (values: bigint[]): number => Number(values.reduce((a, b) => a + b, 0n));
  const tally = <K extends string>(rows: { key: K; n: bigint }[]): { [key in K]?: Count } => {
    const counts: { [key in K]?: Count } = {};
    for (const { key, n } of rows) counts[key] = (counts[key] ?? 0) + Number(n);
    return counts;
  };
  const artifacts = objects.filter((row) => row.kind === 'artifact');
  const effects = objects.filter((row) => row.kind === 'file_effect');
  const extreme = (values: bigint[], pick: (a: bigint, b: bigint) => boolean): bigint | null =>
    values.reduce<bigint | null>((best, value) => (best === null || pick(value, best) ? value : best), null);
  return {
    schema_version: 'provenance.context_overview/v1',
    run_id: run,
    first_seen_at: formatRfc3339Nanos(root.first_seen_ns),
    run_object: root.object_hash,
    chain: {
      head: root.head,
      length: root.head_index === null ? 0 : Number(root.head_index) + 1,
      updated_at: time(root.updated_ns),
    },
    tool_calls: {
      total: sum(calls.map((row) => row.n)),
      by_status: tally(calls.map((row) => ({ key: row.status, n: row.n }))),
      by_evidence_level: tally(calls.map((row) => ({ key: row.level, n: row.n }))),
      first_started_at: time(
        extreme(
          calls.map((row) => row.first_ns),
          (a, b) => a < b,
        ),
      ),
      last_ended_at: time(
        extreme(
          calls.map((row) => row.last_ns),
          (a, b) => a > b,
        ),
      ),
    },
    bindings: {
      total: sum(bindings.map((row) => row.n)),
      by_source: tally(bindings.map((row) => ({ key: row.source, n: row.n }))),
      tool_calls_bound: Number(bindings[0]?.bound ?? 0n),
    },
    artifacts: {
      count: sum(artifacts.map((row) => row.n)),
      bytes: sum(artifacts.map((row) => row.bytes)),
      stored_bytes: sum(artifacts.map((row) => row.stored)),
      truncated: sum(artifacts.map((row) => row.truncated)),
    },
    file_effects: {
      count: sum(effects.map((row) => row.n)),
      by_effect: tally(
        effects.flatMap((row) => (row.effect === null ? [] : [{ key: row.effect, n: row.n }])),
      ),
      incomplete_tool_calls: sum(calls.map((row) => row.incomplete)),
      omitted: sum(calls.map((row) => row.omitted)),
    },
    first_recorded_at: time(
      extreme(
        objects.map((row) => row.first_ns),
        (a, b) => a < b,
      ),
    ),
    last_recorded_at: time(
      extreme(
        objects.map((row) => row.last_ns),
        (a, b) => a > b,
      ),
    ),
  };
}
