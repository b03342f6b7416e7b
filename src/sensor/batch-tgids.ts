/**
 * The processes a batch of raw records came from (their tgids), read from the records' headers on
 * the main thread without decoding them: capture agents scans only these for TLS targets
 * (tls-targets.ts). Costs a loop over the headers: about 100 records a second beside a watched loop.
 */
import { batchHeaderBytes, header, headerBytes, RecordOp } from './records.js';

/**
 * Each distinct non-zero tgid of the batch's records, less those whose exit the batch holds after
 * their last other record: a process that ended has no maps left to read, and its pid may be another
 * process's by the time a scan reads /proc (beside a watched loop, nearly every process of a batch
 * has ended). A record that does not fit ends the walk.
 */
export function batchTgids(batch: ArrayBuffer): Set<number> {
  const tgids = new Set<number>();
  const view = new DataView(batch);
  for (let at = batchHeaderBytes; at + headerBytes <= batch.byteLength;) {
    const size = view.getUint16(at + header.size, true);
    if (size < headerBytes || at + size > batch.byteLength) break; // the decoder rejects and counts it
    const tgid = view.getUint32(at + header.tgid, true);
    if (tgid !== 0) {
      if (view.getUint16(at + header.op, true) === RecordOp.exit) tgids.delete(tgid);
      else tgids.add(tgid);
    }
    at += (size + 7) & ~7;
  }
  return tgids;
}
