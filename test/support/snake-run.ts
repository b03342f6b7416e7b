/**
 * The run the CLI views are tested on: Falco's sample of a coding agent whose `pip install` hook
 * read credentials and reached the metadata endpoint, bound to tool call tc-snake by its container.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { eventually } from './eventually.js';
import { request } from './http.js';

const sample = readFileSync(join(packageRoot, 'test', 'fixtures', 'supply-chain-exfil.jsonl'), 'utf8');

/** The daemon's own body for `path`, fetched with `token`. */
export async function daemonBody(url: string, token: string, path: string): Promise<unknown> {
  const answer = await fetch(url + path, { headers: { authorization: `Bearer ${token}` } });
  return answer.json();
}

/** Binds run-snake and ingests its seven events, then waits until its four risks are judged. */
export async function recordSnakeRun(url: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const answer = await request(url, '/v1/telemetry/bind', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      run_id: 'run-snake',
      tool_call_id: 'tc-snake',
      container_id: 'container-snake-demo',
      started_at: '2026-06-29T10:00:00Z',
    }),
  });
  assert.equal(answer.status, 200);
  const ingested = await request(url, '/v1/telemetry/ingest?format=falco', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-ndjson' },
    body: sample,
  });
  assert.equal(ingested.body['accepted'], 7);
  // the policy's risks are judged with the commit; wait until all four are there
  await eventually(
    'four risks',
    async () =>
      ((await daemonBody(url, token, '/v1/security/risks?run=run-snake')) as { count: number }).count,
    (count) => count === 4,
  );
}
