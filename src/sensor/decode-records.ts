/**
 * Decodes a batch of raw sensor records (records.ts) into events, in the normalize pool. Capture
 * times are the kernel's monotonic clock; the batch carries the offset to wall time taken when the
 * ring reader handed it over, so an event that waited in a queue keeps its capture instant.
 */
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { classifyEvent } from '../telemetry/classify.js';
import type { ParsedEvent } from '../model/event.js';
import { emptyParseResult, reject, type ParseResult } from '../telemetry/parse-result.js';
import { decodeConnect, decodeDns } from './decode-network.js';
import { decodeFileOpen, decodeFileRename, decodeFileUnlink } from './decode-file.js';
import { decodePtrace, decodeSetid } from './decode-privilege.js';
import { decodeExec, decodeExit } from './decode-process.js';
import { applyLibraries, applyLocale, applyRepeat } from './folded-records.js';
import { decodeLossReport } from './loss-records.js';
import { RecordView } from './record-view.js';
import { decodeTlsMessage } from './tls/message-record.js';
import { batchHeaderBytes, commBytes, header, headerBytes, RecordOp, recordTruncated } from './records.js';

/** One decoder per op: fills in the event's type and attrs, or says why the record cannot be one. */
type Decoder = (record: RecordView, event: ParsedEvent) => string | undefined;

const decoders = new Map<number, Decoder>([
  [RecordOp.exec, decodeExec],
  [RecordOp.exit, decodeExit],
  [RecordOp.fileOpen, decodeFileOpen],
  [RecordOp.fileRename, decodeFileRename],
  [RecordOp.fileUnlink, decodeFileUnlink],
  [RecordOp.connect, decodeConnect],
  [RecordOp.dns, decodeDns],
  [RecordOp.setuid, (record, event) => decodeSetid(record, event, 'setuid')],
  [RecordOp.setgid, (record, event) => decodeSetid(record, event, 'setgid')],
  [RecordOp.ptrace, decodePtrace],
  [RecordOp.lossReport, decodeLossReport],
  [RecordOp.tlsMessage, decodeTlsMessage],
]);

/** Every record of `bytes` as an event; a record that cannot be read is rejected and counted. */
export function decodeSensorBatch(bytes: Uint8Array): ParseResult {
  const result = emptyParseResult();
  if (bytes.length < batchHeaderBytes) return result;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offsetNs = view.getBigInt64(0, true);
  let at = batchHeaderBytes;
  let number = 0;
  while (at + headerBytes <= bytes.length) {
    number++;
    const size = view.getUint16(at + header.size, true);
    if (size < headerBytes || at + size > bytes.length) {
      reject(result, number, 'missing_field', `record ${number}: its size ${size} does not fit the batch`);
      return result; // the rest cannot be framed
    }
    const record = new RecordView(view, bytes, at, size);
    const op = record.u16(header.op);
    if (op === RecordOp.repeat || op === RecordOp.libraries || op === RecordOp.locale) {
      // completes the event of the record before it (native/src/record-folder.h)
      const before = result.events[result.events.length - 1];
      const failure =
        before === undefined || before.tgid !== record.u32(header.tgid)
          ? 'a folded record without the record it completes'
          : op === RecordOp.repeat
            ? applyRepeat(record, before, offsetNs)
            : op === RecordOp.libraries
              ? applyLibraries(record, before)
              : applyLocale(record, before);
      if (failure !== undefined) reject(result, number, 'unknown_type', `record ${number}: ${failure}`);
      at += (size + 7) & ~7;
      continue;
    }
    const event = commonFields(record, offsetNs);
    const decode = decoders.get(record.u16(header.op));
    const failure =
      decode === undefined
        ? `op ${record.u16(header.op)} is not a record the sensor writes`
        : decode(record, event);
    if (failure !== undefined) reject(result, number, 'unknown_type', `record ${number}: ${failure}`);
    else {
      // the exact bytes of a text field that is not UTF-8 (a path, argv or comm)
      if (Object.keys(record.notUtf8).length > 0) event.attrs.not_utf8_hex = record.notUtf8;
      classifyEvent(event);
      result.events.push(event);
      result.nativeLines.push(0);
    }
    at += (size + 7) & ~7;
  }
  if (at < bytes.length)
    reject(result, number + 1, 'missing_field', `record ${number + 1}: shorter than a record header`);
  return result;
}

/** The header's fields; the type is set by the op's decoder. */
function commonFields(record: RecordView, offsetNs: bigint): ParsedEvent {
  const timeNs = record.u64(header.ktime_ns) + offsetNs;
  const tgid = record.u32(header.tgid);
  const event: ParsedEvent = {
    type: 'generic',
    source: 'provd_sensor',
    time: formatRfc3339Nanos(timeNs),
    timeNs,
    pid: tgid, // the process id users see
    tgid,
    ppid: record.u32(header.ppid),
    uid: record.u32(header.uid),
    loginUid: null, // the sensor does not read it (yet)
    comm: record.cString(header.comm, commBytes, 'comm'),
    cgroupId: record.u64(header.cgroup_id).toString(),
    containerId: null,
    attrs: { tid: record.u32(header.tid), gid: record.u32(header.gid) },
  };
  if ((record.u32(header.flags) & recordTruncated) !== 0) event.attrs.truncated = true;
  return event;
}
