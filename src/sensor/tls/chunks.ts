/**
 * The TLS chunk records of a batch (struct tls_chunk_event): the plaintext an OpenSSL call moved,
 * with the identity of the process that made the call and the bytes the record does not hold.
 */
import { RecordView } from '../record-view.js';
import {
  batchHeaderBytes,
  header,
  headerBytes,
  layouts,
  RecordOp,
  recordTruncated,
  tlsChunkBytes,
  tlsChunksPerCall,
} from '../records.js';

const chunk = layouts.tls_chunk_event.fields;

export type TlsDirection = 'write' | 'read';

export interface TlsChunk {
  /** The process and its SSL object: one connection. */
  connection: string;
  /** The connection and a direction: one byte stream. */
  stream: string;
  direction: TlsDirection;
  /** The SSL object's address, as hex. */
  conn: string;
  /** Capture time, wall clock. */
  wallNs: bigint;
  /** The record's header (pid, tgid, comm, cgroup...), for the records made from it. */
  identity: Uint8Array;
  /** Where this chunk starts within its call's plaintext: 0 starts a call. */
  offset: number;
  /** Its number in its stream: a hole means the kernel ring had no room for the chunks between. */
  seq: number;
  data: Uint8Array;
  /** Bytes of the call that follow this chunk and no record holds: unreadable, or past the cut. */
  missing: number;
}

/** The chunks of `batch`, in order; records that are no chunk or do not fit are counted. */
export function readChunks(batch: Uint8Array): { chunks: TlsChunk[]; malformed: number } {
  const chunks: TlsChunk[] = [];
  let malformed = 0;
  if (batch.length < batchHeaderBytes) return { chunks, malformed };
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const offsetNs = view.getBigInt64(0, true);
  let at = batchHeaderBytes;
  while (at + headerBytes <= batch.length) {
    const size = view.getUint16(at + header.size, true);
    if (size < headerBytes || at + size > batch.length) return { chunks, malformed: malformed + 1 };
    const record = new RecordView(view, batch, at, size);
    const read = record.u16(header.op) === RecordOp.tlsChunk ? readChunk(record, offsetNs) : undefined;
    if (read === undefined) malformed++;
    else chunks.push(read);
    at += (size + 7) & ~7;
  }
  if (at < batch.length) malformed++; // bytes after the last record, too few for a header
  return { chunks, malformed };
}

function readChunk(record: RecordView, offsetNs: bigint): TlsChunk | undefined {
  if (!record.holds(chunk.data, 0)) return undefined;
  const dataSize = record.u32(chunk.data_size);
  if (!record.holds(chunk.data, dataSize) || dataSize > tlsChunkBytes) return undefined;
  const callSize = record.u32(chunk.call_size);
  const offset = record.u32(chunk.offset);
  const direction = record.u16(chunk.direction) === 1 ? 'write' : 'read';
  const tgid = record.u32(header.tgid);
  const conn = record.u64(chunk.conn).toString(16);
  let missing = 0;
  if (record.u16(chunk.unreadable) !== 0) missing += Math.min(tlsChunkBytes, callSize - offset);
  const lastSent = offset + tlsChunkBytes >= tlsChunkBytes * tlsChunksPerCall;
  if ((record.u32(header.flags) & recordTruncated) !== 0 && lastSent)
    missing += Math.max(0, callSize - offset - Math.max(dataSize, missing));
  return {
    connection: `${tgid}:${conn}`,
    stream: `${tgid}:${conn}:${direction}`,
    direction,
    conn,
    wallNs: record.u64(header.ktime_ns) + offsetNs,
    identity: record.raw(0, headerBytes).slice(),
    offset,
    seq: Number(record.u64(chunk.seq)),
    data: record.raw(chunk.data, dataSize),
    missing,
  };
}
