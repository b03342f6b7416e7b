/**
 * The event type of a Falco alert that does not print `evt.type` (most published rules do not), from
 * the fields it does print. The guess is written to attrs (`type_inferred_from`), so nobody mistakes
 * it for a field Falco sent.
 */
import type { EventType } from '../model/event.js';

/** Socket kinds of `fd.type` / `fd.typechar`: an `fd.name` of such an fd is `local->remote`. */
const socketFdTypes = new Set(['ipv4', 'ipv6', '4', '6']);

/**
 * A destination field (`fd.rip`, `fd.sip`, or a socket `fd.name` with `->`) → network_connect; a file
 * `fd.name` (an absolute path) → file_open; `evt.arg.uid` / `evt.arg.gid` → setuid / setgid;
 * `evt.arg.request` → ptrace; a command line or executable path alone → execve (Falco's
 * process rules fire on spawned processes); anything else → undefined (kept as `generic`).
 */
export function inferFalcoType(
  fields: Record<string, unknown>,
  attrs: Record<string, unknown>,
): EventType | undefined {
  const name = fields['fd.name'];
  const fdType = fields['fd.type'] ?? fields['fd.typechar'];
  const socket =
    typeof fdType === 'string' ? socketFdTypes.has(fdType) : typeof name === 'string' && name.includes('->');
  let type: EventType | undefined;
  let from = '';
  if (
    fields['fd.rip'] !== undefined ||
    fields['fd.sip'] !== undefined ||
    (socket && typeof name === 'string')
  ) {
    type = 'network_connect';
    from = fields['fd.rip'] !== undefined ? 'fd.rip' : fields['fd.sip'] !== undefined ? 'fd.sip' : 'fd.name';
  } else if (fields['evt.arg.uid'] !== undefined || fields['evt.arg.gid'] !== undefined) {
    type = fields['evt.arg.uid'] !== undefined ? 'setuid' : 'setgid';
    from = fields['evt.arg.uid'] !== undefined ? 'evt.arg.uid' : 'evt.arg.gid';
  } else if (fields['evt.arg.request'] !== undefined) {
    type = 'ptrace';
    from = 'evt.arg.request';
  } else if (typeof name === 'string' && name.startsWith('/')) {
    type = 'file_open';
    from = 'fd.name';
  } else if (typeof fields['proc.cmdline'] === 'string' || typeof fields['proc.exepath'] === 'string') {
    type = 'execve';
    from = typeof fields['proc.cmdline'] === 'string' ? 'proc.cmdline' : 'proc.exepath';
  }
  if (type !== undefined) attrs.type_inferred_from = from;
  return type;
}
