/**
 * GET /v1/telemetry/audit-associations (and /api/audit/associations) in the store actor: one page
 * of policy decisions with everything they tie together: the event judged (its hash then and now),
 * the risk and response derived from it, the tool call and binding that attributed the event, and
 * the sealed event_batch object that holds it. Of one run, or of every run in event order.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { list, readRows, sql } from '../../store/sql.js';
import { type CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import { judgedEventColumns, pageJudgedEvents, type Judged } from '../judged-events.sql.js';
import { commandFacts } from '../responses/command-facts.sql.js';
import { respond } from '../responses/response.js';
import { associationOf, type AuditAssociation, type GraphLinks } from './audit-association.js';
import { keysetPage } from '../../store/keyset-page.js';

/** Validated parameters of one page; `run` null for every run. */
export interface AuditAssociationsParams {
  run: string | null;
  limit: number;
  cursor: string | null;
}

/** One page of audit associations (`provenance.audit_associations/v1`). */
export interface AuditAssociations {
  schema_version: 'provenance.audit_associations/v1';
  /** The run asked for; null when the page spans every run. */
  run_id: string | null;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  associations: AuditAssociation[];
}

export async function listAuditAssociations(
  connection: StoreConnection,
  params: AuditAssociationsParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<AuditAssociations> {
  const opened = await keysetPage(connection, params, formatVersion, ['audit_associations', params.run], 1);
  const after = opened.afterInteger(-1n);
  const page = await pageJudgedEvents(
    connection,
    params.run,
    after,
    params.limit,
    endSeq,
    judgedEventColumns,
  );
  const links = await graphLinks(connection, page.judged);
  const associations: (AuditAssociation & { seq: bigint })[] = [];
  for (const [run, judged] of byRun(page.judged)) {
    const toolCalls = [...new Set(judged.flatMap(({ event }) => event.tool_call_id ?? []))];
    // a run's page read them with its decisions; a page of every run reads them run by run
    const commands = params.run === null ? await commandFacts(connection, run, toolCalls) : page.commands;
    for (const item of judged) {
      const response = respond(item, commands.get(item.event.tool_call_id ?? '') ?? null);
      associations.push(associationOf(item, response, links));
    }
  }
  associations.sort((a, b) => (a.seq < b.seq ? -1 : 1));
  return {
    schema_version: 'provenance.audit_associations/v1',
    run_id: params.run,
    limit: params.limit,
    count: associations.length,
    has_more: page.hasMore,
    next_cursor: page.hasMore ? opened.next([page.lastSeq!]) : null,
    associations: associations.map(({ seq: _seq, ...association }) => association),
  };
}

function byRun(judged: readonly Judged[]): Map<string, Judged[]> {
  const runs = new Map<string, Judged[]>();
  for (const item of judged) {
    const items = runs.get(item.event.run_id) ?? [];
    items.push(item);
    runs.set(item.event.run_id, items);
  }
  return runs;
}

/** The graph objects the page's events tie to: tool calls, bindings and sealed batches. */
async function graphLinks(connection: StoreConnection, judged: readonly Judged[]): Promise<GraphLinks> {
  if (judged.length === 0) return { toolCalls: new Map(), bindings: new Map(), batches: [] };
  const events = judged.map(({ event }) => event);
  const runs = list([...new Set(events.map((event) => event.run_id))], VARCHAR);
  const toolCalls = list([...new Set(events.flatMap((event) => event.tool_call_id ?? []))], VARCHAR);
  const bindings = list([...new Set(events.flatMap((event) => event.binding_id ?? []))], VARCHAR);
  const first = events[0]!.seq;
  const last = events.at(-1)!.seq;
  const [calls, bound, batches] = await Promise.all([
    readRows<{ run_id: string; tool_call_id: string; object_hash: string }>(
      connection,
      sql`SELECT run_id, tool_call_id, object_hash FROM tool_calls
          WHERE run_id IN (SELECT unnest(${runs})) AND tool_call_id IN (SELECT unnest(${toolCalls}))`,
    ),
    readRows<{ binding_id: string; object_hash: string | null }>(
      connection,
      sql`SELECT binding_id, object_hash FROM bindings WHERE binding_id IN (SELECT unnest(${bindings}))`,
    ),
    readRows<{ run_id: string; seq_from: bigint; seq_to: bigint; object_hash: string }>(
      connection,
      sql`SELECT run_id, seq_from, seq_to, object_hash FROM event_batches
          WHERE run_id IN (SELECT unnest(${runs})) AND object_hash IS NOT NULL
            AND seq_from <= ${last} AND seq_to > ${first}`,
    ),
  ]);
  return {
    toolCalls: new Map(calls.map((row) => [`${row.run_id}\u0000${row.tool_call_id}`, row.object_hash])),
    bindings: new Map(bound.map((row) => [row.binding_id, row.object_hash])),
    batches,
  };
}
