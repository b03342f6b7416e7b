/** Decoders of the file records (bpf/file.bpf.c): open, rename and unlink. */
import type { ParsedEvent } from '../model/event.js';
import { joinPath, readBase } from './dir-path.js';
import { openFlagsText, opensForWriting } from './open-flags.js';
import type { RecordView } from './record-view.js';
import { header, layouts, pathBytes, recordBaseCut, recordUnreadable } from './records.js';
import { syscallResult } from './syscall-result.js';

const open = layouts.file_open_event.fields;
const rename = layouts.file_rename_event.fields;
const unlink = layouts.file_unlink_event.fields;
const renameNoReplace = 1;
const renameExchange = 2;
const removeDirectory = 0x200; // AT_REMOVEDIR

/** Where a path field and the base of its directory are. */
interface PathField {
  path: number;
  size: number;
  base: number;
  baseSize: number;
}

/**
 * A path made absolute where it can be: `path` as absolute, `given` when the caller gave it
 * relative; `unresolved` when its directory could not be read, `unreadable` when the caller's
 * memory could not be.
 */
function readPath(
  record: RecordView,
  field: PathField,
  name: string,
): { path: string | null; given?: string; unresolved?: true; unreadable?: true } {
  const flags = record.u32(header.flags);
  const baseSize = record.u32(field.baseSize);
  if ((flags & recordUnreadable) !== 0) {
    // an open that succeeded has the path of the file it opened in its base
    return record.i32(layouts.file_open_event.fields.result) >= 0 && (flags & recordBaseCut) === 0
      ? { path: readBase(record, field.base, baseSize, `${name}_base`) }
      : { path: null, unreadable: true };
  }
  const given = record.text(field.path, Math.min(record.u32(field.size), pathBytes), name);
  if (given.startsWith('/')) return { path: given };
  // the base of a relative path was read unless flagged cut; empty, it is the root
  if ((flags & recordBaseCut) !== 0) return { path: given, given, unresolved: true };
  return { path: joinPath(readBase(record, field.base, baseSize, `${name}_base`), given), given };
}

/** Sets `path` (or `name`) and what readPath says about it on the event. */
function setPath(event: ParsedEvent, name: string, read: ReturnType<typeof readPath>): void {
  event.attrs[name] = read.path;
  if (read.given !== undefined) {
    event.attrs[`given_${name}`] = read.given;
    event.attrs.relative = true;
  }
  if (read.unresolved === true) event.attrs[`${name}_unresolved`] = true;
  if (read.unreadable === true) event.attrs[`${name}_unreadable`] = true;
}

/**
 * An open attempt: `file_write` when it asked to change the file (write access, create, truncate),
 * else `file_open`; the path made absolute (`given_path` as given, when relative), and its result.
 */
export function decodeFileOpen(record: RecordView, event: ParsedEvent): string | undefined {
  const pathSize = Math.min(record.u32(open.path_size), pathBytes);
  if (!record.holds(open.path, pathSize))
    return `open record of ${record.size} bytes holds no path of ${pathSize}`;
  const flags = record.u32(open.flags);
  event.type = opensForWriting(flags) ? 'file_write' : 'file_open';
  setPath(
    event,
    'path',
    readPath(
      record,
      { path: open.path, size: open.path_size, base: open.base, baseSize: open.base_size },
      'path',
    ),
  );
  event.attrs.flags = openFlagsText(flags);
  if ((flags & 0o100) !== 0) event.attrs.mode = record.u32(open.mode); // only O_CREAT uses it
  syscallResult(event.attrs, record.i32(open.result));
  return undefined;
}

/** A rename attempt: both paths made absolute (as given, when relative), and its result. */
export function decodeFileRename(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(rename.new_path, pathBytes)) return `rename record of ${record.size} bytes is too short`;
  event.type = 'file_rename';
  const old = {
    path: rename.old_path,
    size: rename.old_size,
    base: rename.old_base,
    baseSize: rename.old_base_size,
  };
  const renamed = {
    path: rename.new_path,
    size: rename.new_size,
    base: rename.new_base,
    baseSize: rename.new_base_size,
  };
  setPath(event, 'path', readPath(record, old, 'path'));
  setPath(event, 'new_path', readPath(record, renamed, 'new_path'));
  const flags = record.u32(rename.flags);
  if ((flags & renameNoReplace) !== 0) event.attrs.no_replace = true;
  if ((flags & renameExchange) !== 0) event.attrs.exchange = true;
  syscallResult(event.attrs, record.i32(rename.result));
  return undefined;
}

/** An unlink or rmdir-by-unlinkat attempt, and its result. */
export function decodeFileUnlink(record: RecordView, event: ParsedEvent): string | undefined {
  const pathSize = Math.min(record.u32(unlink.path_size), pathBytes);
  if (!record.holds(unlink.path, pathSize))
    return `unlink record of ${record.size} bytes holds no path of ${pathSize}`;
  event.type = 'file_unlink';
  setPath(
    event,
    'path',
    readPath(
      record,
      { path: unlink.path, size: unlink.path_size, base: unlink.base, baseSize: unlink.base_size },
      'path',
    ),
  );
  if ((record.u32(unlink.flags) & removeDirectory) !== 0) event.attrs.directory = true;
  syscallResult(event.attrs, record.i32(unlink.result));
  return undefined;
}
