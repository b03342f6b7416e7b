/** Decoders of the privilege records (bpf/privilege.bpf.c): setuid, setgid and ptrace attempts. */
import type { ParsedEvent } from '../model/event.js';
import type { RecordView } from './record-view.js';
import { layouts } from './records.js';
import { syscallResult } from './syscall-result.js';

const setid = layouts.setid_event.fields;
const ptrace = layouts.ptrace_event.fields;

const ptraceRequests = new Map<bigint, string>([
  [0n, 'PTRACE_TRACEME'],
  [1n, 'PTRACE_PEEKTEXT'],
  [2n, 'PTRACE_PEEKDATA'],
  [4n, 'PTRACE_POKETEXT'],
  [5n, 'PTRACE_POKEDATA'],
  [7n, 'PTRACE_CONT'],
  [8n, 'PTRACE_KILL'],
  [12n, 'PTRACE_GETREGS'],
  [13n, 'PTRACE_SETREGS'],
  [16n, 'PTRACE_ATTACH'],
  [17n, 'PTRACE_DETACH'],
  [0x4206n, 'PTRACE_SEIZE'],
]);

/** An attempt to take uid or gid `target`: evidence of trying; `failed` says the kernel refused. */
export function decodeSetid(
  record: RecordView,
  event: ParsedEvent,
  kind: 'setuid' | 'setgid',
): string | undefined {
  if (!record.holds(setid.target, 4)) return `${kind} record of ${record.size} bytes is too short`;
  event.type = kind;
  event.attrs[kind === 'setuid' ? 'target_uid' : 'target_gid'] = record.u32(setid.target);
  syscallResult(event.attrs, record.i32(setid.result));
  return undefined;
}

/** A ptrace request at another process (PTRACE_TRACEME: at its parent), and its result. */
export function decodePtrace(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(ptrace.request, 8)) return `ptrace record of ${record.size} bytes is too short`;
  event.type = 'ptrace';
  const request = record.i64(ptrace.request);
  event.attrs.request = ptraceRequests.get(request) ?? `request ${request}`;
  event.attrs.target_pid = record.u32(ptrace.target_pid);
  syscallResult(event.attrs, record.i32(ptrace.result));
  return undefined;
}
