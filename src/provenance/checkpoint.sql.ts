/** GET /v1/graph/checkpoint in the store actor: a run's latest signed checkpoint, its envelope as stored. */
import type { StoreConnection } from '../store/store-connection.js';
import { ProvdError } from '../shared/errors.js';
import { readRows, sql } from '../store/sql.js';
import type { DsseEnvelope } from './dsse.js';
import { requireRun } from '../store/run-exists.sql.js';
import { jsonText, type JsonText } from '../store/json-text.js';

/** The params of the `checkpoint` store query. */
export interface CheckpointParams {
  run: string;
}

/** A run's latest checkpoint: check it with the key of `key_id` from GET /v1/graph/keys. */
export interface GraphCheckpoint {
  schema_version: 'provenance.checkpoint/v1';
  run_id: string;
  /** the checkpoint object's address: sha256 of the envelope's decoded payload */
  hash: string;
  /** its index in the run's checkpoint chain */
  index: number;
  key_id: string;
  /** DSSE: the signature covers PAE(payloadType, payload) */
  envelope: DsseEnvelope;
}

/** The run's latest checkpoint; 404 when the run has none yet. */
export async function latestCheckpoint(
  connection: StoreConnection,
  params: CheckpointParams,
): Promise<JsonText<GraphCheckpoint>> {
  await requireRun(connection, params.run);
  const [row] = await readRows<{ hash: string; chain_index: bigint; envelope: string; key_id: string }>(
    connection,
    sql`SELECT hash, chain_index, envelope, key_id FROM checkpoints WHERE run_id = ${params.run}
        ORDER BY chain_index DESC LIMIT 1`,
  );
  if (row === undefined) throw new ProvdError('not_found', `run "${params.run}" has no checkpoint yet`);
  const answer: GraphCheckpoint = {
    schema_version: 'provenance.checkpoint/v1',
    run_id: params.run,
    hash: row.hash,
    index: Number(row.chain_index),
    key_id: row.key_id,
    envelope: JSON.parse(row.envelope) as DsseEnvelope,
  };
  return jsonText(answer);
}
