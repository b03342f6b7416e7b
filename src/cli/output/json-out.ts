/** What `--json` prints: the daemon's body unchanged, one indented JSON document. */
import type { Writable } from 'node:stream';

/** Writes `body` as one JSON document and a newline. */
export function writeJson(stdout: Writable, body: unknown): void {
  stdout.write(JSON.stringify(body, null, 2) + '\n');
}
