/**
 * Falco JSON alerts (`json_output: true`): the rule that fired, and the syscall's fields in
 * `output_fields` under Falco's field names (`evt.type`, `proc.pid`, `fd.name`, ...).
 */
import { unsetLoginUid, type EventType, type ParsedEvent } from '../model/event.js';
import { formatRfc3339Nanos, isStoredInstant, parseRfc3339 } from '../shared/rfc3339.js';
import { missingTime } from './received-time.js';
import { inferFalcoType } from './falco-infer.js';
import {
  readCountOrDecimal,
  readIdentifier,
  readObject,
  readString,
  readUint32,
  wrongType,
} from './field-value.js';
import { fieldsFromOutput, type OutputTextFields } from './falco-output-text.js';
import { isWriteOpen, readFalcoSyscall } from './falco-syscall.js';
import {
  isLineRejection,
  rejectLine,
  rejectTime,
  rejectWrongType,
  type LineRejection,
} from './line-rejection.js';

/** Falco `evt.type` → event type; opens are refined by their flags (falco-syscall.ts: openWriteFlags). */
export const falcoEventTypes: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['execve', 'execve'],
  ['execveat', 'execve'],
  ['connect', 'network_connect'],
  ['listen', 'network_listen'],
  ['accept', 'network_accept'],
  ['accept4', 'network_accept'],
  ['open', 'file_open'],
  ['openat', 'file_open'],
  ['openat2', 'file_open'],
  ['open_by_handle_at', 'file_open'],
  ['creat', 'file_write'],
  ['rename', 'file_rename'],
  ['renameat', 'file_rename'],
  ['renameat2', 'file_rename'],
  ['unlink', 'file_unlink'],
  ['unlinkat', 'file_unlink'],
  ['setuid', 'setuid'],
  ['setresuid', 'setuid'],
  ['setreuid', 'setuid'],
  ['setgid', 'setgid'],
  ['setresgid', 'setgid'],
  ['setregid', 'setgid'],
  ['ptrace', 'ptrace'],
  ['setns', 'namespace_change'],
  ['unshare', 'namespace_change'],
  ['init_module', 'module_load'],
  ['finit_module', 'module_load'],
]);

/** Falco's priorities by their number in the gRPC outputs API (falco/outputs.proto). */
const grpcPriorities: readonly string[] = [
  'Emergency',
  'Alert',
  'Critical',
  'Error',
  'Warning',
  'Notice',
  'Informational',
  'Debug',
];

/** Falco's own report of events its driver dropped: a coverage gap, not an attack. */
const dropRulePrefix = 'Falco internal: syscall event drop';

/** An integer evt.time of an instant the store cannot hold: a line error, not a missing time. */
const outOfRange: unique symbol = Symbol('outOfRange');

/**
 * The exact digits of the integer output field `key` (e.g. `evt.time`, Unix nanoseconds), read from
 * the raw line: JSON.parse rounds such numbers to doubles (2^53 < 1.7e18). Undefined when the line
 * does not hold digits matching the parsed value.
 */
function integerDigits(key: string, parsed: number, line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  const quoted = JSON.stringify(key);
  for (let at = line.indexOf(quoted); at !== -1; at = line.indexOf(quoted, at + 1)) {
    let start = at + quoted.length;
    while (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 58) start++; // ' ' ':'
    let end = start;
    while (end < line.length && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
    const digits = line.slice(start, end);
    if (end > start && Number(digits) === parsed) return digits;
  }
  return undefined;
}

/**
 * The capture instant from `output_fields["evt.time"]`: undefined when it is absent or not an integer
 * (Falco's default writes a time of day), outOfRange when it is an instant the store cannot hold.
 */
function evtTimeNanos(parsed: unknown, line: string | undefined): bigint | undefined | typeof outOfRange {
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < 0) return undefined;
  if (Number.isSafeInteger(parsed)) return BigInt(parsed);
  const digits = integerDigits('evt.time', parsed, line);
  if (digits === undefined) return undefined;
  const ns = BigInt(digits);
  return isStoredInstant(ns) ? ns : outOfRange;
}

/**
 * The output fields as kept in attrs: an integer a double cannot hold (`evt.time`,
 * `evt.time.iso8601` as some exporters send it) becomes its exact digits, so nothing is rounded.
 */
