/**
 * One page of a run's risks or responses as the cursor asked it: one item per decision, the gate's
 * decisions on its tool calls first, then the policy's on its events (tool-call-risks.ts).
 */
import type { StoreConnection } from '../store/store-connection.js';
import { keysetPage } from '../store/keyset-page.js';
import type { Judged, JudgedEvent } from './judged-events.sql.js';
import type { CommandFacts } from './responses/response.js';
import type { RisksParams } from './risks.js';
import type { SecurityRisks } from './security-risks.js';
import type { ToolCallDecisionRow } from './tool-call-decisions.sql.js';
import { pageToolCallsThenEvents, riskPosition } from './tool-call-risks.js';

/** A page's fields before its items, as risks' and responses' answers list them, and its items. */
export type RiskOrderedPage<Item> = Omit<SecurityRisks, 'schema_version' | 'risks'> & { items: Item[] };

/**
 * The page of `list` (`risks`, `responses`: its cursors fit it alone) of the run asked: `ofCall`
 * makes the item of a tool call's decision, `ofEvent` that of an event's (read with `columns`, its
 * tool_call_id among them), given the facts of the command provd ran for its tool call, if any.
 */
export async function readRiskOrderedPage<Column extends keyof JudgedEvent, Item>(
  connection: StoreConnection,
  params: RisksParams,
  formatVersion: number,
  endSeq: bigint,
  list: 'risks' | 'responses',
  columns: readonly (Column | 'seq' | 'id' | 'tool_call_id')[],
  ofCall: (row: ToolCallDecisionRow) => Item,
  ofEvent: (
    judged: Judged<Pick<JudgedEvent, Column | 'seq' | 'id' | 'tool_call_id'>>,
    command: CommandFacts | null,
  ) => Item,
): Promise<RiskOrderedPage<Item>> {
  const opened = await keysetPage(connection, params, formatVersion, [list, params.run], 1);
  const { items, next } = await pageToolCallsThenEvents(
    connection,
    params,
    riskPosition(opened.after?.[0] ?? null),
    endSeq,
    columns,
    ofCall,
    (judged, commands) => ofEvent(judged, commands.get(judged.event.tool_call_id ?? '') ?? null),
  );
  return {
    run_id: params.run,
    limit: params.limit,
    count: items.length,
    has_more: next !== null,
    next_cursor: next === null ? null : opened.next([next]),
    items,
  };
}
