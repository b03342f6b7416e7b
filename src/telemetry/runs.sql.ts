/**
 * GET /v1/runs in the store actor: one keyset page of the known runs, newest first, each with what
 * is cheap to know of it. A run is known once something names it (today a binding; later records
 * and objects insert into `runs` too). Each kind of fact is one aggregate over its own table, keyed
 * by run id, in `runFacts`: a later domain adds its facts there.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { list, readRows, sql, type Statement } from '../store/sql.js';
import { integerPart } from '../model/cursor.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { keysetPage } from '../store/keyset-page.js';
import { jsonText, type JsonText } from '../store/json-text.js';
import type { RunList, RunSummary } from './run-list.js';

/** Validated parameters of one page request. */
export interface RunsParams {
  limit: number;
  cursor: string | null;
}

/** Adds one kind of fact to the summaries of the listed runs: one aggregate keyed by run id. */
type AddRunFacts = (
  connection: StoreConnection,
  runIds: Statement,
  summaries: ReadonlyMap<string, RunSummary>,
) => Promise<void>;

const windowNs = 10_000_000_000n;

const addBindingFacts: AddRunFacts = async (connection, runIds, summaries) => {
  const rows = await readRows<{ run_id: string; n: bigint; tool_calls: bigint; last_ns: bigint }>(
    connection,
    sql`SELECT run_id, count(*) AS n, count(DISTINCT tool_call_id) AS tool_calls, max(created_ns) AS last_ns
        FROM bindings WHERE list_contains(${runIds}, run_id) GROUP BY run_id`,
  );
  for (const row of rows) {
    summaries.get(row.run_id)!.bindings = {
      count: Number(row.n),
      tool_calls: Number(row.tool_calls),
      last_bound: formatRfc3339Nanos(row.last_ns),
    };
  }
};

const addEventFacts: AddRunFacts = async (connection, runIds, summaries) => {
  const rows = await readRows<{
    run_id: string;
    n: bigint;
    correlated: bigint;
    risky: bigint;
    first: bigint;
    last: bigint;
  }>(
    connection,
    sql`SELECT run_id, sum(events) AS n, sum(correlated) AS correlated, sum(risky) AS risky,
          min(bucket_ns) AS first, max(bucket_ns) AS last
        FROM windows WHERE window_s = 10 AND list_contains(${runIds}, run_id) GROUP BY run_id`,
  );
  for (const row of rows) {
    summaries.get(row.run_id)!.events = {
      count: Number(row.n),
      kernel_correlated: Number(row.correlated),
      risky: Number(row.risky),
      from: formatRfc3339Nanos(row.first),
      to: formatRfc3339Nanos(row.last + windowNs),
    };
  }
};

const addToolCallFacts: AddRunFacts = async (connection, runIds, summaries) => {
  const rows = await readRows<{ run_id: string; n: bigint; denied: bigint }>(
    connection,
    sql`SELECT run_id, count(*) AS n, count(*) FILTER (WHERE status = 'denied') AS denied
        FROM tool_calls WHERE list_contains(${runIds}, run_id) GROUP BY run_id`,
  );
  for (const row of rows)
    summaries.get(row.run_id)!.tool_calls = { count: Number(row.n), denied: Number(row.denied) };
};

/** Every kind of fact a run summary holds. */
const runFacts: readonly AddRunFacts[] = [addBindingFacts, addToolCallFacts, addEventFacts];

/** The RunList body of one page, as JSON text. */
export async function listRuns(
  connection: StoreConnection,
  params: RunsParams,
  formatVersion: number,
): Promise<JsonText<RunList>> {
  const opened = await keysetPage(
    connection,
    { run: null, cursor: params.cursor },
    formatVersion,
    ['runs'],
    2,
  );
  const after = opened.after === null ? null : readPosition(opened.after);
  // newest first: a run named while a client pages sorts before its cursor, so no page repeats one
  const rows = await readRows<{ run_id: string; first_seen_ns: bigint }>(
    connection,
    sql`SELECT run_id, first_seen_ns FROM runs
        ${after === null ? sql`` : sql`WHERE (first_seen_ns, run_id) < (${after.firstSeenNs}, ${after.runId})`}
        ORDER BY first_seen_ns DESC, run_id DESC LIMIT ${params.limit + 1}`,
  );
  const hasMore = rows.length > params.limit;
  const page = hasMore ? rows.slice(0, params.limit) : rows;
  const summaries = new Map(page.map((row) => [row.run_id, emptySummary(row.run_id, row.first_seen_ns)]));
  if (page.length > 0) {
    const runIds = sql`${list([...summaries.keys()], VARCHAR)}`;
    for (const addFacts of runFacts) await addFacts(connection, runIds, summaries);
  }
  const last = page[page.length - 1];
  const next = hasMore && last !== undefined ? opened.next([last.first_seen_ns, last.run_id]) : null;
  const body: RunList = {
    schema_version: 'provenance.runs/v1',
    limit: params.limit,
    count: page.length,
    has_more: hasMore,
    next_cursor: next,
    runs: [...summaries.values()],
  };
  return jsonText(body);
}

/** A run with none of its facts found yet: no bindings, no events. */
function emptySummary(runId: string, firstSeenNs: bigint): RunSummary {
  return {
    run_id: runId,
    first_seen: formatRfc3339Nanos(firstSeenNs),
    bindings: { count: 0, tool_calls: 0, last_bound: null },
    tool_calls: { count: 0, denied: 0 },
    events: { count: 0, kernel_correlated: 0, risky: 0, from: null, to: null },
  };
}

/** The position after which a cursor's page starts: the last run it listed. */
function readPosition(key: readonly string[]): { firstSeenNs: bigint; runId: string } {
  const [firstSeen, runId] = key as [string, string];
  return { firstSeenNs: integerPart(firstSeen), runId };
}
