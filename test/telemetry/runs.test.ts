import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** Follows next_cursor through GET /v1/runs; returns every run summary seen, in order. */
async function pageRuns(baseUrl: string, limit: number): Promise<Record<string, unknown>[]> {
  const runs: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/v1/runs?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const { status, body } = await request(baseUrl, path);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['count'], (body['runs'] as unknown[]).length);
    runs.push(...(body['runs'] as Record<string, unknown>[]));
    cursor = body['next_cursor'] as string | null;
    assert.equal(body['has_more'], cursor !== null);
  } while (cursor !== null);
  return runs;
}

const idsOf = (runs: Record<string, unknown>[]): string[] => runs.map((run) => run['run_id'] as string);

describe('GET /v1/runs', function () {
  const daemons = useDaemonFixture();

  it('answers an empty last page when no run is known', async function () {
    const daemon = await daemons.start();
    const { status, body } = await request(daemon.url, '/v1/runs');
    assert.equal(status, 200);
    assert.deepEqual(body, {
      schema_version: 'provenance.runs/v1',
      limit: 100,
      count: 0,
      has_more: false,
      next_cursor: null,
      runs: [],
    });
  });

  it('pages every run once, newest first, without gaps or repeats while runs are added', async function () {
    const daemon = await daemons.start();
    const bound: string[] = [];
    for (let i = 0; i < 23; i++) {
      // ids that do not sort by age, and one with characters a cursor must carry intact
      const runId = i === 5 ? 'run "ü/€" 5' : `run-${(i * 7) % 23}`;
      await bind(daemon.url, { run_id: runId, tool_call_id: 'tc', cgroup_id: `cg-${i}` });
      bound.push(runId);
    }
    const first = await request(daemon.url, '/v1/runs?limit=4');
    const firstIds = idsOf(first.body['runs'] as Record<string, unknown>[]);
    assert.deepEqual(firstIds, bound.slice(-4).reverse(), 'newest first');
    // runs named while a client pages sort before its cursor: the rest of the walk is unchanged
    await bind(daemon.url, { run_id: 'run-late', tool_call_id: 'tc', cgroup_id: 'cg-late' });
    const rest: string[] = [];
    let cursor = first.body['next_cursor'] as string | null;
    while (cursor !== null) {
      const { status, body } = await request(daemon.url, `/v1/runs?limit=4&cursor=${cursor}`);
      assert.equal(status, 200, JSON.stringify(body));
      rest.push(...idsOf(body['runs'] as Record<string, unknown>[]));
      cursor = body['next_cursor'] as string | null;
    }
    assert.deepEqual([...firstIds, ...rest], [...bound].reverse());
    const all = idsOf(await pageRuns(daemon.url, 5));
    assert.deepEqual(all, ['run-late', ...[...bound].reverse()]);
    assert.deepEqual(idsOf(await pageRuns(daemon.url, 1000)), all);
  });

  it('counts each run’s bindings, tool calls and events, with the windows its events span', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc-1', cgroup_id: 'cg-a' });
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc-2', pid: 9001 });
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc-2', pid: 9002 });
    await bind(daemon.url, { run_id: 'run-b', tool_call_id: 'tc-1', cgroup_id: 'cg-b' });
    const lines = [
      nativeLine({ cgroup_id: 'cg-a', timestamp: '2026-01-01T00:00:03.5Z' }),
      nativeLine({ cgroup_id: 'cg-a', timestamp: '2026-01-01T00:00:41Z', event_type: 'file_open' }),
      nativeLine({ cgroup_id: 'cg-a', event_type: 'file_open', path: '/root/.aws/credentials' }),
      nativeLine({ cgroup_id: 'cg-unbound' }),
    ];
    await ingest(daemon.url, lines.join('\n'), 'native');
    const runs = await pageRuns(daemon.url, 10);
    assert.deepEqual(idsOf(runs), ['run-b', 'run-a']);
    const [b, a] = runs as [Record<string, unknown>, Record<string, unknown>];
    const bindings = a['bindings'] as Record<string, unknown>;
    assert.equal(bindings['count'], 3);
    assert.equal(bindings['tool_calls'], 2);
    assert.equal(typeof bindings['last_bound'], 'string');
    assert.ok(String(a['first_seen']) <= String(bindings['last_bound']));
    const events = a['events'] as Record<string, unknown>;
    assert.equal(events['count'], 3);
    assert.equal(events['kernel_correlated'], 3);
    assert.equal(events['risky'], 1);
    assert.match(String(events['from']), /^2026-01-01T00:00:00(\.0+)?Z$/);
    assert.match(String(events['to']), /^2026-01-01T00:00:50(\.0+)?Z$/);
    assert.deepEqual(b['events'], { count: 0, kernel_correlated: 0, risky: 0, from: null, to: null });
    assert.equal((b['bindings'] as Record<string, unknown>)['count'], 1);
  });

  it('refuses a malformed or foreign cursor and a bad limit with 400', async function () {
    const daemon = await daemons.start();
    for (let i = 0; i < 3; i++) await bind(daemon.url, { run_id: `r${i}`, tool_call_id: 't', pid: 100 + i });
    await ingest(daemon.url, [1, 2].map(() => nativeLine({ pid: 100 })).join('\n'), 'native');
    const events = await request(daemon.url, '/v1/telemetry/events?run=r0&limit=1');
    const eventsCursor = events.body['next_cursor'] as string;
    assert.equal(typeof eventsCursor, 'string');
    const forged = (key: unknown[]): string =>
      Buffer.from(JSON.stringify({ v: 4, f: 'x', k: key })).toString('base64url');
    const cases: [string, string][] = [
      ['/v1/runs?cursor=not-a-cursor', 'invalid_cursor'],
      ['/v1/runs?cursor=%E2%9C%93', 'invalid_cursor'],
      ['/v1/runs?cursor=', 'invalid_cursor'],
      [`/v1/runs?cursor=${eventsCursor}`, 'invalid_cursor'],
      [`/v1/runs?cursor=${forged(['1'])}`, 'invalid_cursor'],
      [`/v1/runs?cursor=${'A'.repeat(5000)}`, 'invalid_cursor'],
      ['/v1/runs?limit=0', 'invalid_argument'],
      ['/v1/runs?limit=1001', 'invalid_argument'],
      ['/v1/runs?limit=-1', 'invalid_argument'],
      ['/v1/runs?limit=ten', 'invalid_argument'],
      ['/v1/runs?limit=2.5', 'invalid_argument'],
      ['/v1/runs?limit=1&limit=2', 'invalid_argument'],
    ];
    for (const [path, code] of cases) {
      const { status, body } = await request(daemon.url, path);
      assert.equal(status, 400, path);
      assert.equal((body['error'] as Record<string, unknown>)['code'], code, path);
      if (code === 'invalid_argument') {
        assert.match(String((body['error'] as Record<string, unknown>)['message']), /limit/, path);
      }
    }
    // a runs cursor is refused by the events list in turn
    const runs = await request(daemon.url, '/v1/runs?limit=1');
    const runsCursor = runs.body['next_cursor'] as string;
    const { status, body } = await request(daemon.url, `/v1/telemetry/events?run=r0&cursor=${runsCursor}`);
    assert.equal(status, 400);
    assert.equal((body['error'] as Record<string, unknown>)['code'], 'invalid_cursor');
  });
});
