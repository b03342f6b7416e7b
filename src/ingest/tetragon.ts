/**
 * Cilium Tetragon JSON export (`tetra getevents -o json`, export files): one GetEventsResponse per
 * line, the event under a key naming its kind. Field names follow api/v1/tetragon/tetragon.proto.
 */
import { noProcessIdentity, unsetLoginUid, type EventType, type ParsedEvent } from '../model/event.js';
import { parseRfc3339 } from '../shared/rfc3339.js';
import { missingTime } from './received-time.js';
import { readIdentifier, readObject, readPort, readString, readUint32, wrongType } from './field-value.js';
import { rejectLine, rejectTime, rejectWrongType, type LineRejection } from './line-rejection.js';
import { splitTetragonArguments } from './tetragon-argv.js';
import { hookType, readHookArgs } from './tetragon-hook.js';
import { keepWhole, readTetragonLoss } from './tetragon-loss.js';
import { markNoDestination } from './no-destination.js';

/**
 * Event kinds of Tetragon's GetEventsResponse (api/v1/tetragon/events.proto), the older socket events
 * (`process_connect`, `_close`, `_listen`, `_accept`) and the loss reports. Every kind is kept: those
 * without a type of their own become `generic` events.
 */
export const tetragonEventKinds = [
  'process_exec',
  'process_exit',
  'process_kprobe',
  'process_tracepoint',
  'process_uprobe',
  'process_lsm',
  'process_usdt',
  'process_loader',
  'process_throttle',
  'rate_limit_info',
  'process_connect',
  'process_close',
  'process_listen',
  'process_accept',
] as const;

/** Kinds that always name a process: one without it is malformed. */
const processKinds = new Set<string>(
  tetragonEventKinds.filter((kind) => kind !== 'process_throttle' && kind !== 'rate_limit_info'),
);

/** The older socket events, by the type each becomes. */
const socketKinds: Readonly<Record<string, EventType>> = {
  process_connect: 'network_connect',
  process_listen: 'network_listen',
  process_accept: 'network_accept',
  process_close: 'generic',
};

/**
 * The event kind key of a Tetragon line, or undefined when it has none: one of tetragonEventKinds, or
 * a kind this list does not know yet (a `process_*` object that holds a `process` object).
 */
export function tetragonEventKind(value: Record<string, unknown>): string | undefined {
  for (const kind of tetragonEventKinds) if (value[kind] !== undefined) return kind;
  for (const key in value) {
    if (!key.startsWith('process_')) continue;
    const body = readObject(value[key]);
    if (body !== wrongType && body !== null && typeof body.process === 'object') return key;
  }
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
    return rejectLine('unknown_format', 'not a Tetragon event: no process_exec, process_kprobe, ... object');
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

  const attrs: Record<string, unknown> = {};
  if (typeof value.node_name === 'string') attrs.node_name = value.node_name;
  if (proc === null) {
    if (processKinds.has(kind)) return rejectLine('missing_field', `${kind}.process: missing`);
    // throttling and rate-limit reports, and kinds this version does not know: no process to name
    const type = readTetragonLoss(kind, body, attrs);
    if (typeof type !== 'string') return type;
    return { ...noProcess, type, time: time ?? missingTime, timeNs, attrs };
  }
  const binary = readString(proc.binary);
  if (binary === wrongType) return rejectWrongType(`${kind}.process.binary`, 'a string', proc.binary);
  const type = readKind(kind, body, binary, attrs);
  if (typeof type !== 'string') return type;

  const rejection = readProcess(kind, proc, binary, attrs);
  if (rejection !== undefined) return rejection;
  const pid = readUint32(proc.pid);
  const uid = readUint32(proc.uid);
  if (pid === wrongType)
    return rejectWrongType(`${kind}.process.pid`, 'an integer in 0..4294967295', proc.pid);
  if (uid === wrongType)
    return rejectWrongType(`${kind}.process.uid`, 'an integer in 0..4294967295', proc.uid);
  const auid = readUint32(proc.auid);
  if (auid === wrongType)
    return rejectWrongType(`${kind}.process.auid`, 'an integer in 0..4294967295', proc.auid);
  const parent = readObject(body.parent);
  const parentPid = parent === wrongType || parent === null ? undefined : parent.pid;
  const ppid = readUint32(parentPid);
  if (ppid === wrongType)
    return rejectWrongType(`${kind}.parent.pid`, 'an integer in 0..4294967295', parentPid);
  const comm = binary === null ? null : binary.slice(binary.lastIndexOf('/') + 1) || null;
  const containerId = readContainerId(proc);
  return {
    type,
    source: 'tetragon',
    time: time ?? missingTime,
    timeNs,
    pid,
    tgid: null,
    ppid,
    uid,
    loginUid: auid === unsetLoginUid ? null : auid,
    comm,
    cgroupId: null,
    containerId,
    attrs,
  };
}

/** The identity fields of an event that names no process. */
const noProcess = { source: 'tetragon', ...noProcessIdentity } as const;

