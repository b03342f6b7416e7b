/**
 * GET /api/artifact in the store actor: one stored artifact (content-addressed bytes a recorded
 * command wrote to stdout or stderr) with its metadata, the objects that name it, and its bytes up
 * to a bound: as UTF-8 text when they are text, else base64. The bytes are served as stored (no
 * redaction): they are evidence, and their hash is recomputed so the answer proves it.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { artifactOf, type TimelineArtifact } from '../timeline/context-records.js';
import { objectColumns, type StoredObjectRow } from './context-object.js';
import { sha256 } from '../../provenance/graph-object.js';
import type { ObjectHash } from '../../model/object-hash.js';

/** Validated parameters: the artifact (its address, or an artifact object's) and how many bytes to show. */
export interface ArtifactParams {
  hash: string;
  maxBytes: number;
}

/** Most objects listed as naming the artifact (all are counted). */
export const maxNamedBy = 100;

/** An artifact object that names the bytes: which run, tool call and stream wrote them. */
export interface ArtifactReference extends TimelineArtifact {
  run_id: string;
}

/** One artifact (`provenance.artifact/v1`). */
export interface ArtifactAnswer {
  schema_version: 'provenance.artifact/v1';
  /** The address: `sha256:` of the stored bytes. */
  hash: ObjectHash;
  /** Bytes the stream carried. */
  size: Count;
  /** Bytes stored: the first ones of the stream. */
  stored_bytes: Count;
  /** The stored bytes are a prefix of the stream (its first MiB). */
  truncated: boolean;
  recorded_at: DateTimeText;
  /** `sha256:` of the stored bytes, computed for this answer. */
  recomputed_hash: ObjectHash;
  /** The recomputed hash is the address: the bytes are unaltered. */
  hash_ok: boolean;
  /** The artifact objects naming these bytes, by when they were stored; at most max_named_by. */
  named_by: ArtifactReference[];
  named_by_total: Count;
  max_named_by: Count;
  /** The stored bytes from the first, at most `max-bytes` of them. */
  content: {
    /** `utf8` when the bytes shown are UTF-8 text without NUL; `base64` otherwise. */
    encoding: 'utf8' | 'base64';
    data: string;
    /** Bytes shown (a UTF-8 cut ends on a character: up to 3 fewer than asked). */
    bytes: Count;
    /** Every stored byte is shown. */
    complete: boolean;
  };
}

/** The artifact; 404 not_found when `hash` names neither stored bytes nor an artifact object. */
export async function readArtifact(
  connection: StoreConnection,
  params: ArtifactParams,
): Promise<ArtifactAnswer> {
  const address = await addressOf(connection, params.hash);
  const [row] = await readRows<{ content: Uint8Array; size: bigint; truncated: boolean; created_ns: bigint }>(
    connection,
    sql`SELECT content, size, truncated, created_ns FROM artifacts WHERE hash = ${address}`,
  );
  if (row === undefined) throw new ProvdError('not_found', `no artifact ${params.hash} is stored`);
  // the bytes' hash names them in artifact objects' bodies: the text finds candidates, the payload decides
  const named = (
    await readRows<StoredObjectRow>(
      connection,
      sql`SELECT ${raw(objectColumns)} FROM objects WHERE kind = 'artifact' AND contains(body, ${address})
          ORDER BY created_ns, hash`,
    )
  ).flatMap((object) => {
    const artifact = artifactOf(object);
    return artifact.content_hash === address ? [{ ...artifact, run_id: object.run_id }] : [];
  });
  const recomputed = sha256(row.content);
  return {
    schema_version: 'provenance.artifact/v1',
    hash: address,
    size: Number(row.size),
    stored_bytes: row.content.length,
    truncated: row.truncated,
    recorded_at: formatRfc3339Nanos(row.created_ns),
    recomputed_hash: recomputed,
    hash_ok: recomputed === address,
    named_by: named.slice(0, maxNamedBy),
    named_by_total: named.length,
    max_named_by: maxNamedBy,
    content: contentOf(row.content, params.maxBytes),
  };
}

/** The address of the bytes `hash` names: itself, or the content hash of the artifact object at `hash`. */
async function addressOf(connection: StoreConnection, hash: string): Promise<string> {
  const [object] = await readRows<{ content_hash: string | null }>(
    connection,
    sql`SELECT json_extract_string(body, '$.payload.content_hash') AS content_hash FROM objects
        WHERE hash = ${hash} AND kind = 'artifact'`,
  );
  return object?.content_hash ?? hash;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The first `max` bytes as text when they are UTF-8 (a cut moved back to a character's start), else base64. */
function contentOf(bytes: Uint8Array, max: number): ArtifactAnswer['content'] {
  const shown = bytes.subarray(0, max);
  const cut = shown.length < bytes.length;
  // a cut can split a character: up to 3 of its bytes are left for the next look
  const least = Math.max(Math.min(shown.length, 1), shown.length - (cut ? 3 : 0));
  for (let end = shown.length; end >= least; end--) {
    const text = decodedOrNull(shown.subarray(0, end));
    if (text !== null) return { encoding: 'utf8', data: text, bytes: end, complete: end === bytes.length };
  }
  return {
    encoding: 'base64',
    data: Buffer.from(shown).toString('base64'),
    bytes: shown.length,
    complete: !cut,
  };
}

function decodedOrNull(bytes: Uint8Array): string | null {
  try {
    const text = utf8.decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}
