/**
 * Falco JSON alerts (`json_output: true`): the rule that fired, and the syscall's fields in
 * `output_fields` under Falco's field names (`evt.type`, `proc.pid`, `fd.name`, ...).
 */
import type { EventType, ParsedEvent } from '../telemetry/event.js';
import { formatRfc3339Nanos, isStoredInstant, parseRfc3339 } from '../telemetry/rfc3339.js';
import { missingTime } from './received-time.js';
import {
  quoteExcerpt,
  readIdentifier,
  readObject,
  readString,
  readUint32,
  wrongType,
} from './field-value.js';
import { isWriteOpen, readFalcoSyscall } from './falco-syscall.js';
import { rejectLine, rejectTime, rejectWrongType, type LineRejection } from './line-rejection.js';

/** Falco `evt.type` → event type; opens are refined by their flags (falco-syscall.ts: openWriteFlags). */
export const falcoEventTypes: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['execve', 'execve'],
  ['execveat', 'execve'],
  ['connect', 'network_connect'],
  ['open', 'file_open'],
  ['openat', 'file_open'],
  ['openat2', 'file_open'],
  ['creat', 'file_write'],
  ['rename', 'file_rename'],
  ['renameat', 'file_rename'],
  ['renameat2', 'file_rename'],
  ['unlink', 'file_unlink'],
  ['unlinkat', 'file_unlink'],
  ['setuid', 'setuid'],
  ['setgid', 'setgid'],
  ['ptrace', 'ptrace'],
]);

/** An integer evt.time of an instant the store cannot hold: a line error, not a missing time. */
const outOfRange: unique symbol = Symbol('outOfRange');

/**
 * The capture instant from `output_fields["evt.time"]` (integer Unix nanoseconds). JSON.parse rounds
 * such numbers to doubles (2^53 < 1.7e18), so the digits are read from the raw line and checked
 * against the parsed value; undefined when it is absent or not an integer (Falco's default writes a
 * time of day), outOfRange when it is an instant outside what the store holds.
 */
function evtTimeNanos(parsed: unknown, line: string | undefined): bigint | undefined | typeof outOfRange {
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < 0) return undefined;
  if (Number.isSafeInteger(parsed)) return BigInt(parsed);
  if (line === undefined) return undefined;
  for (let at = line.indexOf('"evt.time"'); at !== -1; at = line.indexOf('"evt.time"', at + 1)) {
    let start = at + 10;
    while (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 58) start++; // ' ' ':'
    let end = start;
    while (end < line.length && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
    const digits = line.slice(start, end);
    if (end > start && Number(digits) === parsed) {
      const ns = BigInt(digits);
      return isStoredInstant(ns) ? ns : outOfRange;
    }
  }
  return undefined;
}

/**
 * Parses one Falco alert (already JSON-parsed into an object) into an event or a rejection. `line` is
 * the raw text, needed only for exact `evt.time` nanoseconds when the alert has no `time`.
 */
export function parseFalcoLine(value: Record<string, unknown>, line?: string): ParsedEvent | LineRejection {
  const fields = readObject(value.output_fields);
  if (fields === wrongType) return rejectWrongType('output_fields', 'an object', value.output_fields);
  if (fields === null) return rejectLine('missing_field', 'output_fields: missing');
  const evtType = readString(fields['evt.type']);
  if (evtType === wrongType)
    return rejectWrongType('output_fields["evt.type"]', 'a string', fields['evt.type']);
  if (evtType === null) return rejectLine('missing_field', 'output_fields["evt.type"]: missing');
  let type = falcoEventTypes.get(evtType);
  if (type === undefined) {
    return rejectLine('unknown_type', `output_fields["evt.type"]: ${quoteExcerpt(evtType)} is not mapped`);
  }

  let time = readString(value.time);
  if (time === wrongType) return rejectWrongType('time', 'an RFC 3339 string', value.time);
  let timeNs: bigint | undefined;
  if (time !== null) {
    timeNs = parseRfc3339(time);
    if (timeNs === undefined) return rejectTime('time');
  } else {
    const evtTime = evtTimeNanos(fields['evt.time'], line);
    if (evtTime === outOfRange) return rejectTime('output_fields["evt.time"]');
    // no capture time at all: parseNdjson stamps the ingest instant and marks it (received-time.ts)
    time = evtTime === undefined ? missingTime : formatRfc3339Nanos(evtTime);
    timeNs = evtTime ?? 0n;
  }

  const pid = readUint32(fields['proc.pid']);
  if (pid === wrongType)
    return rejectWrongType('output_fields["proc.pid"]', 'an integer', fields['proc.pid']);
  const ppid = readUint32(fields['proc.ppid']);
  if (ppid === wrongType)
    return rejectWrongType('output_fields["proc.ppid"]', 'an integer', fields['proc.ppid']);
  const uid = readUint32(fields['user.uid']);
  if (uid === wrongType)
    return rejectWrongType('output_fields["user.uid"]', 'an integer', fields['user.uid']);
  const comm = readIdentifier(fields['proc.name']);
  if (comm === wrongType)
    return rejectWrongType('output_fields["proc.name"]', 'a string', fields['proc.name']);
  const container = readIdentifier(fields['container.id']);
  if (container === wrongType) {
    return rejectWrongType('output_fields["container.id"]', 'a string', fields['container.id']);
  }

  const attrs: Record<string, unknown> = {};
  const rejection = readAlert(value, attrs) ?? readFalcoSyscall(type, fields, attrs);
  if (rejection !== undefined) return rejection;
  if (type === 'file_open' && isWriteOpen(fields)) type = 'file_write';
  return {
    type,
    source: 'falco',
    time,
    timeNs,
    pid,
    tgid: null,
    ppid,
    uid,
    comm,
    cgroupId: null,
    // Falco names processes outside any container "host"
    containerId: container === 'host' ? null : container,
    attrs,
  };
}

/** The alert's own fields: rule, priority, tags, hostname. */
function readAlert(
  value: Record<string, unknown>,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  // spelled out: constant keys keep each load monomorphic on the per-alert path
  const rule = readString(value.rule);
  if (rule === wrongType) return rejectWrongType('rule', 'a string', value.rule);
  if (rule !== null) attrs.rule = rule;
  const priority = readString(value.priority);
  if (priority === wrongType) return rejectWrongType('priority', 'a string', value.priority);
  if (priority !== null) attrs.priority = priority;
  const hostname = readString(value.hostname);
  if (hostname === wrongType) return rejectWrongType('hostname', 'a string', value.hostname);
  if (hostname !== null) attrs.hostname = hostname;
  const tags = value.tags;
  if (tags !== undefined && tags !== null) {
    if (!Array.isArray(tags)) return rejectWrongType('tags', 'an array of strings', tags);
    for (const tag of tags)
      if (typeof tag !== 'string') return rejectWrongType('tags', 'an array of strings', tags);
    attrs.tags = tags;
  }
  return undefined;
}
