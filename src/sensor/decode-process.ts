/** Decoders of the process records (bpf/process.bpf.c): exec and exit. */
import type { ParsedEvent } from '../model/event.js';
import { joinPath, readBase } from './dir-path.js';
import type { RecordView } from './record-view.js';
import { argvBytes, header, layouts, pathBytes, recordBaseCut } from './records.js';

const exec = layouts.exec_event.fields;
const exit = layouts.exit_event.fields;

/**
 * An exec: the new image's path (a relative name made absolute with the working directory; for a
 * descriptor's name, the path of the file it runs; the name as given in `given_path`) and its argv
 * (NUL-separated, the last one NUL-terminated unless cut).
 */
export function decodeExec(record: RecordView, event: ParsedEvent): string | undefined {
  const filenameSize = Math.min(record.u32(exec.filename_size), pathBytes);
  const argvSize = Math.min(record.u32(exec.argv_size), argvBytes);
  if (!record.holds(exec.argv, argvSize))
    return `exec record of ${record.size} bytes holds no argv of ${argvSize}`;
  event.type = 'execve';
  const given = record.text(exec.filename, filenameSize, 'path');
  event.attrs.path = given;
  // when the name does not say which file runs, the kernel side read the working directory (for a
  // relative name) or the file itself (for a descriptor's name, /dev/fd/N)
  const baseSize = record.u32(exec.base_size);
  const unresolved = (record.u32(header.flags) & recordBaseCut) !== 0;
  const relative = !given.startsWith('/');
  if (baseSize > 0 || unresolved || relative) {
    event.attrs.given_path = given;
    if (relative) event.attrs.relative = true;
    const base = readBase(record, exec.base, baseSize, 'path_base');
    if (unresolved) event.attrs.path_unresolved = true;
    else event.attrs.path = relative ? joinPath(base, given) : base;
  }
  const args = record.text(exec.argv, argvSize, 'argv').split('\0');
  if (args[args.length - 1] === '') args.pop();
  event.attrs.argv = args;
  return undefined;
}

/** A process exit: the status byte it gave exit(), and the signal that ended it (0: none). */
export function decodeExit(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(exit.signal, 4)) return `exit record of ${record.size} bytes is too short`;
  event.type = 'process_exit';
  event.attrs.exit_code = record.i32(exit.exit_code);
  event.attrs.signal = record.i32(exit.signal);
  return undefined;
}
