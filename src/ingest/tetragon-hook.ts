/**
 * Tetragon hook events (`process_kprobe`, `process_lsm`, `process_tracepoint`): the hooked function
 * decides the event type, and its arguments (KprobeArgument in api/v1/tetragon/tetragon.proto) fill
 * the attributes. A function no type covers is kept as `generic` with its arguments as sent.
 */
import { isIP } from 'node:net';
import type { EventType } from '../model/event.js';
import { readCountOrDecimal, readObject, readPort, wrongType } from './field-value.js';
import { rejectLine, rejectWrongType, type LineRejection } from './line-rejection.js';
import { markNoDestination } from './no-destination.js';

/**
 * Hooked functions (after syscallPrefixes are stripped) by the event type they produce.
 * `security_file_permission` is refined by its mask argument (MAY_WRITE → file_write). Opens are
 * `file_open` whatever their flags: kprobe args rarely carry them decoded.
 */
export const hookFunctions = {
  // an exec asked for at the syscall or in the kernel's exec path (Tetragon's process_exec says it happened)
  execve: ['execve', 'execveat', 'do_execve', 'do_execveat_common', 'bprm_execve', 'security_bprm_check'],
  file_write: ['write', 'pwrite64', 'writev', 'pwritev', 'pwritev2', 'vfs_write', 'vfs_writev', 'creat'],
  file_read: [
    'read',
    'pread64',
    'readv',
    'preadv',
    'preadv2',
    'vfs_read',
    'vfs_readv',
    'security_kernel_read_file',
  ],
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
  // inet_csk_listen_start(sk): the kernel puts a TCP socket in LISTEN (Tetragon's tcp-listen.yaml)
  network_listen: ['listen', 'inet_listen', 'inet_csk_listen_start', 'security_socket_listen'],
  network_accept: ['accept', 'accept4', 'inet_csk_accept', 'security_socket_accept'],
  setuid: ['setuid', 'setreuid', 'setresuid', 'setfsuid'],
  setgid: ['setgid', 'setregid', 'setresgid', 'setfsgid'],
  ptrace: ['ptrace'],
  credential_change: ['commit_creds'],
  namespace_change: ['setns', 'unshare', 'create_new_namespaces', 'switch_task_namespaces'],
  module_load: [
    'init_module',
    'finit_module',
    'load_module',
    'do_init_module',
    'security_kernel_module_request',
  ],
} satisfies Partial<Record<EventType, readonly string[]>>;

const functionTypes = new Map<string, EventType>();
for (const [type, names] of Object.entries(hookFunctions)) {
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
  'sys_enter_',
  'sys_',
];

const mayWrite = 0x2; // include/linux/fs.h: MAY_WRITE

function baseFunctionName(name: string): string {
  for (const prefix of syscallPrefixes) if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

/**
 * The event type of a hooked function: kprobes and tracepoints by name (syscall prefixes stripped);
 * LSM hooks, which Tetragon names without `security_`, by that name first.
 */
export function hookType(name: string, lsm: boolean): EventType {
  const base = baseFunctionName(name);
  return (lsm ? functionTypes.get('security_' + base) : undefined) ?? functionTypes.get(base) ?? 'generic';
}

/** Bytes encoded by a base64 string (protobuf JSON writes `bytes` fields as base64). */
function base64Length(text: string): number {
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  return Math.floor((text.length * 3) / 4) - padding;
}

/**
 * Fills `attrs` from a hook's arguments for an event of `type`, and returns the type, refined where an
 * argument says more (`security_file_permission` with MAY_WRITE is a write); a LineRejection for an
 * argument of the wrong JSON type. A `generic` event keeps its arguments as sent, unread.
 */
export function readHookArgs(
  functionName: string,
  type: EventType,
  args: unknown,
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  if (type === 'generic') {
    if (args !== undefined) attrs.args = args;
    return type;
  }
  if (args !== undefined && args !== null && !Array.isArray(args))
    return rejectWrongType('args', 'an array', args);
  const refined = readArgs(functionName, type, (args ?? []) as unknown[], attrs);
  if (refined === 'network_connect') {
    markNoDestination(attrs, `${functionName} carries no sock or sockaddr argument with an address`);
  }
  return refined;
}

/** readHookArgs over an array of arguments. */
function readArgs(
  functionName: string,
  type: EventType,
  args: readonly unknown[],
  attrs: Record<string, unknown>,
): EventType | LineRejection {
  let paths = 0; // file/path/string args seen, in order: the first is `path`, the second `new_path`
  const ints: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = readObject(args[i]);
    if (arg === wrongType || arg === null) return rejectWrongType(argName(i, ''), 'an object', args[i]);
    for (const key in arg) {
      const field = arg[key];
      switch (key) {
        case 'file_arg':
        case 'path_arg':
        case 'linux_binprm_arg':
        case 'string_arg': {
          const path = key === 'string_arg' ? field : pathOf(field);
          if (path === undefined) break; // protobuf JSON omits an empty path
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
          const rejection = readSocket(i, key, field, attrs, type === 'network_listen');
          if (rejection !== undefined) return rejection;
          break;
        }
        case 'int_arg':
        case 'uint_arg':
        case 'long_arg': {
          const value = typeof field === 'string' ? Number(field) : field; // protobuf JSON: int64 as text
          if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
            return rejectWrongType(argName(i, key), 'an integer', field);
          }
          ints.push(value);
          break;
        }
        case 'cred_arg':
        case 'process_credentials_arg':
          attrs.creds = field;
          readTargetIds(field, attrs);
          break;
        case 'module_arg': {
          const module = readObject(field);
          if (module !== wrongType && module !== null && typeof module.name === 'string') {
            attrs.module = module.name;
          }
          break;
        }
        case 'capability_arg': {
          const capability = readObject(field);
          if (capability !== wrongType && capability !== null && typeof capability.name === 'string') {
            attrs.capability = capability.name;
          }
          break;
        }
        default:
          // other argument kinds (skb_arg, bpf_attr_arg, ...) carry nothing the event record holds
          break;
      }
    }
  }
  return refineByInts(functionName, type, ints, attrs);
}

