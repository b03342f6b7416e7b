/**
 * GET /v1/security/responses in the store actor: one page of a run's responses, one per risk, in
 * the risks' order (the gate's decisions on tool calls first: tool-call-risks.ts). A response says what provd did about a risk, or what it recommends:
 * provd enforces only `kill`, and only on commands it runs itself (POST /v1/record, the
 * `enforcements` table); every other deny, quarantine or kill is the caller's to carry out.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { type CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import { judgedEventColumns } from '../judged-events.sql.js';
import { pageToolCallsThenEvents, riskPosition, toolCallResponseOf } from '../tool-call-risks.js';
import type { RisksParams } from '../risks.js';
import { respond, type SecurityResponse } from './response.js';
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
  connection: StoreConnection,
  params: ResponsesParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<SecurityResponses> {
  const opened = await keysetPage(connection, params, formatVersion, ['responses', params.run], 1);
  const { items, next } = await pageToolCallsThenEvents(
    connection,
    params,
    riskPosition(opened.after?.[0] ?? null),
    endSeq,
    judgedEventColumns,
    toolCallResponseOf,
    (judged, commands) => respond(judged, commands.get(judged.event.tool_call_id ?? '') ?? null),
  );
  return {
    schema_version: 'provenance.security_responses/v1',
    run_id: params.run,
    limit: params.limit,
    count: items.length,
    has_more: next !== null,
    next_cursor: next === null ? null : opened.next([next]),
    responses: items,
  };
}
