/** Helpers for telemetry tests: native lines, ingest and bind calls, and walking every page. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { request, type JsonAnswer } from './http.js';

/** One native NDJSON line (src/ingest/native-format.md) with defaults for what a test does not care about. */
export function nativeLine(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event_type: 'execve',
    timestamp: '2026-01-01T00:00:01Z',
    pid: 4242,
    tgid: 4242,
    ppid: 1,
    comm: 'sh',
    cgroup_id: '777',
    path: '/bin/sh',
    ...fields,
  });
}

/** POSTs NDJSON to the ingest endpoint and returns the (OpenAPI-checked) answer. */
export function ingest(baseUrl: string, body: string, format = 'auto'): Promise<JsonAnswer> {
  return request(baseUrl, `/v1/telemetry/ingest?format=${format}`, { method: 'POST', body });
}

/** POSTs a bind body and asserts it was accepted. */
export async function bind(baseUrl: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await request(baseUrl, '/v1/telemetry/bind', { method: 'POST', body: JSON.stringify(body) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Follows next_cursor from the first page to the last; returns every event seen, in order. */
export async function pageAll(
  baseUrl: string,
  query: string,
  limit = 1000,
): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/v1/telemetry/events?${query}&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await request(baseUrl, path);
    assert.equal(status, 200, JSON.stringify(body));
    events.push(...(body['events'] as Record<string, unknown>[]));
    cursor = body['next_cursor'] as string | null;
    assert.equal(body['has_more'], cursor !== null);
  } while (cursor !== null);
  return events;
}

/**
 * The content hash of an event as /v1/telemetry/events answers it, recomputed from the answer alone:
 * sha256 over the canonical JSON (RFC 8785) of its system-side facts, with `time` as received.
 */
export function rehash(event: Record<string, unknown>): string {
  const facts = {
    attrs: event['attrs'],
    cgroup_id: event['cgroup_id'],
    comm: event['comm'],
    container_id: event['container_id'],
    // a fact added after events were hashed: in the content only when set
    ...(event['login_uid'] === null ? {} : { login_uid: event['login_uid'] }),
    pid: event['pid'],
    ppid: event['ppid'],
    source: event['source'],
    tgid: event['tgid'],
    time: event['time_received'],
    type: event['type'],
    uid: event['uid'],
  };
  return 'sha256:' + createHash('sha256').update(canonicalJson(facts)).digest('hex');
}
