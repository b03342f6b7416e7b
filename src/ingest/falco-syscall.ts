/**
 * The syscall-specific fields of a Falco alert: paths, flags, command line, destination, uid/gid and
 * ptrace targets, read from the field names Falco gives each syscall.
 */
import type { EventType } from '../model/event.js';
import { readFalcoDestination } from './falco-destination.js';
import { markNoDestination } from './no-destination.js';
import { readString, readUint32, wrongType } from './field-value.js';
import { rejectWrongType, type LineRejection } from './line-rejection.js';

/** Open flags (as Falco prints `evt.arg.flags`, e.g. `O_WRONLY|O_CREAT`) that make an open a write. */
export const openWriteFlags = ['O_WRONLY', 'O_RDWR', 'O_CREAT', 'O_TRUNC', 'O_APPEND'];

// Field names tried in order, first present wins (Falco versions and syscalls name paths differently).
const execPathFields = ['proc.exepath'];
const openPathFields = ['fd.name', 'evt.arg.name', 'evt.arg.path', 'fs.path.name'];
const unlinkPathFields = ['evt.arg.path', 'evt.arg.name', 'fs.path.name', 'fd.name'];
const renameFromFields = ['evt.arg.oldpath', 'fs.path.source'];
const renameToFields = ['evt.arg.newpath', 'fs.path.target'];

/** Falco's value for a field it could not resolve: the same as absent. */
const notAvailable = '<NA>';

/**
 * The first of `names` present in `fields` as a string (`<NA>` counts as absent); wrongType when
 * present with another type.
 */
function firstString(
  fields: Record<string, unknown>,
  names: readonly string[],
): string | null | typeof wrongType {
  for (const name of names) {
    const value = readString(fields[name]);
    if (value !== null && value !== notAvailable) return value;
  }
  return null;
}

/** The first of `names` whose value is present but not a string, for the rejection message. */
function wrongPathField(fields: Record<string, unknown>, names: readonly string[]): string {
  for (const name of names) if (readString(fields[name]) === wrongType) return name;
  return names[0] ?? '';
}

/** A uid/gid/pid argument: `evt.rawarg.*` as a number, else the leading digits of `evt.arg.*` (`0(root)`). */
function numericArg(fields: Record<string, unknown>, arg: string): number | null {
  const raw = readUint32(fields['evt.rawarg.' + arg]);
  if (typeof raw === 'number') return raw;
  const text = fields['evt.arg.' + arg];
  if (typeof text === 'number') return Number.isSafeInteger(text) ? text : null;
  if (typeof text !== 'string') return null;
  if (text === 'root') return 0; // Falco prints a known id by name
  let value = 0;
  let at = 0;
  for (; at < text.length && at < 10; at++) {
    const digit = text.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return at === 0 || value > 0xffff_ffff ? null : value;
}

/** True when an open's flags (or `evt.is_open_write`) say it opened the file for writing. */
export function isWriteOpen(fields: Record<string, unknown>): boolean {
  if (fields['evt.is_open_write'] === true) return true;
  const flags = fields['evt.arg.flags'];
  if (typeof flags !== 'string') return false;
  for (const flag of openWriteFlags) if (flags.indexOf(flag) !== -1) return true;
  return false;
}

/** Copies the syscall-specific output fields of one event type into attrs. */
export function readFalcoSyscall(
  type: EventType,
  fields: Record<string, unknown>,
  attrs: Record<string, unknown>,
): LineRejection | undefined {
  let path: string | null | typeof wrongType = null;
  let pathFields: readonly string[] = execPathFields;
  switch (type) {
    case 'execve': {
      const command = readString(fields['proc.cmdline']);
      if (command === wrongType) {
        return rejectWrongType('output_fields["proc.cmdline"]', 'a string', fields['proc.cmdline']);
      }
      if (command !== null) attrs.command = command;
      path = firstString(fields, execPathFields);
      if (typeof fields['proc.cwd'] === 'string') attrs.cwd = fields['proc.cwd'];
      break;
    }
    case 'network_connect': {
      const rejection = readFalcoDestination(fields, attrs);
      if (rejection === undefined) markNoDestination(attrs, 'the alert prints no fd.rip, fd.sip or fd.name');
      return rejection;
    }
    case 'file_open':
    case 'file_write':
      pathFields = openPathFields;
      path = firstString(fields, pathFields);
      if (typeof fields['evt.arg.flags'] === 'string') attrs.flags = fields['evt.arg.flags'];
      break;
    case 'file_unlink':
      pathFields = unlinkPathFields;
      path = firstString(fields, pathFields);
      break;
    case 'file_rename': {
      pathFields = renameFromFields;
      path = firstString(fields, pathFields);
      const newPath = firstString(fields, renameToFields);
      if (typeof newPath === 'string') attrs.new_path = newPath;
      break;
    }
    case 'setuid':
    case 'setgid': {
      const id = numericArg(fields, type === 'setuid' ? 'uid' : 'gid');
      if (id !== null) attrs[type === 'setuid' ? 'target_uid' : 'target_gid'] = id;
      break;
    }
    case 'ptrace': {
      if (typeof fields['evt.arg.request'] === 'string') attrs.request = fields['evt.arg.request'];
      const target = numericArg(fields, 'pid');
      if (target !== null) attrs.target_pid = target;
      break;
    }
    default:
      break;
  }
  if (path === wrongType) {
    const name = wrongPathField(fields, pathFields);
    return rejectWrongType(`output_fields["${name}"]`, 'a string', fields[name]);
  }
  if (path !== null) attrs.path = path;
  return undefined;
}
