/** Decoders of the file records (bpf/file.bpf.c): open, rename and unlink. */
import type { ParsedEvent } from '../telemetry/event.js';
import { openFlagsText, opensForWriting } from './open-flags.js';
import type { RecordView } from './record-view.js';
import { layouts, pathBytes } from './records.js';
import { syscallResult } from './syscall-result.js';

const open = layouts.file_open_event.fields;
const rename = layouts.file_rename_event.fields;
const unlink = layouts.file_unlink_event.fields;
const renameNoReplace = 1;
const renameExchange = 2;
const removeDirectory = 0x200; // AT_REMOVEDIR

/**
 * An open attempt: `file_write` when it asked to change the file (write access, create, truncate),
 * else `file_open`; the path as given (`relative` when it is), and its result.
 */
export function decodeFileOpen(record: RecordView, event: ParsedEvent): string | undefined {
  const pathSize = Math.min(record.u32(open.path_size), pathBytes);
  if (!record.holds(open.path, pathSize))
    return `open record of ${record.size} bytes holds no path of ${pathSize}`;
  const flags = record.u32(open.flags);
  event.type = opensForWriting(flags) ? 'file_write' : 'file_open';
  const path = record.text(open.path, pathSize, 'path');
  event.attrs.path = path;
  if (!path.startsWith('/')) event.attrs.relative = true;
  event.attrs.flags = openFlagsText(flags);
  if ((flags & 0o100) !== 0) event.attrs.mode = record.u32(open.mode); // only O_CREAT uses it
  syscallResult(event.attrs, record.i32(open.result));
  return undefined;
}

/** A rename attempt: the paths as the caller gave them (`relative` when either is), and its result. */
export function decodeFileRename(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(rename.new_path, pathBytes)) return `rename record of ${record.size} bytes is too short`;
  event.type = 'file_rename';
  const path = record.text(rename.old_path, Math.min(record.u32(rename.old_size), pathBytes), 'path');
  const newPath = record.text(rename.new_path, Math.min(record.u32(rename.new_size), pathBytes), 'new_path');
  event.attrs.path = path;
  event.attrs.new_path = newPath;
  if (!path.startsWith('/') || !newPath.startsWith('/')) event.attrs.relative = true;
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
  const path = record.text(unlink.path, pathSize, 'path');
  event.attrs.path = path;
  if (!path.startsWith('/')) event.attrs.relative = true;
  if ((record.u32(unlink.flags) & removeDirectory) !== 0) event.attrs.directory = true;
  syscallResult(event.attrs, record.i32(unlink.result));
  return undefined;
}
