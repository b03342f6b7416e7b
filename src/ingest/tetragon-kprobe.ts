/**
 * Tetragon `process_kprobe` events: the hooked kernel function decides the event type, and its
 * arguments (file_arg, path_arg, string_arg, size_arg, bytes_arg, sock_arg, sockaddr_arg, int_arg)
 * fill the attributes. Mirrors Tetragon's KprobeArgument (api/v1/tetragon/tetragon.proto).
 */
import type { EventType } from '../telemetry/event.js';
import {
  quoteExcerpt,
  readCountOrDecimal,
  readObject,
  readPort,
  readString,
  wrongType,
} from './field-value.js';
import { rejectLine, rejectWrongType, type LineRejection } from './line-rejection.js';

/**
 * Hooked functions (after syscallPrefixes are stripped) by the event type they produce.
 * `security_file_permission` is refined by its mask argument (MAY_WRITE → file_write). Opens are
 * `file_open` whatever their flags: kprobe args rarely carry them decoded.
 */
export const kprobeFunctions = {
  file_write: ['write', 'pwrite64', 'writev', 'pwritev', 'pwritev2', 'vfs_write', 'vfs_writev', 'creat'],
  file_open: [
    'open',
    'openat',
    'openat2',
    'fd_install',
    'security_file_open',
    'security_file_permission',
    'do_sys_open',
    'do_sys_openat2',
    'vfs_open',
  ],
  file_unlink: [
    'unlink',
    'unlinkat',
    'do_unlinkat',
    'vfs_unlink',
    'security_path_unlink',
    'security_inode_unlink',
  ],
  file_rename: ['rename', 'renameat', 'renameat2', 'do_renameat2', 'vfs_rename', 'security_path_rename'],
  network_connect: ['connect', 'tcp_connect', 'tcp_v4_connect', 'tcp_v6_connect', 'security_socket_connect'],
  setuid: ['setuid'],
  setgid: ['setgid'],
  ptrace: ['ptrace'],
} satisfies Partial<Record<EventType, readonly string[]>>;

const functionTypes = new Map<string, EventType>();
for (const [type, names] of Object.entries(kprobeFunctions)) {
  for (const name of names) functionTypes.set(name, type as EventType);
}

/** Arch and wrapper prefixes of syscall entry points: `__x64_sys_write` and `ksys_write` are `write`. */
const syscallPrefixes = [
  '__x64_sys_',
  '__arm64_sys_',
  '__ia32_compat_sys_',
  '__ia32_sys_',
  '__se_sys_',
  '__do_sys_',
  '__sys_',
  'ksys_',
  'sys_',
];

const mayWrite = 0x2; // include/linux/fs.h: MAY_WRITE

