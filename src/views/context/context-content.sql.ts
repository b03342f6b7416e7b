/**
 * GET /v1/context/content in the store actor: one object of the graph by its address, with its
 * stored bytes as they are and their hash recomputed now, so anyone can check it by hand:
 * `sha256(body)` must be the address, and `body` the canonical JSON (RFC 8785) of what it parses to.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { sha256 } from '../../provenance/graph-object.js';
import type { ObjectHash } from '../../model/object-hash.js';
import {
  describeObject,
  objectColumns,
  parsedOrNull,
  type ObjectBrief,
  type StoredObjectRow,
} from './context-object.js';

/** Validated parameters: the object's address. */
export interface ContextContentParams {
  hash: string;
}

/** One object, whole (`provenance.context_content/v1`). */
export interface ContextContent extends ObjectBrief {
  schema_version: 'provenance.context_content/v1';
  /** The stored bytes: the canonical JSON of `{kind, run_id, parents, payload}` the address is the hash of. */
  body: string;
  /** The body's payload; null when the stored bytes are not a graph object. */
  payload: { [key: string]: unknown } | null;
  /** `sha256:` of the body's UTF-8 bytes, computed for this answer. */
  recomputed_hash: ObjectHash;
  /** The recomputed hash is the address: the bytes are the ones the graph names. */
  hash_ok: boolean;
  /** The body is a graph object of its row's kind and run, written canonically (RFC 8785). */
  well_formed: boolean;
}

/** The object at `hash`; 404 not_found when nothing is stored there. */
export async function readContextContent(
  connection: StoreConnection,
  params: ContextContentParams,
): Promise<ContextContent> {
  const [row] = await readRows<StoredObjectRow>(
    connection,
    sql`SELECT ${raw(objectColumns)} FROM objects WHERE hash = ${params.hash}`,
  );
  if (row === undefined) throw new ProvdError('not_found', `no object ${params.hash} is stored`);
  const object = parsedOrNull(row.body);
  const recomputed = sha256(row.body);
  return {
    schema_version: 'provenance.context_content/v1',
    ...describeObject(row),
    body: row.body,
    payload: object?.payload ?? null,
    recomputed_hash: recomputed,
    hash_ok: recomputed === row.hash,
    well_formed:
      object !== null &&
      object.kind === row.kind &&
      object.run_id === row.run_id &&
      canonicalJson(object) === row.body,
  };
}
