/**
 * What the 10 s and 60 s windows count of an event, decided when it is normalized and stored with
 * it (events.risky, events.bytes), so the commit counts windows in SQL (window-upsert.sql.ts).
 */
import type { EventType } from '../model/event.js';

/** The window lengths, in seconds, that every event is counted in. */
export const windowLengths = [10, 60] as const;

export type WindowLength = (typeof windowLengths)[number];

/**
 * The event types the default policy decides against whatever else the event says: its rules'
 * blocks that name a type alone are built from this list (security/policy/default-policy.ts).
 */
export const riskyTypes = [
  'secret_path',
  'metadata_ip',
  'private_cidr',
  'ptrace',
] as const satisfies readonly EventType[];

/** An event type risky by itself. */
export type RiskyType = (typeof riskyTypes)[number];

const riskyByType: ReadonlySet<EventType> = new Set(riskyTypes);

/** True for events the default policy would not simply allow (stored with each event). */
export function isRisky(type: EventType, attrs: Readonly<Record<string, unknown>>): boolean {
  if (riskyByType.has(type)) return true;
  if (type === 'setuid' || type === 'credential_change') return attrs['target_uid'] === 0;
  if (type === 'setgid') return attrs['target_gid'] === 0;
  return false;
}

/**
 * Bytes an event moved, when its attrs say (stored with each event): a positive count a BIGINT
 * holds exactly; any other value counts no bytes (its attrs keep it as sent).
 */
export function eventBytes(attrs: Readonly<Record<string, unknown>>): number {
  const bytes = attrs['bytes'] ?? attrs['length'];
  return typeof bytes === 'number' && Number.isSafeInteger(bytes) && bytes > 0 ? bytes : 0;
}