function baseFunctionName(name: string): string {
  for (const prefix of syscallPrefixes) if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

/** Bytes encoded by a base64 string (protobuf JSON writes `bytes` fields as base64). */
function base64Length(text: string): number {
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  return Math.floor((text.length * 3) / 4) - padding;
}

/**
 * Maps a process_kprobe body onto an event type and fills `attrs` from its args; a LineRejection for
 * an unmapped function or a malformed argument.
 */
export function mapKprobe(
  body: Record<string, unknown>,
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  const functionName = readString(body.function_name);
  if (functionName === wrongType)
    return rejectWrongType('process_kprobe.function_name', 'a string', body.function_name);
  if (functionName === null) return rejectLine('missing_field', 'process_kprobe.function_name: missing');
  const baseName = baseFunctionName(functionName);
  let type = functionTypes.get(baseName);
  if (type === undefined) {
    return rejectLine(
      'unknown_type',
      `process_kprobe function_name ${quoteExcerpt(functionName)} is not mapped`,
    );
  }
  attrs.function_name = functionName;
  const args = body.args ?? [];
  if (!Array.isArray(args)) return rejectWrongType('process_kprobe.args', 'an array', args);

  let paths = 0; // file/path/string args seen, in order: the first is `path`, the second `new_path`
  let ints = 0;
  let firstInt = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = readObject(args[i]);
    if (arg === wrongType || arg === null) return rejectWrongType(argName(i, ''), 'an object', args[i]);
    for (const key in arg) {
      const field = arg[key];
      switch (key) {
        case 'file_arg':
        case 'path_arg':
        case 'string_arg': {
          const path = key === 'string_arg' ? field : pathOf(field);
          if (typeof path !== 'string') return rejectWrongType(argName(i, key), 'a path', field);
          if (paths === 0) attrs.path = path;
          else if (paths === 1) attrs.new_path = path;
          paths++;
          break;
        }
        case 'size_arg': {
          const size = readCountOrDecimal(field);
          if (size === wrongType) return rejectWrongType(argName(i, key), 'a byte count', field);
          if (size !== null) attrs.bytes = size;
          break;
        }
        case 'bytes_arg':
          if (typeof field !== 'string') return rejectWrongType(argName(i, key), 'base64', field);
          attrs.data_base64 = field;
          if (attrs.bytes === undefined) attrs.bytes = base64Length(field);
          break;
        case 'sock_arg':
        case 'sockaddr_arg': {
          const rejection = readSocket(i, key, field, attrs);
          if (rejection !== undefined) return rejection;
          break;
        }
        case 'int_arg':
        case 'uint_arg':
        case 'long_arg':
          if (typeof field !== 'number' || !Number.isSafeInteger(field)) {
            return rejectWrongType(argName(i, key), 'an integer', field);
          }
          if (ints === 0) firstInt = field;
          else if (ints === 1 && type === 'ptrace') attrs.target_pid = field;
          ints++;
          break;
        default:
          // other argument kinds (cred_arg, skb_arg, ...) carry nothing the event record holds
          break;
      }
    }
  }

  if (ints > 0) {
    if (type === 'setuid') attrs.target_uid = firstInt;
    else if (type === 'setgid') attrs.target_gid = firstInt;
    else if (type === 'ptrace') attrs.request = firstInt;
    else if (baseName === 'security_file_permission' && (firstInt & mayWrite) !== 0) type = 'file_write';
  }
  if (typeof body.policy_name === 'string') attrs.policy_name = body.policy_name;
  if (typeof body.action === 'string') attrs.action = body.action;
  return type;
}

/** Names an argument in a message; built only when a line is rejected. */
function argName(index: number, key: string): string {
  return `process_kprobe.args[${index}]${key === '' ? '' : '.' + key}`;
}

/** The `path` of a file_arg/path_arg object (KprobeFile, KprobePath); undefined when there is none. */
function pathOf(field: unknown): unknown {
  const object = readObject(field);
  return object === wrongType || object === null ? undefined : object.path;
}

/** Copies the destination (and source) of a sock_arg (KprobeSock) or sockaddr_arg (KprobeSockaddr). */
function readSocket(
  index: number,
  key: string,
  field: unknown,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  const isSock = key === 'sock_arg';
  const sock = readObject(field);
  if (sock === wrongType || sock === null) return rejectWrongType(argName(index, key), 'an object', field);
  const ip = isSock ? sock.daddr : sock.addr;
  if (typeof ip !== 'string')
    return rejectWrongType(`${argName(index, key)}.${isSock ? 'daddr' : 'addr'}`, 'an IP string', ip);
  const port = readPort(isSock ? sock.dport : sock.port);
  if (port === wrongType) return rejectLine('wrong_type', `${argName(index, key)}: port is not in 0..65535`);
  attrs.dst_ip = ip;
  if (port !== null) attrs.dst_port = port;
  if (typeof sock.saddr === 'string') attrs.src_ip = sock.saddr;
  if (typeof sock.sport === 'number') attrs.src_port = sock.sport;
  if (typeof sock.protocol === 'string') attrs.protocol = sock.protocol;
  return undefined;
}
