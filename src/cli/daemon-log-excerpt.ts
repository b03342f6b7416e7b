/**
 * The lines of a daemon's log that say why it stopped, as `provd health --wait --pid` shows them when
 * the daemon ended before it was ready: its error lines (JSON, `msg: code: message`) and the CLI's
 * own `provd: ...` lines, else its last lines as they are.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { truncate, visible } from './output/style.js';

/** How much of the log's end is read: its last lines, never the whole of a long log. */
const tailBytes = 64 * 1024;
const maxLines = 5;
const maxLineChars = 500;

/** At most five lines saying why, each made safe for a terminal; empty when the file cannot be read. */
export function logExcerpt(path: string): string[] {
  const lines = tailOf(path)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const why = lines.map(errorLine).filter((line): line is string => line !== undefined);
  return (why.length > 0 ? why : lines).slice(-maxLines).map((line) => truncate(visible(line), maxLineChars));
}

/** `msg: code: message` of a JSON log line at level error, the line of a `provd:` message, else undefined. */
function errorLine(line: string): string | undefined {
  if (line.startsWith('provd: ')) return line;
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  const { level, msg, error } = entry as {
    level?: unknown;
    msg?: unknown;
    error?: { code?: unknown; message?: unknown };
  };
  if (level !== 'error' || typeof msg !== 'string') return undefined;
  if (typeof error?.code === 'string' && typeof error.message === 'string')
    return `${msg}: ${error.code}: ${error.message}`;
  return typeof error?.message === 'string' ? `${msg}: ${error.message}` : msg;
}

/** The last 64 KiB of the file as text (its first line cut where the read began), or ''. */
function tailOf(path: string): string {
  let fd: number;
  try {
    // non-blocking: a FIFO put where the log was must not hold the CLI
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return '';
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return '';
    const { size } = stat;
    const length = Math.min(size, tailBytes);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, size - length);
    const text = buffer.subarray(0, read).toString('utf8');
    return size > length ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    closeSync(fd);
  }
}
