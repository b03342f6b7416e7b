/**
 * The daemon's log: one JSON object per line on stderr (stdout stays free for command output and
 * for the MCP server's JSON-RPC). Fields: time, level, msg, then the event's own fields.
 */

import { writeSync } from 'node:fs';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Writes one log line. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(line(level, msg, fields));
}

/**
 * Writes one log line at once, straight to fd 2: a worker's process.stderr reaches it through the
 * main thread, too late for a line written just before the worker blocks (a fault hook's stall).
 */
export function logNow(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  writeSync(2, line(level, msg, fields));
}

function line(level: Level, msg: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n';
}
