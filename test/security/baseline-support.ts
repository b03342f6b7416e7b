/** Helpers for the baseline tests: runs of native events, learning, and every page of deviations. */
import assert from 'node:assert/strict';
import type { RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** A deviation as the tests read it. */
export interface Deviation {
  measure: string;
  severity: string;
  reason: string;
  observed: string | number;
  expected: Record<string, unknown>;
  baseline: { name: string; version: number };
  basis: { events: number; flagged_events: number; event_ids: string[]; window_start: string | null };
}

/** Binds `run` to its own cgroup, then ingests `events` (native fields) of that cgroup, in one request. */
export async function seedRun(
  daemon: RunningDaemon,
  run: string,
  cgroup: string,
  events: Record<string, unknown>[],
): Promise<void> {
  await bind(daemon.url, {
    run_id: run,
    tool_call_id: `tc-${run}`,
    cgroup_id: cgroup,
    started_at: '2026-01-01T00:00:00Z',
  });
  await ingestInto(daemon, cgroup, events);
}

/** Ingests more events of a cgroup already bound. */
export async function ingestInto(
  daemon: RunningDaemon,
  cgroup: string,
  events: Record<string, unknown>[],
): Promise<void> {
  const body = events.map((fields) => `${nativeLine({ cgroup_id: cgroup, ...fields })}\n`).join('');
  const answer = await ingest(daemon.url, body, 'native');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body['accepted'], events.length, JSON.stringify(answer.body));
}

/** POSTs a baseline body; returns the answer (checked against OpenAPI by `request`). */
export function learn(
  daemon: RunningDaemon,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return request(daemon.url, '/v1/security/baselines', { method: 'POST', body: JSON.stringify(body) });
}

/** Every deviation of a run from a baseline (query `extra`), following next_cursor with pages of `limit`. */
export async function deviationsOf(
  daemon: RunningDaemon,
  run: string,
  extra = '',
  limit = 100,
): Promise<{ first: Record<string, unknown>; deviations: Deviation[] }> {
  const deviations: Deviation[] = [];
  let cursor: string | null = null;
  let first: Record<string, unknown> | undefined;
  do {
    const path: string = `/v1/security/deviations?run=${run}${extra}&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await request(daemon.url, path);
    assert.equal(status, 200, JSON.stringify(body));
    first ??= body;
    const page = body['deviations'] as Deviation[];
    assert.equal(body['count'], page.length);
    if (body['has_more'] === true) assert.equal(page.length, limit);
    deviations.push(...page);
    cursor = body['next_cursor'] as string | null;
  } while (cursor !== null);
  return { first, deviations };
}

/** An agent's usual work: it runs git and node, reads and writes under /work, fetches from one registry. */
export const usualWork: Record<string, unknown>[] = [
  { event_type: 'execve', path: '/usr/bin/git', argv: ['git', 'status'] },
  { event_type: 'execve', path: '/usr/bin/node', argv: ['node', 'build.js'] },
  { event_type: 'file_open', path: '/work/src/index.ts', flags: 'O_RDONLY' },
  { event_type: 'file_open', path: '/work/README.md', flags: 'O_RDONLY' },
  { event_type: 'file_write', path: '/work/dist/index.js' },
  { event_type: 'dns_query', query: 'registry.npmjs.org.' },
  { event_type: 'network_connect', dst_ip: '104.16.0.35', dst_port: 443 },
];

/** Two runs of the usual work learned as baseline `agent`, version 1. */
export async function learnUsual(daemon: RunningDaemon): Promise<Record<string, unknown>> {
  await seedRun(daemon, 'learn-b', '201', usualWork);
  await seedRun(daemon, 'learn-a', '202', [...usualWork, ...usualWork]);
  const learned = await learn(daemon, { name: 'agent', runs: ['learn-b', 'learn-a'] });
  assert.equal(learned.status, 200, JSON.stringify(learned.body));
  return learned.body;
}