function keptFields(fields: Record<string, unknown>, line: string | undefined): Record<string, unknown> {
  let kept = fields;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || Number.isSafeInteger(value)) continue;
    const digits = integerDigits(key, value, line);
    if (digits !== undefined) kept = { ...kept, [key]: digits };
  }
  return kept;
}

/**
 * Parses one Falco alert (already JSON-parsed into an object) into an event or a rejection. `line` is
 * the raw text, needed only for exact `evt.time` nanoseconds when the alert has no `time`. Every alert
 * is kept: its type comes from `evt.type`, else from the fields present (falco-infer.ts), else it is
 * `generic`; alerts of plugin sources (k8s_audit, aws_cloudtrail, ...) are `generic` with their source.
 */
export function parseFalcoLine(value: Record<string, unknown>, line?: string): ParsedEvent | LineRejection {
  let fields = readObject(value.output_fields);
  if (fields === wrongType) return rejectWrongType('output_fields', 'an object', value.output_fields);
  let fromText: OutputTextFields | null = null;
  if (fields === null) {
    if (typeof value.rule !== 'string') return rejectLine('missing_field', 'output_fields: missing');
    // Falco 0.41+ told not to write output_fields: what its rule printed, read back from the text
    fromText =
      typeof value.output === 'string' ? fieldsFromOutput(value.output) : { fields: {}, ambiguous: [] };
    fields = fromText.fields;
  }
  const source = readString(value.source);
  if (source === wrongType) return rejectWrongType('source', 'a string', value.source);
  const evtType = readString(fields['evt.type']);
  if (evtType === wrongType)
    return rejectWrongType('output_fields["evt.type"]', 'a string', fields['evt.type']);

  const instant = readAlertTime(value, fields, line);
  if (isLineRejection(instant)) return instant;

  const pid = readUint32(fields['proc.pid']);
  if (pid === wrongType)
    return rejectWrongType('output_fields["proc.pid"]', 'an integer', fields['proc.pid']);
  const ppid = readUint32(fields['proc.ppid']);
  if (ppid === wrongType)
    return rejectWrongType('output_fields["proc.ppid"]', 'an integer', fields['proc.ppid']);
  const uid = readUint32(fields['user.uid']);
  if (uid === wrongType)
    return rejectWrongType('output_fields["user.uid"]', 'an integer', fields['user.uid']);
  // Falco prints an unset login uid as -1
  const loginUid = fields['user.loginuid'] === -1 ? null : readUint32(fields['user.loginuid']);
  if (loginUid === wrongType)
    return rejectWrongType('output_fields["user.loginuid"]', 'an integer', fields['user.loginuid']);
  const comm = readIdentifier(fields['proc.name']);
  if (comm === wrongType)
    return rejectWrongType('output_fields["proc.name"]', 'a string', fields['proc.name']);
  const container = readIdentifier(fields['container.id']);
  if (container === wrongType) {
    return rejectWrongType('output_fields["container.id"]', 'a string', fields['container.id']);
  }

  const attrs: Record<string, unknown> = {};
  const alertRejection = readAlert(value, attrs);
  if (alertRejection !== undefined) return alertRejection;
  let type: EventType;
  if (typeof value.rule === 'string' && value.rule.startsWith(dropRulePrefix)) {
    type = 'capture_loss';
    attrs.loss = 'syscall_drop';
    const drops = readCountOrDecimal(fields['n_drops']); // Falco prints the counts as strings
    if (typeof drops === 'number') attrs.lost_events = drops;
  } else if (source !== null && source !== 'syscall') {
    type = 'generic';
  } else {
    type = (evtType === null ? inferFalcoType(fields, attrs) : falcoEventTypes.get(evtType)) ?? 'generic';
    const rejection = readFalcoSyscall(type, fields, attrs);
    if (rejection !== undefined) return rejection;
    if (type === 'file_open' && isWriteOpen(fields)) type = 'file_write';
    // a rule on opens for writing that prints no flags says so in its output (Write below binary dir)
    if (type === 'file_open' && fields['evt.arg.flags'] === undefined && opensForWriting(attrs)) {
      type = 'file_write';
      attrs.type_inferred_from = evtType === null ? 'fd.name, output' : 'output';
    }
  }
  if (type === 'generic') attrs.kind = evtType === null ? `falco:${source ?? 'syscall'}` : evtType;
  readOutcome(fields, attrs);
  if (fromText === null) attrs.output_fields = keptFields(fields, line);
  else {
    // formatted text a watched command partly writes: kept apart from fields Falco sent as such
    attrs.fields_from_output = fields;
    if (fromText.ambiguous.length > 0) attrs.output_labels_ambiguous = fromText.ambiguous;
  }
  return {
    type,
    source: 'falco',
    time: instant.time,
    timeNs: instant.timeNs,
    pid,
    tgid: null,
    ppid,
    uid,
    loginUid: loginUid === unsetLoginUid ? null : loginUid,
    comm,
    cgroupId: null,
    // Falco names processes outside any container "host"
    containerId: container === 'host' ? null : container,
    attrs,
  };
}

