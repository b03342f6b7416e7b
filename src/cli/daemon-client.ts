/** How CLI commands reach the daemon: HTTP only, never the database. */
import type { Writable } from 'node:stream';

export const defaultDaemonUrl = 'http://127.0.0.1:8574';
const requestTimeoutMs = 10_000;

/** `--url`, else `$PROVD_URL`, else the default listen address. */
export function daemonUrl(flag: string | undefined): string {
  return (flag ?? process.env['PROVD_URL'] ?? defaultDaemonUrl).replace(/\/+$/, '');
}

/** GETs a path with the configured token; writes why to `stderr` and resolves undefined if unreachable. */
export async function fetchDaemon(
  baseUrl: string,
  path: string,
  stderr: Writable,
): Promise<{ status: number; body: unknown } | undefined> {
  const headers: Record<string, string> = {};
  const token = process.env['PROVD_AUTH_TOKEN'];
  if (token) headers['authorization'] = `Bearer ${token}`;
  try {
    const response = await fetch(baseUrl + path, { headers, signal: AbortSignal.timeout(requestTimeoutMs) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      stderr.write(
        `provd: ${baseUrl}${path} answered HTTP ${response.status} with a body that is not JSON\n`,
      );
      return undefined;
    }
    return { status: response.status, body };
  } catch (error) {
    const reason =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error);
    stderr.write(`provd: PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at ${baseUrl}: ${reason}\n`);
    return undefined;
  }
}
