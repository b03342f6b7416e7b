/** Helpers for the application-context tests: authorized GETs and recorded tool calls. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningDaemon } from './daemon.js';
import { assertErrors as assertErrorsOf, request, type JsonAnswer } from './http.js';

/** The token the context tests start their daemons with (executing a record needs one). */
export const contextToken = 'context-test-token';
const auth = { authorization: `Bearer ${contextToken}` };

/** `sha256:<hex>` of a text's UTF-8 bytes (or of bytes). */
export const sha = (data: string | Uint8Array): string =>
  'sha256:' + createHash('sha256').update(data).digest('hex');

/** A shell script that writes `out` and `err`, creates, modifies and deletes a file (see resetFiles), then exits with `code`. */
export const changingScript = (code: number): string =>
  `printf out; printf err >&2; echo new > made.txt; echo changed > change.txt; rm gone.txt; exit ${code}`;

/** Puts the files changingScript changes in `dir` back as they were before it ran. */
export function resetFiles(dir: string): void {
  writeFileSync(join(dir, 'change.txt'), 'old\n');
  writeFileSync(join(dir, 'gone.txt'), 'bye\n');
  rmSync(join(dir, 'made.txt'), { force: true });
}

/** GETs a path with the token; the answer is checked against the OpenAPI document. */
export function get(daemon: RunningDaemon, path: string): Promise<JsonAnswer> {
  return request(daemon.url, path, { headers: auth });
}

/** GETs a path and asserts a 200. */
export async function getOk(daemon: RunningDaemon, path: string): Promise<Record<string, unknown>> {
  const { status, body } = await get(daemon, path);
  assert.equal(status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

/** An empty directory for this test process, removed at its exit. */
let emptyDir: string | undefined;
function emptyCwd(): string {
  if (emptyDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'provd-context-cwd-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    emptyDir = dir;
  }
  return emptyDir;
}

/**
 * POSTs a record body with the token and asserts it was stored. Without a `cwd` it runs in an
 * empty directory: the daemon's own (this repository) would cost seconds of snapshots each time.
 */
export async function recordCall(
  daemon: RunningDaemon,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await request(daemon.url, '/v1/record', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ cwd: emptyCwd(), ...body }),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** POSTs a bind body with the token and asserts it was accepted. */
export async function bindCall(daemon: RunningDaemon, body: Record<string, unknown>): Promise<void> {
  const answer = await request(daemon.url, '/v1/telemetry/bind', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

/** Asserts each path answers the status and error code given (GETs with the token). */
export function assertErrors(
  daemon: RunningDaemon,
  cases: readonly [path: string, status: number, code: string][],
): Promise<void> {
  return assertErrorsOf(daemon.url, cases, auth);
}

/**
 * Every item of a paged list whose pages may hold fewer items than asked while more follow (a
 * search page reads a bounded window), following next_cursor; asserts the paging fields agree.
 */
export async function pageThrough(
  daemon: RunningDaemon,
  path: string,
  items: string,
): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const body = await getOk(daemon, `${path}${cursor === null ? '' : `&cursor=${cursor}`}`);
    const page = body[items] as Record<string, unknown>[];
    assert.equal(body['count'], page.length);
    assert.equal(body['has_more'], body['next_cursor'] !== null);
    all.push(...page);
    cursor = body['next_cursor'] as string | null;
  } while (cursor !== null);
  return all;
}
