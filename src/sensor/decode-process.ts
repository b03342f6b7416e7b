/** Decoders of the process records (bpf/process.bpf.c): exec and exit. */
import type { ParsedEvent } from '../telemetry/event.js';
import { readBase } from './dir-path.js';
import type { RecordView } from './record-view.js';
import { argvBytes, header, layouts, pathBytes, recordBaseCut } from './records.js';

const exec = layouts.exec_event.fields;
const exit = layouts.exit_event.fields;

/**
 * An exec: the new image's path (for a relative or a descriptor's name, the path of the file it
 * runs, with the name in `given_path`) and its argv (NUL-separated, the last one NUL-terminated
 * unless cut).
 */
export function decodeExec(record: RecordView, event: ParsedEvent): string | undefined {
  const filenameSize = Math.min(record.u32(exec.filename_size), pathBytes);
  const argvSize = Math.min(record.u32(exec.argv_size), argvBytes);
  if (!record.holds(exec.argv, argvSize))
    return `exec record of ${record.size} bytes holds no argv of ${argvSize}`;
  event.type = 'execve';
  const given = record.text(exec.filename, filenameSize, 'path');
  event.attrs.path = given;
  // the kernel side read the file that runs when the name does not say (relative, /dev/fd/N)
  const baseSize = record.u32(exec.base_size);
  const unresolved = (record.u32(header.flags) & recordBaseCut) !== 0;
  if (baseSize > 0 || unresolved) {
    event.attrs.given_path = given;
    if (!given.startsWith('/')) event.attrs.relative = true;
    if (unresolved) event.attrs.path_unresolved = true;
    else event.attrs.path = readBase(record, exec.base, baseSize, 'path_base');
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
