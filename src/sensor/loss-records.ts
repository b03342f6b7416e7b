/**
 * Loss reports of the sensor as records of its own (op `lossReport`, written here, never by BPF):
 * they travel the sensor's path like any record and become `capture_loss` events, which the store
 * records as coverage gaps and producer health counts (telemetry/reported-gaps.sql.ts).
 */
import { noProcessIdentity, type ParsedEvent } from '../model/event.js';
import type { RecordView } from './record-view.js';
import { joinRecords, newRecord, writeText } from './record-writer.js';
import { RecordOp } from './records.js';

/** Where records were lost or cut: the kernel's counters, then the way to the store. */
export const lossKinds = [
  'ring_full',
  'pending_full',
  'truncated',
  'handoff',
  'backpressure',
  'commit_failed',
  'malformed',
  // the kernel skipped a probe's program while another BPF program ran on the CPU
  'missed',
  // TLS (src/sensor/tls/): messages the reassembler had to drop; plaintext it could not read as
  // HTTP (not loss: counted as `unparsed_tls_messages`, no coverage gap)
  'tls_evicted',
  'tls_unparsed',
  // TLS targets (src/sensor/tls-targets.ts) whose plaintext is not captured: one per target
  'tls_unsupported',
  'tls_over_budget',
  // not loss: events capture agents left out on purpose (producer counter `filtered`, no coverage gap)
  'filtered',
  // TLS: messages whose plaintext was not all captured (chunks the kernel ring dropped)
  'tls_uncaptured',
] as const;

export type LossKind = (typeof lossKinds)[number];

/** Records lost (or cut) since the last report, of one kind at one probe (`sensor` for the way to the store). */
export interface Loss {
  kind: LossKind;
  probe: string;
  count: number;
  /** What was lost, when a probe and a count do not say it (the binary a TLS target is). */
  detail?: string;
}

/** struct loss_report (user space only): the header, then these fields. */
export const lossReport = {
  kind: 64,
  count: 72,
  probe: 80,
  probeBytes: 32,
  detail: 112,
  detailBytes: 256,
  size: 368,
} as const;

/** One loss report, timed `nowNs` (wall clock). */
export function lossRecord(loss: Loss, nowNs: bigint): Uint8Array {
  const record = newRecord(RecordOp.lossReport, lossReport.size, nowNs);
  const view = new DataView(record.buffer);
  view.setUint32(lossReport.kind, lossKinds.indexOf(loss.kind), true);
  view.setFloat64(lossReport.count, loss.count, true);
  writeText(record, lossReport.probe, lossReport.probeBytes, loss.probe);
  writeText(record, lossReport.detail, lossReport.detailBytes, loss.detail ?? '');
  return record;
}

/** A batch of loss reports, timed `nowNs` (wall clock: the batch's clock offset is 0). */
export function encodeLossBatch(losses: readonly Loss[], nowNs: bigint): Uint8Array {
  return joinRecords(losses.map((loss) => lossRecord(loss, nowNs)));
}

/** A loss report as a `capture_loss` event of no process. */
export function decodeLossReport(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(lossReport.probe, lossReport.probeBytes))
    return `loss report of ${record.size} bytes is too short`;
  const kind = lossKinds[record.u32(lossReport.kind)];
  if (kind === undefined) return `loss report of kind ${record.u32(lossReport.kind)}`;
  const count = new DataView(record.raw(lossReport.count, 8).slice().buffer).getFloat64(0, true);
  Object.assign(event, { type: 'capture_loss', ...noProcessIdentity });
  // a truncated record was kept, cut: it counts as cut, not as lost
  event.attrs = {
    loss: `sensor_${kind}`,
    probe: record.cString(lossReport.probe, lossReport.probeBytes, 'probe'),
  };
  const detail = record.cString(lossReport.detail, lossReport.detailBytes, 'detail');
  if (detail !== null) event.attrs.detail = detail;
  if (kind === 'truncated') event.attrs.truncated_events = count;
  else if (kind === 'filtered') event.attrs.filtered_events = count;
  else if (kind === 'tls_unparsed') event.attrs.unparsed_tls_messages = count;
  else event.attrs.lost_events = count;
  return undefined;
}
