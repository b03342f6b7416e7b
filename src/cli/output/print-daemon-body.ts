/** What a command printing one answer of the daemon does: its body unchanged with `--json`, else as text. */
import type { Writable } from 'node:stream';
import { isFailedRead, readDaemon, unreachableExitCode } from './daemon-read.js';
import { writeJson } from './json-out.js';

/** How a command prints the body it reads: `render` makes the text of a `schema` body, one `is` accepts. */
export interface BodyView<Body> {
  json: boolean;
  schema: string;
  is: (body: unknown) => body is Body;
  /** The text of the body; or, when it read more and that failed, the exit code to leave with. */
  render: (body: Body) => string | Promise<string | { exitCode: number }>;
  /** What stderr says after the text (the next page's command), if anything. */
  note?: (body: Body) => string;
}

/**
 * GETs `path` and prints its body as `view` says; resolves with the exit code: 0 when printed, a
 * failed read's, or unreachableExitCode for a body that is not `view.schema`'s (with `--json` the
 * body is printed unchecked).
 */
export async function printDaemonBody<Body>(
  baseUrl: string,
  path: string,
  { stdout, stderr }: { stdout: Writable; stderr: Writable },
  view: BodyView<Body>,
): Promise<number> {
  const read = await readDaemon(baseUrl, path, stderr);
  if (isFailedRead(read)) return read.exitCode;
  if (view.json) {
    writeJson(stdout, read.body);
    return 0;
  }
  if (!view.is(read.body)) {
    stderr.write(`provd: unexpected answer from the daemon (not a ${view.schema} body)\n`);
    return unreachableExitCode;
  }
  const text = await view.render(read.body);
  if (typeof text !== 'string') return text.exitCode;
  stdout.write(text);
  if (view.note !== undefined) stderr.write(view.note(read.body));
  return 0;
}
