/**
 * GET /api/compare/records in the store actor: two recorded tool calls (of one run or of two)
 * compared field by field, with both records whole beside the comparison.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import type { TimelineToolCall } from '../timeline/context-records.js';
import { compareToolCalls, type ToolCallComparison } from './compare-tool-calls.js';
import { readToolCalls, type ToolCallFacts } from './tool-call-facts.sql.js';
import { requireRun } from '../../store/run-exists.sql.js';

/** Validated parameters: the two tool calls (the route fills the defaults). */
export interface CompareRecordsParams {
  run: string;
  toolCall: string;
  otherRun: string;
  otherToolCall: string;
}

/** One side of the comparison: the tool call as POST /v1/record stored it. */
export interface RecordSide {
  run_id: string;
  evidence_level: ToolCallFacts['evidence_level'];
  tool_call: TimelineToolCall;
}

/** Two tool-call records compared (`provenance.compare_records/v1`): `left` is `run`'s, `right` the other's. */
export interface CompareRecords extends ToolCallComparison {
  schema_version: 'provenance.compare_records/v1';
  left: RecordSide;
  right: RecordSide;
}

/** Compares the two records; 404 when a run or a tool call in it is unknown. */
export async function compareRecords(
  connection: StoreConnection,
  params: CompareRecordsParams,
): Promise<CompareRecords> {
  const left = await readRecord(connection, params.run, params.toolCall);
  const right = await readRecord(connection, params.otherRun, params.otherToolCall);
  return {
    schema_version: 'provenance.compare_records/v1',
    left: sideOf(left),
    right: sideOf(right),
    ...compareToolCalls(left, right),
  };
}

async function readRecord(
  connection: StoreConnection,
  run: string,
  toolCall: string,
): Promise<ToolCallFacts> {
  await requireRun(connection, run);
  const [facts] = (await readToolCalls(connection, run, toolCall, 1)).calls;
  if (facts === undefined)
    throw new ProvdError('not_found', `run "${run}" holds no recorded tool call "${toolCall}"`);
  return facts;
}

function sideOf(facts: ToolCallFacts): RecordSide {
  return { run_id: facts.run_id, evidence_level: facts.evidence_level, tool_call: facts.call };
}
