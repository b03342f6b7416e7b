/**
 * Cilium Tetragon JSON export (`tetra getevents -o json`, export files): one GetEventsResponse per
 * line, the event under a key naming its kind. Field names follow api/v1/tetragon/tetragon.proto.
 */
import type { EventType, ParsedEvent } from '../telemetry/event.js';
import { parseRfc3339 } from '../telemetry/rfc3339.js';
import { missingTime } from './received-time.js';
import { readIdentifier, readObject, readPort, readString, readUint32, wrongType } from './field-value.js';
import { rejectLine, rejectTime, rejectWrongType, type LineRejection } from './line-rejection.js';
import { mapKprobe } from './tetragon-kprobe.js';

/**
 * Event kinds of Tetragon's GetEventsResponse. The first four are mapped; the others are recognised as
 * Tetragon (so `auto` does not misread them as native) and rejected as `unknown_type`.
 */
export const tetragonEventKinds = [
  'process_exec',
  'process_exit',
  'process_kprobe',
  'process_connect',
  'process_tracepoint',
  'process_uprobe',
  'process_lsm',
  'process_usdt',
  'process_loader',
  'process_throttle',
] as const;

/** The event kind key of a Tetragon line, or undefined when it has none. */
export function tetragonEventKind(value: Record<string, unknown>): string | undefined {
  for (const kind of tetragonEventKinds) if (value[kind] !== undefined) return kind;
  return undefined;
}

/** String fields of `process` kept in attrs under the same names. */
const processTextFields = ['arguments', 'cwd', 'exec_id', 'parent_exec_id'];

/** `docker://<id>` → `<id>`: the same container then has the same id in every source. */
function stripRuntimeScheme(id: string): string {
  const at = id.indexOf('://');
  return at === -1 ? id : id.slice(at + 3);
}

/** Parses one Tetragon line (already JSON-parsed into an object) into an event or a rejection. */
export function parseTetragonLine(value: Record<string, unknown>): ParsedEvent | LineRejection {
  const kind = tetragonEventKind(value);
  if (kind === undefined) {
    return rejectLine('unknown_format', 'not a Tetragon event: no process_exec/exit/kprobe/connect object');
  }
  const body = readObject(value[kind]);
  if (body === wrongType || body === null) return rejectWrongType(kind, 'an object', value[kind]);
  const time = readString(value.time);
  if (time === wrongType) return rejectWrongType('time', 'an RFC 3339 string', value.time);
  // no capture time: parseNdjson stamps the ingest instant and marks it (received-time.ts)
  const timeNs = time === null ? 0n : parseRfc3339(time);
  if (timeNs === undefined) return rejectTime('time');
  const proc = readObject(body.process);
  if (proc === wrongType) return rejectWrongType(`${kind}.process`, 'an object', body.process);
  if (proc === null) return rejectLine('missing_field', `${kind}.process: missing`);

  const attrs: Record<string, unknown> = {};
  const binary = readString(proc.binary);
  if (binary === wrongType) return rejectWrongType(`${kind}.process.binary`, 'a string', proc.binary);
  let type: EventType;
  switch (kind) {
    case 'process_exec':
    case 'process_exit':
      type = kind === 'process_exec' ? 'execve' : 'process_exit';
      if (binary !== null) attrs.path = binary;
      if (kind === 'process_exit') {
        const status = body.status;
        if (status !== undefined && !Number.isSafeInteger(status)) {
          return rejectWrongType('process_exit.status', 'an integer', status);
        }
        if (status !== undefined) attrs.exit_code = status;
        if (typeof body.signal === 'string' && body.signal !== '') attrs.signal = body.signal;
      }
      break;
    case 'process_kprobe': {
      const mapped = mapKprobe(body, attrs);
      if (typeof mapped !== 'string') return mapped;
      type = mapped;
      if (binary !== null) attrs.binary = binary;
      break;
    }
    case 'process_connect': {
      type = 'network_connect';
      if (binary !== null) attrs.binary = binary;
      const rejection = readConnect(body, attrs);
      if (rejection !== undefined) return rejection;
      break;
    }
    default:
      return rejectLine('unknown_type', `${kind} events are not mapped to a provd event type`);
  }

  const rejection = readProcess(kind, proc, binary, attrs);
  if (rejection !== undefined) return rejection;
  const pid = readUint32(proc.pid);
  const uid = readUint32(proc.uid);
  if (pid === wrongType)
    return rejectWrongType(`${kind}.process.pid`, 'an integer in 0..4294967295', proc.pid);
  if (uid === wrongType)
    return rejectWrongType(`${kind}.process.uid`, 'an integer in 0..4294967295', proc.uid);
  const parent = readObject(body.parent);
  const parentPid = parent === wrongType || parent === null ? undefined : parent.pid;
  const ppid = readUint32(parentPid);
  if (ppid === wrongType)
    return rejectWrongType(`${kind}.parent.pid`, 'an integer in 0..4294967295', parentPid);
  const comm = binary === null ? null : binary.slice(binary.lastIndexOf('/') + 1) || null;
  const containerId = readContainerId(proc);
  if (typeof value.node_name === 'string') attrs.node_name = value.node_name;
  return {
    type,
    source: 'tetragon',
    time: time ?? missingTime,
    timeNs,
    pid,
    tgid: null,
    ppid,
    uid,
    comm,
    cgroupId: null,
    containerId,
    attrs,
  };
}

