/**
 * Window deltas: what one batch adds to the 10 s and 60 s windows of each run and type. Workers
 * compute them so the store actor merges a few rows per batch instead of aggregating events.
 */
import type { EventRecord } from './event-row.js';
import { typeCode } from './codes.js';

/** One window row's increments. */
export interface WindowDelta {
  runId: string;
  windowS: WindowLength;
  bucketNs: bigint;
  type: number;
  events: number;
  correlated: number;
  risky: number;
  bytes: number;
}

/** The window lengths, in seconds, that every event is counted in. */
export const windowLengths = [10, 60] as const;

export type WindowLength = (typeof windowLengths)[number];

const riskyTypes = new Set(['secret_path', 'metadata_ip', 'private_cidr', 'ptrace']);

/** True for events the default policy would not simply allow. */
export function isRisky(event: EventRecord): boolean {
  if (riskyTypes.has(event.type)) return true;
  if (event.type === 'setuid') return event.attrs['target_uid'] === 0;
  if (event.type === 'setgid') return event.attrs['target_gid'] === 0;
  return false;
}

/** Bytes an event moved, when its attrs say. */
export function eventBytes(event: EventRecord): number {
  const bytes = event.attrs['bytes'] ?? event.attrs['length'];
  return typeof bytes === 'number' && Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
}

/** Accumulates deltas for attributed events. */
export class WindowDeltas {
  private readonly rows = new Map<string, WindowDelta>();

  add(event: EventRecord): void {
    if (event.runId === null) return;
    const correlated = event.evidenceLevel === 'kernel_correlated' ? 1 : 0;
    const risky = isRisky(event) ? 1 : 0;
    const bytes = eventBytes(event);
    const type = typeCode(event.type);
    // one BigInt division per event; the rest is number math (Unix seconds fit a double exactly)
    const seconds =
      Number(event.timeNs / 1_000_000_000n) -
      (event.timeNs < 0n && event.timeNs % 1_000_000_000n !== 0n ? 1 : 0);
    for (const windowS of windowLengths) {
      const bucketS = Math.floor(seconds / windowS) * windowS;
      const key = `${event.runId}\u0000${windowS}\u0000${bucketS}\u0000${type}`;
      let row = this.rows.get(key);
      if (row === undefined) {
        const bucketNs = BigInt(bucketS) * 1_000_000_000n;
        row = { runId: event.runId, windowS, bucketNs, type, events: 0, correlated: 0, risky: 0, bytes: 0 };
        this.rows.set(key, row);
      }
      row.events++;
      row.correlated += correlated;
      row.risky += risky;
      row.bytes += bytes;
    }
  }

  list(): WindowDelta[] {
    return [...this.rows.values()];
  }
}
