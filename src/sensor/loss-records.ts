/**
 * Loss reports of the sensor as records of its own (op `lossReport`, written here, never by BPF):
 * they travel the sensor's path like any record and become `capture_loss` events, which the store
 * records as coverage gaps and producer health counts (telemetry/reported-gaps.ts).
 */
import { noProcessIdentity, type ParsedEvent } from '../telemetry/event.js';
import type { RecordView } from './record-view.js';
import { batchHeaderBytes, header, RecordOp } from './records.js';

/** Where records were lost or cut: the kernel's counters, then the way to the store. */
export const lossKinds = [
  'ring_full',
  'pending_full',
  'truncated',
  'handoff',
  'backpressure',
  'commit_failed',
  'malformed',
] as const;

export type LossKind = (typeof lossKinds)[number];

/** Records lost (or cut) since the last report, of one kind at one probe (`sensor` for the way to the store). */
export interface Loss {
  kind: LossKind;
  probe: string;
  count: number;
}

/** struct loss_report (user space only): the header, then these fields. */
export const lossReport = { kind: 64, count: 72, probe: 80, probeBytes: 32, size: 112 } as const;

/** A batch of loss reports, timed `nowNs` (wall clock: the batch's clock offset is 0). */
export function encodeLossBatch(losses: readonly Loss[], nowNs: bigint): Uint8Array {
  const bytes = new Uint8Array(batchHeaderBytes + losses.length * lossReport.size);
  const view = new DataView(bytes.buffer);
  const encoder = new TextEncoder();
  losses.forEach((loss, index) => {
    const at = batchHeaderBytes + index * lossReport.size;
    view.setUint16(at + header.op, RecordOp.lossReport, true);
    view.setUint16(at + header.size, lossReport.size, true);
    view.setBigUint64(at + header.ktime_ns, nowNs, true);
    view.setUint32(at + lossReport.kind, lossKinds.indexOf(loss.kind), true);
    view.setFloat64(at + lossReport.count, loss.count, true);
    bytes.set(encoder.encode(loss.probe).subarray(0, lossReport.probeBytes), at + lossReport.probe);
  });
  return bytes;
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
  if (kind === 'truncated') event.attrs.truncated_events = count;
  else event.attrs.lost_events = count;
  return undefined;
}
