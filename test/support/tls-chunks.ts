/** TLS chunk records (struct tls_chunk_event) built in tests, as the kernel side writes them. */
import { joinRecords } from '../../src/sensor/record-writer.js';
import { header, layouts, RecordOp, recordTruncated } from '../../src/sensor/records.js';

const fields = layouts.tls_chunk_event.fields;

export interface ChunkSpec {
  data: string | Uint8Array;
  tgid?: number;
  conn?: bigint;
  direction?: 'write' | 'read';
  /** Capture time (the batch's clock offset is 0: wall clock). */
  timeNs?: bigint;
  offset?: number;
  /** Bytes the call moved; the data's length by default. */
  callSize?: number;
  truncated?: boolean;
  unreadable?: boolean;
  comm?: string;
  /** Its number in its stream; by default the next of its (tgid, conn, direction) in this process. */
  seq?: number;
}

const nextSeqs = new Map<string, number>();

export function chunkRecord(spec: ChunkSpec): Uint8Array {
  const data = typeof spec.data === 'string' ? Buffer.from(spec.data, 'latin1') : spec.data;
  const size = fields.data + (spec.unreadable === true ? 0 : data.length);
  const record = new Uint8Array(size);
  const view = new DataView(record.buffer);
  view.setUint16(header.op, RecordOp.tlsChunk, true);
  view.setUint16(header.size, size, true);
  view.setUint32(header.flags, spec.truncated === true ? recordTruncated : 0, true);
  view.setBigUint64(header.ktime_ns, spec.timeNs ?? 1_790_000_000_000_000_000n, true);
  view.setUint32(header.tgid, spec.tgid ?? 4242, true);
  view.setUint32(header.tid, spec.tgid ?? 4242, true);
  record.set(Buffer.from(spec.comm ?? 'agent'), header.comm);
  view.setBigUint64(fields.conn, spec.conn ?? 0x7f00_1000n, true);
  view.setUint32(fields.call_size, spec.callSize ?? data.length, true);
  view.setUint32(fields.offset, spec.offset ?? 0, true);
  view.setUint32(fields.data_size, spec.unreadable === true ? 0 : data.length, true);
  view.setUint16(fields.direction, spec.direction === 'read' ? 2 : 1, true);
  view.setUint16(fields.unreadable, spec.unreadable === true ? 1 : 0, true);
  const stream = `${spec.tgid ?? 4242}:${spec.conn ?? 0x7f00_1000n}:${spec.direction ?? 'write'}`;
  const seq = spec.seq ?? nextSeqs.get(stream) ?? 0;
  nextSeqs.set(stream, seq + 1);
  view.setBigUint64(fields.seq, BigInt(seq), true);
  if (spec.unreadable !== true) record.set(data, fields.data);
  return record;
}

/** A batch of chunk records (clock offset 0). */
export function chunkBatch(specs: readonly ChunkSpec[]): Uint8Array {
  return joinRecords(specs.map(chunkRecord));
}
