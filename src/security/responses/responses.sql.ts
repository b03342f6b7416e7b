/**
 * GET /v1/security/responses in the store actor: one page of a run's responses, one per risk, in
 * the order of their events. A response says what provd did about a risk, or what it recommends:
 * provd enforces only `kill`, and only on commands it runs itself (POST /v1/record, the
 * `enforcements` table); every other deny, quarantine or kill is the caller's to carry out.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { VARCHAR } from '@duckdb/node-api';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { list, readRows, sql } from '../../store/sql.js';
import { type CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import { judgedEventColumns, pageJudgedEvents } from '../judged-events.sql.js';
import type { RisksParams } from '../risks.js';
import { respond, type CommandFacts, type EnforcementRow, type SecurityResponse } from './response.js';
import { keysetPage } from '../../store/keyset-page.js';

/** One page of a run's responses (`provenance.security_responses/v1`). */
export interface SecurityResponses {
  schema_version: 'provenance.security_responses/v1';
  run_id: string;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  responses: SecurityResponse[];
}

/** The parameters of a page: as the risks page's. */
export type ResponsesParams = RisksParams;

export async function listResponses(
  connection: DuckDBConnection,
  params: ResponsesParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<SecurityResponses> {
  const opened = await keysetPage(connection, params, formatVersion, ['responses', params.run], 1);
  const after = opened.afterInteger(-1n);
  const page = await pageJudgedEvents(
    connection,
    params.run,
    after,
    params.limit,
    endSeq,
    judgedEventColumns,
  );
  const toolCalls = [...new Set(page.judged.flatMap(({ event }) => event.tool_call_id ?? []))];
  const commands = await commandFacts(connection, params.run, toolCalls);
  return {
    schema_version: 'provenance.security_responses/v1',
    run_id: params.run,
    limit: params.limit,
    count: page.judged.length,
    has_more: page.hasMore,
    next_cursor: page.hasMore ? opened.next([page.lastSeq!]) : null,
    responses: page.judged.map((judged) =>
      respond(judged, commands.get(judged.event.tool_call_id ?? '') ?? null),
    ),
  };
}

/** What provd knows of the tool calls it ran among `toolCalls`: how each ended, and its kill. */
export async function commandFacts(
  connection: DuckDBConnection,
  run: string,
  toolCalls: readonly string[],
): Promise<Map<string, CommandFacts>> {
  if (toolCalls.length === 0) return new Map();
  const ids = list(toolCalls, VARCHAR);
  const executed = await readRows<{ tool_call_id: string; ended_ns: bigint | null }>(
    connection,
    sql`SELECT tool_call_id, ended_ns FROM tool_calls WHERE run_id = ${run}
        AND tool_call_id IN (SELECT unnest(${ids})) AND json_extract(record, '$.executed')::BOOLEAN`,
  );
  const kills = await readRows<EnforcementRow & { tool_call_id: string }>(
    connection,
    sql`SELECT tool_call_id, event_id, outcome, target_kind, target_id, processes_killed, message, enforced_ns
        FROM enforcements WHERE run_id = ${run} AND tool_call_id IN (SELECT unnest(${ids}))
        ORDER BY enforced_ns`,
  );
  const facts = new Map<string, CommandFacts>();
  for (const row of executed)
    facts.set(row.tool_call_id, {
      endedAt: row.ended_ns === null ? null : formatRfc3339Nanos(row.ended_ns),
      endedNs: row.ended_ns,
      kill: null,
    });
  for (const { tool_call_id: id, ...kill } of kills) {
    // a command still running has no tool_calls row yet, but its kill is already recorded
    const known = facts.get(id) ?? { endedAt: null, endedNs: null, kill: null };
    facts.set(id, { ...known, kill: known.kill ?? kill });
  }
  return facts;
}
