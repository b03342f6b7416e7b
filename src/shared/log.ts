/**
 * The daemon's log: one JSON object per line on stderr (stdout stays free for command output and
 * for the MCP server's JSON-RPC). Fields: time, level, msg, then the event's own fields.
 */

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Writes one log line. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n');
}
