/**
 * Records user space writes itself (loss reports, reassembled TLS messages), framed as the ring
 * reader frames the kernel's: a batch is an int64 clock offset, then records padded to 8 bytes.
 * These records are timed in wall-clock nanoseconds, so their batch's offset is 0.
 */
import { batchHeaderBytes, header, headerBytes } from './records.js';

/** A record of `size` bytes for `op`, timed `wallNs`, its header's identity copied from `identity` when given. */
export function newRecord(op: number, size: number, wallNs: bigint, identity?: Uint8Array): Uint8Array {
  const record = new Uint8Array(size);
  if (identity !== undefined) record.set(identity.subarray(0, headerBytes));
  const view = new DataView(record.buffer);
  view.setUint16(header.op, op, true);
  view.setUint16(header.size, size, true);
  view.setUint32(header.flags, 0, true);
  view.setBigUint64(header.ktime_ns, wallNs, true);
  return record;
}

/** One batch of `records`, with a clock offset of 0 (their times are wall-clock already). */
export function joinRecords(records: readonly Uint8Array[]): Uint8Array {
  const padded = (size: number): number => (size + 7) & ~7;
  const batch = new Uint8Array(
    records.reduce((sum, record) => sum + padded(record.length), batchHeaderBytes),
  );
  let at = batchHeaderBytes;
  for (const record of records) {
    batch.set(record, at);
    at += padded(record.length);
  }
  return batch;
}

/** Writes `text` as UTF-8 into `record` at `offset`, at most `bytes` bytes (cut at a character boundary). */
export function writeText(record: Uint8Array, offset: number, bytes: number, text: string): number {
  const { written } = new TextEncoder().encodeInto(text, record.subarray(offset, offset + bytes));
  return written;
}
