/**
 * A path as the kernel side captured it made absolute: the directory a relative path is relative
 * to comes as its components, leaf first, NUL-terminated (bpf/lib/dir-path.h); the path is joined
 * to it and its `.` and `..` taken lexically (a symlink in it is not followed).
 */
import type { RecordView } from './record-view.js';
import { baseBytes } from './records.js';

/** The directory a base field holds, as an absolute path (`/` for the root). */
export function readBase(record: RecordView, offset: number, size: number, name: string): string {
  const components = record
    .text(offset, Math.min(size, baseBytes), name)
    .split('\0')
    .filter((component) => component !== '' && component !== '/'); // a filesystem root names itself /
  return '/' + components.reverse().join('/');
}

/** `path` (relative) joined to `directory` (absolute), with `.` and `..` taken lexically. */
export function joinPath(directory: string, path: string): string {
  const parts: string[] = [];
  for (const part of `${directory}/${path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return '/' + parts.join('/');
}