/** What the integer arguments say for each type: uid, gid, ptrace request and target, open mask. */
function refineByInts(
  functionName: string,
  type: EventType,
  ints: readonly number[],
  attrs: Record<string, unknown>,
): EventType {
  const first = ints[0];
  if (first === undefined) return type;
  switch (type) {
    case 'setuid':
      attrs.target_uid = first;
      break;
    case 'setgid':
      attrs.target_gid = first;
      break;
    case 'ptrace':
      attrs.request = first;
      if (ints[1] !== undefined) attrs.target_pid = ints[1];
      break;
    case 'namespace_change':
      // setns(fd, nstype); unshare(flags)
      if (baseFunctionName(functionName) === 'setns') attrs.nstype = ints[1] ?? 0;
      else attrs.flags = first;
      break;
    case 'file_open':
      if (functionName.endsWith('security_file_permission') && (first & mayWrite) !== 0) return 'file_write';
      break;
    default:
      break;
  }
  return type;
}

/** The uid/gid a credential argument gives the task: effective ids when present (protobuf omits 0). */
function readTargetIds(field: unknown, attrs: Record<string, unknown>): void {
  const creds = readObject(field);
  if (creds === wrongType || creds === null) return;
  const uid = creds.euid ?? creds.uid ?? 0;
  const gid = creds.egid ?? creds.gid ?? 0;
  if (typeof uid === 'number') attrs.target_uid = uid;
  if (typeof gid === 'number') attrs.target_gid = gid;
}

/** Names an argument in a message; built only when a line is rejected. */
function argName(index: number, key: string): string {
  return `args[${index}]${key === '' ? '' : '.' + key}`;
}

/** The `path` of a file_arg/path_arg/linux_binprm_arg object; undefined when there is none. */
function pathOf(field: unknown): unknown {
  const object = readObject(field);
  return object === wrongType || object === null ? undefined : object.path;
}

/**
 * Copies the destination (and source) of a sock_arg (KprobeSock) or sockaddr_arg (KprobeSockaddr);
 * for a socket put in listening state (`listening`), only its own address, as src_ip/src_port: the
 * port it listens on. A listening socket has no peer, and its daddr/dport (0.0.0.0:0) name none.
 */
function readSocket(
  index: number,
  key: string,
  field: unknown,
  attrs: Record<string, unknown>,
  listening: boolean,
): LineRejection | undefined {
  const isSock = key === 'sock_arg';
  const sock = readObject(field);
  if (sock === wrongType || sock === null) return rejectWrongType(argName(index, key), 'an object', field);
  // the address this event is about: the peer of a connect or accept, the socket's own of a listen
  const [ipName, portName] = isSock
    ? listening
      ? ['saddr', 'sport']
      : ['daddr', 'dport']
    : ['addr', 'port'];
  const ip = sock[ipName];
  if (ip !== undefined && typeof ip !== 'string')
    return rejectWrongType(`${argName(index, key)}.${ipName}`, 'an IP string', ip);
  const port = readPort(sock[portName]);
  if (port === wrongType) return rejectLine('wrong_type', `${argName(index, key)}: port is not in 0..65535`);
  if (typeof sock.family === 'string') attrs.family = sock.family;
  // a socket of another family, or one the hook's argument type misreads (a policy naming the wrong
  // type): Tetragon writes its family as a number and its address as "<nil>" ("invalid IP" from
  // v1.7). Nothing in it is a destination: kept as sent, never as dst_ip or dst_port.
  const family = sock.family;
  if (
    (family !== undefined && family !== 'AF_INET' && family !== 'AF_INET6') ||
    (typeof ip === 'string' && isIP(ip) === 0)
  ) {
    attrs.unreadable = `${argName(index, key)}: no IP ${listening ? 'address' : 'destination'} (family ${String(family)}, address ${String(ip)})`;
    attrs[key] = field;
    return undefined;
  }
  if (listening) {
    if (typeof ip === 'string') attrs.src_ip = ip;
    if (port !== null) attrs.src_port = port;
  } else {
    if (typeof ip === 'string') attrs.dst_ip = ip;
    if (port !== null) attrs.dst_port = port;
    if (typeof sock.saddr === 'string') attrs.src_ip = sock.saddr;
    if (typeof sock.sport === 'number') attrs.src_port = sock.sport;
  }
  if (typeof sock.protocol === 'string') attrs.protocol = sock.protocol;
  return undefined;
}
