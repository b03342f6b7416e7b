/** What every explain path is made of: its trail, where it reads, and the steps up to the run. */
import type { ToolCallAccount } from './tool-call-account.js';
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { evidenceName } from '../../model/codes.js';
import type { ExplainBasis, ExplainNode, ExplainStep } from './explain-result.js';
import type { BatchPlaces } from '../../telemetry/batch-places.sql.js';
import type { Sealed } from './explain-reads.sql.js';
import {
  type Attribution,
  type ProcessRow,
  type SeenProcesses,
  attributionBasis,
  readAttribution,
} from './process-reads.sql.js';
import { runNode, toolCallNode } from './tool-call-reads.sql.js';

/** A path being built: its steps, and whether it reached the run. */
export interface Trail {
  path: ExplainStep[];
  complete: boolean;
  incomplete_reason: string | null;
}

export const done = (path: ExplainStep[]): Trail => ({ path, complete: true, incomplete_reason: null });

export const stopped = (path: ExplainStep[], reason: string): Trail => ({
  path,
  complete: false,
  incomplete_reason: reason,
});

/**
 * Where explain reads: a read connection; a second one for reads that need not wait for the path
 * (the tool call, binding and run, the sealing batches); and the first position the process rollup
 * may not cover yet.
 */
export interface Source {
  connection: StoreConnection;
  /** Where each batch's events are, as far as the store thread knows. */
  places: BatchPlaces | null;
  side: StoreConnection;
  unfoldedFrom: bigint | null;
  /** Which processes the run saw, as far as the reads so far tell. */
  seen: SeenProcesses;
}

export interface Explained {
  node: ExplainNode;
  trail: Trail;
  touches?: ExplainNode[];
  touchCount?: number;
  otherMatches?: number;
  /** A hook tool call's kernel's account. */
  toolCall?: ToolCallAccount;
}

/** The 404 for a node nothing names: run_not_found for a run, not_found for any other kind. */
export function unknown(kind: string, id: string): never {
  throw new ProvdError(kind === 'run' ? 'run_not_found' : 'not_found', `no ${kind} "${id}" is known`);
}

/** The tool call, binding and run of an attributed row; undefined for a row no binding claimed. */
export async function attributionOf(
  connection: StoreConnection,
  row: ProcessRow,
): Promise<Attribution | undefined> {
  if (row.run_id === null || row.tool_call_id === null) return undefined;
  return readAttribution(connection, row.run_id, row.tool_call_id, row.binding_id);
}

/** → the tool call the row's binding names → run. */
export function fromAttributed(
  row: ProcessRow,
  path: ExplainStep[],
  attribution: Attribution | undefined,
): Trail {
  if (row.run_id === null || row.tool_call_id === null || attribution === undefined)
    return stopped(path, 'no binding has claimed this event: it is attributed to no tool call or run');
  const { recorded, bindingHash, run } = attribution;
  path.push({
    basis: attributionBasis(row, bindingHash),
    node: toolCallNode(row.run_id, row.tool_call_id, recorded),
  });
  return toRunNode(row.run_id, path, recorded?.object_hash ?? bindingHash, run);
}

/** tool call → run. */
export async function toRun(
  connection: StoreConnection,
  runId: string,
  path: ExplainStep[],
  heldBy: string | null,
): Promise<Trail> {
  return toRunNode(runId, path, heldBy, await runNode(connection, runId));
}

/** tool call → the run's node (undefined: the run has no record). */
export function toRunNode(
  runId: string,
  path: ExplainStep[],
  heldBy: string | null,
  run: ExplainNode | undefined,
): Trail {
  if (run === undefined) return stopped(path, `run "${runId}" has no record`);
  const last = path[path.length - 1];
  const recorded = last?.node.kind === 'tool_call' && last.node.object_hash !== null;
  path.push({
    basis: {
      relation: 'part_of',
      method: recorded ? 'recorded' : 'binding',
      confidence: 1,
      evidence_level: last?.node.evidence_level ?? last?.basis.evidence_level ?? null,
      binding_id: last?.basis.binding_id ?? null,
      object_hash: heldBy,
    },
    node: run,
  });
  return done(path);
}

export function basis(
  relation: ExplainBasis['relation'],
  method: string,
  confidence: number,
  row: Sealed<ProcessRow>,
): ExplainBasis {
  return {
    relation,
    method,
    confidence,
    evidence_level: evidenceName(row.evidence_level),
    binding_id: row.binding_id,
    object_hash: row.sealed_by,
  };
}
