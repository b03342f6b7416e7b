/**
 * Records the ring reader writes when it folds (native/src/record-folder.h, which they must match):
 * each follows the record it completes, in the same batch, and becomes fields of that one event.
 * - `repeat`: the record before it happened `count` times in all, identical but for the capture
 *   time, from one thread within 100 ms (other records of the thread may have come between them);
 *   the event gets `count` and `last_time`.
 * - `libraries`: the dynamic loader's opens of shared libraries and /etc/ld.so.cache right after
 *   the exec before it; the exec event gets `libraries`, `libraries_failed` and `library_opens`.
 * - `locale`: the C library's opens of locale and gconv files among or after those, before the
 *   process did anything else; the exec event gets `locale_files` (the files opened), `locale_failed`
 *   (how many opens failed) and `locale_opens` (how many in all). Same layout as `libraries`.
 */
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { ParsedEvent } from '../model/event.js';
import type { RecordView } from './record-view.js';
import { headerBytes, recordTruncated, header } from './records.js';
import { errnoName } from './syscall-result.js';

/** struct repeat_record: the header, then these fields. */
export const repeatRecord = { count: 64, last_ktime_ns: 72, size: 80 } as const;
/** struct libraries_record: the header, then these fields. */
export const librariesRecord = {
  opens: 64,
  kept: 68,
  paths_size: 72,
  failed: 76,
  results: 80,
  paths: 208,
} as const;
const librariesMax = 32;

/** Completes `event` (the record before) with a repeat record; an error when it cannot. */
export function applyRepeat(record: RecordView, event: ParsedEvent, offsetNs: bigint): string | undefined {
  if (!record.holds(headerBytes, repeatRecord.size - headerBytes)) return 'repeat record too short';
  event.attrs.count = record.u32(repeatRecord.count);
  event.attrs.last_time = formatRfc3339Nanos(record.u64(repeatRecord.last_ktime_ns) + offsetNs);
  return undefined;
}

/** The kept opens of a libraries or locale record, split into the opened paths and the failed ones. */
function keptOpens(
  record: RecordView,
  field: string,
): { opened: string[]; failed: { path: string; error: string }[] } | undefined {
  const kept = Math.min(record.u32(librariesRecord.kept), librariesMax);
  const size = record.u32(librariesRecord.paths_size);
  if (!record.holds(librariesRecord.paths, size)) return undefined;
  const opened: string[] = [];
  const failed: { path: string; error: string }[] = [];
  let at = librariesRecord.paths;
  for (let i = 0; i < kept; i++) {
    const bytes = record.raw(at, librariesRecord.paths + size - at);
    const end = bytes.indexOf(0);
    const path = record.text(at, end === -1 ? bytes.length : end, `${field}.${i}`);
    at += (end === -1 ? bytes.length : end) + 1;
    const result = record.i32(librariesRecord.results + i * 4);
    if (result >= 0) opened.push(path);
    else failed.push({ path, error: errnoName(-result) });
  }
  return { opened, failed };
}

/** Completes an exec `event` with the libraries its loader opened. */
export function applyLibraries(record: RecordView, event: ParsedEvent): string | undefined {
  if (event.type !== 'execve') return 'libraries record after a record that is no exec';
  const opens = keptOpens(record, 'libraries');
  if (opens === undefined) return 'libraries record too short';
  event.attrs.libraries = opens.opened;
  if (opens.failed.length > 0) event.attrs.libraries_failed = opens.failed;
  event.attrs.library_opens = record.u32(librariesRecord.opens);
  if ((record.u32(header.flags) & recordTruncated) !== 0) event.attrs.libraries_truncated = true;
  return undefined;
}

/**
 * Completes an exec `event` with its C library's locale opens: the files opened (kept ones), how
 * many failed (a locale's lookups mostly do, and say nothing: counted, not listed) and how many in all.
 */
export function applyLocale(record: RecordView, event: ParsedEvent): string | undefined {
  if (event.type !== 'execve') return 'locale record after a record that is no exec';
  const opens = keptOpens(record, 'locale_files');
  if (opens === undefined) return 'locale record too short';
  event.attrs.locale_files = opens.opened;
  const failed = record.u32(librariesRecord.failed);
  if (failed > 0) event.attrs.locale_failed = failed;
  event.attrs.locale_opens = record.u32(librariesRecord.opens);
  if ((record.u32(header.flags) & recordTruncated) !== 0) event.attrs.locale_truncated = true;
  return undefined;
}