/** Copies the process fields the event record keeps: arguments, cwd, exec ids, pod. */
function readProcess(
  kind: string,
  proc: Record<string, unknown>,
  binary: string | null,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  for (const key of processTextFields) {
    const text = readString(proc[key]);
    if (text === wrongType) return rejectWrongType(`${kind}.process.${key}`, 'a string', proc[key]);
    if (text !== null) attrs[key] = text;
  }
  if (kind === 'process_exec' && binary !== null) {
    const args = attrs.arguments as string | undefined;
    attrs.command = args === undefined || args === '' ? binary : binary + ' ' + args;
  }
  const pod = readObject(proc.pod);
  if (pod !== wrongType && pod !== null) {
    if (typeof pod.namespace === 'string') attrs.pod_namespace = pod.namespace;
    if (typeof pod.name === 'string') attrs.pod_name = pod.name;
  }
  return undefined;
}

/** The container id from `pod.container.id` (full, runtime scheme stripped), else `docker` (truncated). */
function readContainerId(proc: Record<string, unknown>): string | null {
  const pod = readObject(proc.pod);
  if (pod !== wrongType && pod !== null) {
    const container = readObject(pod.container);
    if (container !== wrongType && container !== null) {
      const id = readIdentifier(container.id);
      if (typeof id === 'string') return stripRuntimeScheme(id);
    }
  }
  const docker = readIdentifier(proc.docker);
  return typeof docker === 'string' ? docker : null;
}

/** The older process_connect event: `destination_ip`/`destination_port`, `source_ip`/`source_port`. */
function readConnect(
  body: Record<string, unknown>,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  const ip = readString(body.destination_ip);
  if (ip === wrongType)
    return rejectWrongType('process_connect.destination_ip', 'a string', body.destination_ip);
  const port = readPort(body.destination_port);
  if (port === wrongType) {
    return rejectWrongType('process_connect.destination_port', 'a port in 0..65535', body.destination_port);
  }
  if (ip !== null) attrs.dst_ip = ip;
  if (port !== null) attrs.dst_port = port;
  if (typeof body.source_ip === 'string') attrs.src_ip = body.source_ip;
  if (typeof body.source_port === 'number') attrs.src_port = body.source_port;
  if (typeof body.protocol === 'string') attrs.protocol = body.protocol;
  return undefined;
}
