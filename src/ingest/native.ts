/**
 * The provd native format (src/ingest/native-format.md): one flat JSON object per line, as the provd
 * sensor emits it and as AgentProvenance's native sensor JSONL already looks.
 */
import { eventTypes, type EventType, type ParsedEvent } from '../model/event.js';
import { isIpAddress } from '../telemetry/ip-address.js';
import { parseRfc3339 } from '../shared/rfc3339.js';
import { missingTime } from './received-time.js';
import {
  quoteExcerpt,
  readCount,
  readIdentifier,
  readObject,
  readPort,
  readString,
  readUint32,
  wrongType,
} from './field-value.js';
import { rejectLine, rejectTime, rejectWrongType, type LineRejection } from './line-rejection.js';

/** Input type names → contract types: every contract type names itself, plus the sensor aliases. */
export const nativeTypeAliases: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ...eventTypes.map((type): [string, EventType] => [type, type]),
  ['exec', 'execve'],
  ['exit', 'process_exit'],
  ['open', 'file_open'],
  ['openat', 'file_open'],
  ['write', 'file_write'],
  ['rename', 'file_rename'],
  ['unlink', 'file_unlink'],
  ['connect', 'network_connect'],
  ['dns', 'dns_query'],
]);

/** Parses one native line (already JSON-parsed into an object) into an event or a rejection. */
export function parseNativeLine(value: Record<string, unknown>): ParsedEvent | LineRejection {
  let typeName: string | null = null;
  let typeKey = 'event_type';
  let time: string | null = null;
  let timeKey = 'timestamp';
  let pid: number | null = null;
  let tgid: number | null = null;
  let ppid: number | null = null;
  let uid: number | null = null;
  let loginUid: number | null = null;
  let comm: string | null = null;
  let cgroupId: string | null = null;
  let containerId: string | null = null;
  const attrs: Record<string, unknown> = {};

  // One pass over the keys: known ones are checked and routed, unknown ones are kept in attrs.
  for (const key in value) {
    const field = value[key];
    switch (key) {
      case 'event_type':
      case 'type': {
        const name = readString(field);
        if (name === wrongType) return rejectWrongType(key, 'a string', field);
        if (name === null) break;
        if (typeName !== null && typeName !== name) {
          return rejectLine('wrong_type', 'type and event_type disagree: send one of them');
        }
        typeName = name;
        typeKey = key;
        break;
      }
      case 'timestamp':
      case 'time': {
        const text = readString(field);
        if (text === wrongType) return rejectWrongType(key, 'an RFC 3339 string', field);
        if (text === null) break;
        if (time !== null && time !== text) {
          return rejectLine('wrong_type', 'time and timestamp disagree: send one of them');
        }
        time = text;
        timeKey = key;
        break;
      }
      case 'pid':
      case 'tgid':
      case 'ppid':
      case 'uid':
      case 'login_uid': {
        const id = readUint32(field);
        if (id === wrongType) return rejectWrongType(key, 'an integer in 0..4294967295', field);
        if (key === 'pid') pid = id;
        else if (key === 'tgid') tgid = id;
        else if (key === 'ppid') ppid = id;
        else if (key === 'uid') uid = id;
        else loginUid = id;
        break;
      }
      case 'comm':
      case 'container_id': {
        const text = readIdentifier(field);
        if (text === wrongType) return rejectWrongType(key, 'a string', field);
        if (key === 'comm') comm = text;
        else containerId = text;
        break;
      }
      case 'cgroup_id': {
        // a cgroup v2 id is a u64: as a JSON number it must stay exact, so only safe integers pass
        if (typeof field === 'number' && Number.isSafeInteger(field) && field >= 0) cgroupId = String(field);
        else if (typeof field === 'number') {
          return rejectWrongType(key, 'a string, or a non-negative integer below 2^53', field);
        } else {
          const text = readIdentifier(field);
          if (text === wrongType) return rejectWrongType(key, 'a string or a non-negative integer', field);
          cgroupId = text;
        }
        break;
      }
      case 'source': {
        const producer = readString(field);
        if (producer === wrongType) return rejectWrongType(key, 'a string', field);
        if (producer !== null) attrs.producer = producer;
        break;
      }
      default: {
        const rejection = checkAttr(key, field);
        if (rejection !== undefined) return rejection;
        if (key === '__proto__') Object.defineProperty(attrs, key, { value: field, enumerable: true });
        else attrs[key] = field;
      }
    }
  }

  if (typeName === null) return rejectLine('missing_field', 'event_type: missing (or send type)');
  const type = nativeTypeAliases.get(typeName);
  if (type === undefined) {
    return rejectLine(
      'unknown_type',
      `${typeKey}: ${quoteExcerpt(typeName)} is not a provd event type or alias`,
    );
  }
  const timeNs = time === null ? 0n : parseRfc3339(time);
  if (timeNs === undefined) return rejectTime(timeKey);
  if ((type === 'setuid' || type === 'setgid') && attrs.producer === agentprovSensor) {
    uid = readAgentprovTarget(type, uid, attrs);
  }
  return {
    type,
    source: 'native_jsonl',
    time: time ?? missingTime,
    timeNs,
    pid,
    tgid,
    ppid,
    uid,
    loginUid,
    comm,
    cgroupId,
    containerId,
    attrs,
  };
}

