/**
 * GET /v1/security/responses in the store actor: one page of a run's responses, one per risk, in
 * the risks' order (the gate's decisions on tool calls first: tool-call-risks.ts). A response says what provd did about a risk, or what it recommends:
 * provd enforces only `kill`, and only on commands it runs itself (POST /v1/record, the
 * `enforcements` table); every other deny, quarantine or kill is the caller's to carry out.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { judgedEventColumns } from '../judged-events.sql.js';
import { readRiskOrderedPage } from '../risk-ordered-page.js';
import { toolCallResponseOf } from '../tool-call-risks.js';
import type { RisksParams } from '../risks.js';
import { respond } from './response.js';
import type { SecurityResponses } from './security-responses.js';

/** The parameters of a page: as the risks page's. */
export type ResponsesParams = RisksParams;

export async function listResponses(
  connection: StoreConnection,
  params: ResponsesParams,
  formatVersion: number,
  endSeq: bigint,
): Promise<SecurityResponses> {
  const { items, ...page } = await readRiskOrderedPage(
    connection,
    params,
    formatVersion,
    endSeq,
    'responses',
    judgedEventColumns,
    toolCallResponseOf,
    respond,
  );
  return { schema_version: 'provenance.security_responses/v1', ...page, responses: items };
}
