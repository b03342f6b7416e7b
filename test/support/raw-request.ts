/**
 * A request sent with exactly the headers given, Host included (which fetch will not let a caller
 * set): how the browser-guard tests write a web page's or a rebinding page's requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { RunningDaemon } from './daemon.js';

/** The answer: its status, headers and body as text. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Sends `method path` to `daemon` with `headers` over Host `127.0.0.1:PORT` (unless they set it). */
export function sendRaw(
  daemon: RunningDaemon,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: '127.0.0.1',
        port: daemon.port,
        method,
        path,
        headers: { host: `127.0.0.1:${daemon.port}`, ...headers },
      },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(parts).toString(),
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