/** The `source` of AgentProvenance's native sensor (agentprov-sensor) lines. */
const agentprovSensor = 'agentprov_ebpf';

/**
 * AgentProvenance's sensor writes the id a setuid asks for as `uid` and a setgid's as `gid`, and
 * never the caller's uid: on its setuid/setgid lines without `target_uid`/`target_gid`, these are
 * the target. Returns the caller's uid: unknown when `uid` was the target.
 */
function readAgentprovTarget(
  type: 'setuid' | 'setgid',
  uid: number | null,
  attrs: Record<string, unknown>,
): number | null {
  if (type === 'setuid') {
    if (uid === null || (attrs.target_uid ?? null) !== null) return uid;
    attrs.target_uid = uid;
    return null;
  }
  const gid = readUint32(attrs.gid);
  if (typeof gid === 'number' && (attrs.target_gid ?? null) === null) attrs.target_gid = gid;
  return uid;
}

/** Checks a type-specific attribute; undefined when it is acceptable (unknown keys always are). */
function checkAttr(key: string, field: unknown): LineRejection | undefined {
  if (field === null) return undefined;
  switch (key) {
    case 'path':
    case 'new_path':
    case 'command':
    case 'cwd':
    case 'query':
    case 'data':
      return typeof field === 'string' ? undefined : rejectWrongType(key, 'a string', field);
    case 'flags':
      return typeof field === 'string' || readCount(field) !== wrongType
        ? undefined
        : rejectWrongType(key, 'a string or a non-negative integer', field);
    case 'argv':
      return isStringArray(field) ? undefined : rejectWrongType(key, 'an array of strings', field);
    case 'exit_code':
      return Number.isSafeInteger(field) ? undefined : rejectWrongType(key, 'an integer', field);
    case 'dst_ip':
      if (typeof field !== 'string') return rejectWrongType(key, 'an IPv4 or IPv6 address', field);
      return isIpAddress(field) ? undefined : rejectLine('wrong_type', `${key}: not an IPv4 or IPv6 address`);
    case 'dst_port':
      return readPort(field) === wrongType ? rejectWrongType(key, 'a port in 0..65535', field) : undefined;
    case 'length':
    case 'bytes':
      return readCount(field) === wrongType
        ? rejectWrongType(key, 'a non-negative integer', field)
        : undefined;
    case 'target_pid':
    case 'target_uid':
    case 'target_gid':
      return readUint32(field) === wrongType
        ? rejectWrongType(key, 'an integer in 0..4294967295', field)
        : undefined;
    case 'http':
      return readObject(field) === wrongType ? rejectWrongType(key, 'an object', field) : undefined;
    case 'observed_type':
    case 'producer':
      return rejectLine('wrong_type', `${key}: set by provd, not by the input`);
    default:
      return undefined;
  }
}

function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}