/** The type of one kind of event with a process, and the kind's own fields in attrs. */
function readKind(
  kind: string,
  body: Record<string, unknown>,
  binary: string | null,
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  switch (kind) {
    case 'process_exec':
      // Tetragon's stand-in for the kernel, sent once as it starts: pid 0 (omitted, as protobuf
      // JSON omits a zero), binary `<kernel>`; no exec happened (cilium/tetragon#529)
      if (binary === '<kernel>' && isKernelPid((body.process as Record<string, unknown>).pid)) {
        Object.assign(attrs, { kind, binary, placeholder: 'kernel' });
        return 'generic';
      }
      if (binary !== null) attrs.path = binary;
      return 'execve';
    case 'process_exit': {
      if (binary !== null) attrs.path = binary;
      // protobuf JSON omits a zero: no status is exit code 0, unless a signal ended the process
      const status = body.status ?? (typeof body.signal === 'string' && body.signal !== '' ? undefined : 0);
      if (status !== undefined && !Number.isSafeInteger(status)) {
        return rejectWrongType('process_exit.status', 'an integer', status);
      }
      if (status !== undefined) attrs.exit_code = status;
      if (typeof body.signal === 'string' && body.signal !== '') attrs.signal = body.signal;
      return 'process_exit';
    }
    case 'process_kprobe':
    case 'process_lsm':
    case 'process_tracepoint':
      return readHook(kind, body, binary, attrs);
    default:
      break;
  }
  if (binary !== null) attrs.binary = binary;
  const socketType = socketKinds[kind];
  if (socketType !== undefined) {
    if (socketType === 'generic') attrs.kind = kind;
    const rejection = readSocketEvent(kind, body, attrs);
    if (rejection !== undefined) return rejection;
    if (socketType === 'network_connect') markNoDestination(attrs, `${kind} carries no destination_ip`);
    return socketType;
  }
  // uprobes, USDT probes, loader events and kinds this version does not know: kept whole
  keepWhole(kind, body, attrs);
  return 'generic';
}

/** pid 0, as sent or as protobuf JSON leaves a zero out. */
function isKernelPid(pid: unknown): boolean {
  return pid === 0 || pid === undefined;
}

/** A kprobe, LSM hook or tracepoint: the function names the type, its arguments fill attrs. */
function readHook(
  kind: string,
  body: Record<string, unknown>,
  binary: string | null,
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  const nameField = kind === 'process_tracepoint' ? 'event' : 'function_name';
  const name = readString(body[nameField]);
  if (name === wrongType) return rejectWrongType(`${kind}.${nameField}`, 'a string', body[nameField]);
  if (name === null) return rejectLine('missing_field', `${kind}.${nameField}: missing`);
  const type = hookType(name, kind === 'process_lsm');
  if (type === 'generic') attrs.kind = kind;
  attrs.function_name = name;
  if (kind === 'process_tracepoint' && typeof body.subsys === 'string') attrs.subsys = body.subsys;
  const refined = readHookArgs(name, type, body.args, attrs);
  if (typeof refined !== 'string') {
    return { ...refined, message: `${kind}.${refined.message}` };
  }
  if (binary !== null) attrs.binary = binary;
  for (const key of hookExtras) if (body[key] !== undefined) attrs[key] = body[key];
  return refined;
}

/** Fields of a hook event kept as sent: what the policy did, and what the function returned. */
const hookExtras = ['policy_name', 'action', 'return', 'return_action', 'message', 'tags', 'ima_hash'];

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
    const args = (attrs.arguments as string | undefined) ?? '';
    attrs.command = args === '' ? binary : binary + ' ' + args;
    attrs.argv = [binary, ...splitTetragonArguments(args)];
  }
  const pod = readObject(proc.pod);
  if (pod !== wrongType && pod !== null) {
    if (typeof pod.namespace === 'string') attrs.pod_namespace = pod.namespace;
    if (typeof pod.name === 'string') attrs.pod_name = pod.name;
    const container = readObject(pod.container);
    if (container !== wrongType && container !== null) {
      if (typeof container.name === 'string') attrs.container_name = container.name;
      const image = readObject(container.image);
      if (image !== wrongType && image !== null && typeof image.name === 'string') attrs.image = image.name;
    }
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

/** The older socket events: `destination_ip`/`destination_port`, `source_ip`/`source_port`. */
function readSocketEvent(
  kind: string,
  body: Record<string, unknown>,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  const ip = readString(body.destination_ip);
  if (ip === wrongType) return rejectWrongType(`${kind}.destination_ip`, 'a string', body.destination_ip);
  const port = readPort(body.destination_port);
  if (port === wrongType) {
    return rejectWrongType(`${kind}.destination_port`, 'a port in 0..65535', body.destination_port);
  }
  if (ip !== null) attrs.dst_ip = ip;
  if (port !== null) attrs.dst_port = port;
  if (typeof body.source_ip === 'string') attrs.src_ip = body.source_ip;
  if (typeof body.source_port === 'number') attrs.src_port = body.source_port;
  if (typeof body.protocol === 'string') attrs.protocol = body.protocol;
  return undefined;
}
