/**
 * The processes a batch of raw records came from (their tgids), read from the records' headers on
 * the main thread without decoding them: capture agents scans only these for TLS targets
 * (tls-targets.ts). Costs a loop over the headers: about 100 records a second beside a watched loop.
 */
import { batchHeaderBytes, header, headerBytes } from './records.js';

/** Each distinct non-zero tgid of the batch's records; a record that does not fit ends the walk. */
export function batchTgids(batch: ArrayBuffer): Set<number> {
  const tgids = new Set<number>();
  const view = new DataView(batch);
  for (let at = batchHeaderBytes; at + headerBytes <= batch.byteLength;) {
    const size = view.getUint16(at + header.size, true);
    if (size < headerBytes || at + size > batch.byteLength) break; // the decoder rejects and counts it
    const tgid = view.getUint32(at + header.tgid, true);
    if (tgid !== 0) tgids.add(tgid);
    at += (size + 7) & ~7;
  }
  return tgids;
}
