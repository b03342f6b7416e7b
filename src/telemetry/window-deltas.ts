/**
 * Window deltas: what one batch adds to the 10 s and 60 s windows of each run and type. Workers
 * compute them so the store actor merges a few rows per batch instead of aggregating events; the
 * store computes them the same way for spooled events that join a run later.
 */
import type { EvidenceLevel } from './codes.js';
import { typeCode } from './codes.js';
import type { EventType } from './event.js';

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

/** True for events the default policy would not simply allow (stored with each event). */
export function isRisky(type: EventType, attrs: Readonly<Record<string, unknown>>): boolean {
  if (riskyTypes.has(type)) return true;
  if (type === 'setuid' || type === 'credential_change') return attrs['target_uid'] === 0;
  if (type === 'setgid') return attrs['target_gid'] === 0;
  return false;
}

/** Bytes an event moved, when its attrs say (stored with each event). */
export function eventBytes(attrs: Readonly<Record<string, unknown>>): number {
  const bytes = attrs['bytes'] ?? attrs['length'];
  return typeof bytes === 'number' && Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
}

/** What a window counts of one event. */
export interface WindowFacts {
  runId: string | null;
  type: EventType;
  timeNs: bigint;
  evidenceLevel: EvidenceLevel;
  risky: boolean;
  bytes: number;
}

/** Accumulates deltas for attributed events. */
export class WindowDeltas {
  private readonly rows = new Map<string, WindowDelta>();

  add(event: WindowFacts): void {
    if (event.runId === null) return;
    const correlated = event.evidenceLevel === 'kernel_correlated' ? 1 : 0;
    const risky = event.risky ? 1 : 0;
    const bytes = event.bytes;
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
