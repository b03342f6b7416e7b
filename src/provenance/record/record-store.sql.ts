/**
 * A recorded tool call on the store thread, in one transaction: its artifacts (content-addressed
 * bytes), its `tool_call` object in the run's context chain (parent: the binding that attributes
 * its runtime events), then one `artifact` object per output stream and one `file_effect` object
 * per effect, each naming the tool call as its second parent, and the tool_calls row.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { execute, inTransaction, readRows, sql } from '../../store/sql.js';
import { appendToChains, ensureRun, type ChainEntry } from '../graph-chains.sql.js';
import { insertArtifacts } from '../artifacts.sql.js';
import { sha256 } from '../graph-object.js';
import { noteCommandRun } from './command-runs.sql.js';
import type { FileEffect } from './file-effects.js';
import type { ToolCallStatus } from './record-answer.js';

/** One captured output stream to store. */
export interface OutputWrite {
  stream: 'stdout' | 'stderr';
  content: Uint8Array;
  size: number;
  truncated: boolean;
  streamHash: string;
}

/** A tool call to store, as the record route built it. */
export interface RecordWrite {
  runId: string;
  toolCallId: string;
  bindingId: string | null;
  status: ToolCallStatus;
  startedNs: bigint;
  endedNs: bigint | null;
  /** The tool_call object's payload: JSON values only. */
  toolCall: Record<string, unknown>;
  outputs: OutputWrite[];
  effects: FileEffect[];
}

/** The addresses the write gave. */
export interface RecordWritten {
  toolCallHash: string;
  outputs: { stream: 'stdout' | 'stderr'; hash: string; objectHash: string }[];
  effectHashes: string[];
}

/** A tool call's identity. */
export interface ToolCallKey {
  run: string;
  toolCall: string;
}

/** Throws tool_call_exists when the run holds the tool call already. */
export async function assertToolCallFree(connection: StoreConnection, key: ToolCallKey): Promise<void> {
  const [taken] = await readRows<{ n: bigint }>(
    connection,
    sql`SELECT count(*) AS n FROM tool_calls WHERE run_id = ${key.run} AND tool_call_id = ${key.toolCall}`,
  );
  if (taken!.n > 0n)
    throw new ProvdError('tool_call_exists', `run "${key.run}" already holds tool call "${key.toolCall}"`);
}

/** Stores a tool call; throws tool_call_exists when its run holds the id already. Call inside the write queue. */
export async function writeRecord(connection: StoreConnection, write: RecordWrite): Promise<RecordWritten> {
  return inTransaction(connection, async () => {
    const { runId, toolCallId } = write;
    await assertToolCallFree(connection, { run: runId, toolCall: toolCallId });
    await ensureRun(connection, runId, write.startedNs);
    const bindingHash = await bindingObject(connection, write.bindingId);
    const [toolCall] = await appendToChains(connection, [
      entry(runId, (previous, index) => ({
        kind: 'tool_call',
        run_id: runId,
        parents: bindingHash === null ? [previous] : [previous, bindingHash],
        payload: { index, ...write.toolCall },
      })),
    ]);
    const toolCallHash = toolCall!.hash;
    const contentHashes = write.outputs.map((output) => sha256(output.content));
    await storeArtifacts(connection, write.outputs, contentHashes);
    const children = await appendToChains(connection, [
      ...write.outputs.map((output, i) =>
        entry(runId, (previous, index) => ({
          kind: 'artifact',
          run_id: runId,
          parents: [previous, toolCallHash],
          payload: {
            index,
            tool_call_id: toolCallId,
            stream: output.stream,
            content_hash: contentHashes[i],
            size: output.size,
            stored_bytes: output.content.length,
            truncated: output.truncated,
            stream_hash: output.streamHash,
          },
        })),
      ),
      ...write.effects.map((effect) =>
        entry(runId, (previous, index) => ({
          kind: 'file_effect',
          run_id: runId,
          parents: [previous, toolCallHash],
          payload: { index, tool_call_id: toolCallId, evidence_level: 'self_observed', ...effect },
        })),
      ),
    ]);
    const outputs = write.outputs.map((output, i) => ({
      stream: output.stream,
      hash: contentHashes[i]!,
      objectHash: children[i]!.hash,
    }));
    const effectHashes = children.slice(write.outputs.length).map((object) => object.hash);
    const record = JSON.stringify({ ...write.toolCall, object_hash: toolCallHash, outputs, effectHashes });
    if (write.toolCall['executed'] === true) noteCommandRun(connection, runId);
    await execute(
      connection,
      sql`INSERT INTO tool_calls VALUES (${runId}, ${toolCallId}, ${write.status}, ${record}, ${toolCallHash},
          ${write.startedNs}, ${write.endedNs})`,
    );
    return { toolCallHash, outputs, effectHashes };
  });
}

function entry(runId: string, build: ChainEntry['build']): ChainEntry {
  return { runId, chain: 'context', build };
}

/** The binding's object hash, when the record made a binding. */
async function bindingObject(connection: StoreConnection, bindingId: string | null): Promise<string | null> {
  if (bindingId === null) return null;
  const [row] = await readRows<{ object_hash: string | null }>(
    connection,
    sql`SELECT object_hash FROM bindings WHERE binding_id = ${bindingId}`,
  );
  return row?.object_hash ?? null;
}

function storeArtifacts(
  connection: StoreConnection,
  outputs: readonly OutputWrite[],
  hashes: readonly string[],
): Promise<void> {
  return insertArtifacts(
    connection,
    outputs.map(({ content, size, truncated }, i) => ({ hash: hashes[i]!, content, size, truncated })),
  );
}
