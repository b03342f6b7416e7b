import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useSharedDaemon } from '../support/daemon.js';
import { assertErrors, pageItems, request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

/** The host events of `query`, every page followed, as `comm` of each. */
async function hostComms(url: string, query: string, limit: number): Promise<string[]> {
  const events = await pageItems<{ comm: string }>(
    url,
    `/v1/telemetry/host-events?${query}`,
    'events',
    limit,
  );
  return events.map((event) => event.comm);
}

describe('host events (GET /v1/telemetry/host-events, provd events --host)', function () {
  const shared = useSharedDaemon();
  const url = () => shared.daemon.url;
  const recent = new Date(Date.now() - 60_000).toISOString();

  before(async function () {
    await bind(url(), {
      run_id: 'run-h',
      tool_call_id: 'tc-h',
      cgroup_id: '501',
      started_at: '2026-01-01T00:00:00Z',
    });
    const lines = [
      // five of no run, one second apart, then one of the run, then one captured a minute ago
      ...[1, 2, 3, 4, 5].map((second) =>
        nativeLine({ comm: `host-${second}`, cgroup_id: '999', timestamp: `2026-01-01T00:00:0${second}Z` }),
      ),
      nativeLine({ comm: 'in-run', cgroup_id: '501', timestamp: '2026-01-01T00:00:03Z' }),
      nativeLine({
        comm: 'host-write',
        cgroup_id: '999',
        event_type: 'file_write',
        path: '/tmp/x',
        timestamp: '2026-01-01T00:00:04.5Z',
      }),
      nativeLine({ comm: 'host-recent', cgroup_id: '999', timestamp: recent }),
    ];
    assert.equal((await ingest(url(), lines.join('\n'), 'native')).body['accepted'], lines.length);
  });

  it("lists the events of no run in store order, paged by cursor, leaving out the run's", async function () {
    const all = ['host-1', 'host-2', 'host-3', 'host-4', 'host-5', 'host-write', 'host-recent'];
    assert.deepEqual(await hostComms(url(), '', 2), all);
    assert.deepEqual(await hostComms(url(), '', 1000), all);
    const { body } = await request(url(), '/v1/telemetry/host-events?limit=1');
    assert.deepEqual(
      [body['schema_version'], body['since'], body['until'], body['type'], body['count'], body['has_more']],
      ['provenance.host_events/v1', null, null, null, 1, true],
    );
  });

  it('keeps the capture times from since (inclusive) to until (exclusive), RFC 3339 or a duration back from now', async function () {
    const range = 'since=2026-01-01T00:00:02Z&until=2026-01-01T00:00:04%2B00:00';
    assert.deepEqual(await hostComms(url(), range, 1), ['host-2', 'host-3']);
    const { body } = await request(url(), `/v1/telemetry/host-events?${range}`);
    assert.deepEqual(
      [body['since'], body['until']],
      ['2026-01-01T00:00:02.000000000Z', '2026-01-01T00:00:04.000000000Z'],
    );
    assert.deepEqual(await hostComms(url(), 'since=10m', 1), ['host-recent']);
    assert.deepEqual(await hostComms(url(), 'until=10m', 2), [
      'host-1',
      'host-2',
      'host-3',
      'host-4',
      'host-5',
      'host-write',
    ]);
    assert.deepEqual(await hostComms(url(), 'since=2026-01-01T00:00:04Z&type=file_write', 1), ['host-write']);
  });

  it('keeps the range a duration named on the first page for the pages after it', async function () {
    const first = await request(url(), '/v1/telemetry/host-events?until=10m&limit=3');
    const resolved = first.body['until'] as string;
    const next = await request(
      url(),
      `/v1/telemetry/host-events?until=10m&limit=3&cursor=${first.body['next_cursor'] as string}`,
    );
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body['until'], resolved);
  });

  it('refuses a bad since, until, limit or cursor, and a cursor of other filters or of a run', async function () {
    const page = await request(url(), '/v1/telemetry/host-events?since=2026-01-01T00:00:00Z&limit=1');
    const cursor = page.body['next_cursor'] as string;
    const runPage = await request(url(), '/v1/telemetry/events?run=run-h&limit=1');
    const runCursor = runPage.body['resume_cursor'] as string;
    await assertErrors(url(), [
      ['/v1/telemetry/host-events?since=yesterday', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=10x', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=-10m', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=2026-13-01T00:00:00Z', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=2026-01-01T00:00:00', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=999999999d', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?since=1m&until=2m', 400, 'invalid_argument'],
      [
        '/v1/telemetry/host-events?since=2026-01-01T00:00:02Z&until=2026-01-01T00:00:02Z',
        400,
        'invalid_argument',
      ],
      ['/v1/telemetry/host-events?since=10m&since=20m', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?limit=0', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?limit=1001', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?type=nonsense', 400, 'invalid_argument'],
      ['/v1/telemetry/host-events?cursor=not-a-cursor', 400, 'invalid_cursor'],
      [`/v1/telemetry/host-events?since=2026-01-01T00:00:01Z&cursor=${cursor}`, 400, 'invalid_cursor'],
      [`/v1/telemetry/host-events?cursor=${cursor}`, 400, 'invalid_cursor'],
      [`/v1/telemetry/host-events?cursor=${runCursor}`, 400, 'invalid_cursor'],
      [`/v1/telemetry/events?run=run-h&cursor=${cursor}`, 400, 'invalid_cursor'],
    ]);
  });

  it('prints them with provd events --host, and refuses a RUN with --host or --since without it', async function () {
    const listed = await runCli([
      'events',
      '--host',
      '--since',
      '2026-01-01T00:00:04Z',
      '--until',
      '10m',
      '--url',
      url(),
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^TIME \(UTC\) +TYPE +PROCESS/);
    assert.deepEqual(
      lines.slice(1).map((line) => /(host-[a-z0-9]+)\[/.exec(line)?.[1]),
      ['host-4', 'host-5', 'host-write'],
    );
    const paged = await runCli(['events', '--host', '--type', 'execve', '--limit', '1', '--url', url()]);
    assert.equal(paged.code, 0, paged.stderr);
    assert.match(paged.stderr, /more events follow: provd events --host --type execve --cursor \S+/);
    const none = await runCli([
      'events',
      '--host',
      '--since',
      '2026-01-01T00:00:00Z',
      '--until',
      '2026-01-01T00:00:01Z',
      '--url',
      url(),
    ]);
    assert.equal(none.stdout, "no events in the host's events asked for\n");
    for (const args of [['events'], ['events', 'run-h', '--host'], ['events', 'run-h', '--since', '10m']]) {
      const refused = await runCli([...args, '--url', url()]);
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
    }
    const bad = await runCli(['events', '--host', '--since', 'yesterday', '--url', url()]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since must be an RFC 3339 date-time or a duration back from now/);
  });
});