/**
 * The capture instant: `time` as RFC 3339 or as gRPC's `{seconds, nanos}`, else the integer
 * `output_fields["evt.time"]`, else missing (parseNdjson stamps the ingest instant and marks it).
 */
function readAlertTime(
  value: Record<string, unknown>,
  fields: Record<string, unknown>,
  line: string | undefined,
): { time: string; timeNs: bigint } | LineRejection {
  const time = value.time;
  if (typeof time === 'string') {
    const timeNs = parseRfc3339(time);
    return timeNs === undefined ? rejectTime('time') : { time, timeNs };
  }
  if (time !== undefined && time !== null) {
    const timeNs = timestampNanos(time);
    if (timeNs === wrongType) return rejectWrongType('time', 'an RFC 3339 string or {seconds, nanos}', time);
    if (!isStoredInstant(timeNs)) return rejectTime('time');
    return { time: formatRfc3339Nanos(timeNs), timeNs };
  }
  const evtTime = evtTimeNanos(fields['evt.time'], line);
  if (evtTime === outOfRange) return rejectTime('output_fields["evt.time"]');
  if (evtTime === undefined) return { time: missingTime, timeNs: 0n };
  return { time: formatRfc3339Nanos(evtTime), timeNs: evtTime };
}

/** A protobuf Timestamp as JSON objects carry it: `{seconds, nanos}`, seconds maybe a decimal string. */
function timestampNanos(value: unknown): bigint | typeof wrongType {
  const object = readObject(value);
  if (object === wrongType || object === null) return wrongType;
  const seconds = readCountOrDecimal(object.seconds ?? 0);
  const nanos = readCountOrDecimal(object.nanos ?? 0);
  if (seconds === wrongType || nanos === wrongType || seconds === null || nanos === null) return wrongType;
  if (nanos > 999_999_999) return wrongType;
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
}

/** Whether the syscall failed: `evt.res` (`SUCCESS`, an errno name or a number) and `evt.failed`. */
function readOutcome(fields: Record<string, unknown>, attrs: Record<string, unknown>): void {
  const res = fields['evt.res'];
  const failed = fields['evt.failed'];
  if (typeof res === 'string' || typeof res === 'number') attrs.result = res;
  if (typeof failed === 'boolean') attrs.failed = failed;
  else if (typeof res === 'string' && res !== '') attrs.failed = res !== 'SUCCESS' && res.startsWith('E');
  else if (typeof res === 'number') attrs.failed = res < 0;
}

/**
 * Falco's rules on opens for writing (the `open_write` macro: Write below binary dir, below etc, below
 * root, below monitored dir, the rpm database) all say "opened for writing" in their output.
 */
function opensForWriting(attrs: Record<string, unknown>): boolean {
  return typeof attrs.output === 'string' && attrs.output.includes('opened for writing');
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
  // gRPC outputs send the priority as its enum number
  const priority =
    typeof value.priority === 'number' ? grpcPriorities[value.priority] : readString(value.priority);
  if (priority === wrongType || priority === undefined) {
    return rejectWrongType('priority', 'a priority name or number 0..7', value.priority);
  }
  if (priority !== null) attrs.priority = priority;
  const hostname = readString(value.hostname);
  if (hostname === wrongType) return rejectWrongType('hostname', 'a string', value.hostname);
  if (hostname !== null) attrs.hostname = hostname;
  if (typeof value.source === 'string') attrs.falco_source = value.source;
  const output = readString(value.output);
  if (output === wrongType) return rejectWrongType('output', 'a string', value.output);
  if (output !== null) attrs.output = output;
  const tags = value.tags;
  if (tags !== undefined && tags !== null) {
    if (!Array.isArray(tags)) return rejectWrongType('tags', 'an array of strings', tags);
    for (const tag of tags)
      if (typeof tag !== 'string') return rejectWrongType('tags', 'an array of strings', tags);
    attrs.tags = tags;
  }
  return undefined;
}
