import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useDaemonFixture, useSharedDaemon, assertStopsCleanly } from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { evidenceCode } from '../../src/model/codes.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';
import { eventually } from '../support/eventually.js';

const types = ['execve', 'file_open', 'network_connect', 'file_write', 'dns_query'];

/** Native lines of one cgroup with mixed types over two minutes. */
function mixedLines(count: number, cgroup: string, offset = 0): string {
  return Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    const second = String(n % 120).padStart(2, '0');
    return nativeLine({
      cgroup_id: cgroup,
      pid: 1000 + (n % 50),
      event_type: types[n % types.length],
      timestamp: `2026-01-01T00:${String(Math.floor((n % 120) / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.${n % 10}Z`,
      path: n % 7 === 0 ? '/root/.aws/credentials' : '/tmp/f' + second,
      dst_ip: n % 11 === 0 ? '169.254.169.254' : '93.184.216.34',
      dst_port: 443,
      bytes: 10,
      query: 'example.com',
    });
  }).join('\n');
}

/** Reads producer health, for eventually(). */
function producerHealth(daemon: { url: string }): () => Promise<Record<string, unknown>> {
  return async () => (await request(daemon.url, '/v1/telemetry/producer-health')).body;
}

describe('telemetry queries', function () {
  const daemons = useDaemonFixture();
  // one daemon for the tests that read only their own runs' answers (runs and cgroups of their
  // own), instead of one started a test
  const shared = useSharedDaemon();

  it('pages without duplicates or gaps while ingest is running', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-p', tool_call_id: 'tc', cgroup_id: 'cg-p' });
    await ingest(daemon.url, mixedLines(1500, 'cg-p'), 'native');
    let ingested = 1500;
    const writer = (async () => {
      for (let round = 1; round < 12; round++) {
        const { body } = await ingest(daemon.url, mixedLines(1500, 'cg-p', round * 1500), 'native');
        ingested += body['accepted'] as number;
      }
    })();
    const during = (await pageAll(daemon.url, 'run=run-p', 100)).map((event) => event['id'] as string);
    await writer;
    const after = (await pageAll(daemon.url, 'run=run-p')).map((event) => event['id'] as string);
    assert.equal(ingested, 18_000);
    assert.equal(after.length, ingested, 'a pass after ingest sees every event');
    assert.equal(new Set(during).size, during.length, 'no event is seen twice during ingest');
    // keyset pages skip nothing: what the pass during ingest saw is exactly the start of the full list
    assert.deepEqual(during, after.slice(0, during.length));
  });

  it('pages only the run and type asked for when runs interleave in one body', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc', cgroup_id: 'cg-a' });
    await bind(daemon.url, { run_id: 'run-b', tool_call_id: 'tc', cgroup_id: 'cg-b' });
    const a = mixedLines(300, 'cg-a').split('\n');
    const b = mixedLines(300, 'cg-b').split('\n');
    await ingest(daemon.url, a.flatMap((line, i) => [line, b[i]!]).join('\n'), 'native');
    const whole = await pageAll(daemon.url, 'run=run-a');
    assert.equal(whole.length, 300);
    const ids = (events: Record<string, unknown>[]): unknown[] => events.map((event) => event['id']);
    assert.deepEqual(ids(await pageAll(daemon.url, 'run=run-a', 7)), ids(whole));
    const execs = await pageAll(daemon.url, 'run=run-a&type=execve', 7);
    assert.deepEqual(
      ids(execs),
      ids(whole.filter((event) => event['type'] === 'execve')),
      'the pages of a type are the run list filtered by it',
    );
    assert.equal(execs.length, 60);
  });

  it('refuses a cursor used with other filters, a malformed cursor, and a bad limit', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-c', tool_call_id: 'tc', cgroup_id: 'cg-c' });
    await bind(daemon.url, { run_id: 'run-d', tool_call_id: 'tc', cgroup_id: 'cg-d' });
    await ingest(daemon.url, mixedLines(30, 'cg-c'), 'native');
    const first = await request(daemon.url, '/v1/telemetry/events?run=run-c&limit=5');
    const cursor = first.body['next_cursor'] as string;
    assert.equal(typeof cursor, 'string');
    const cases: [string, string][] = [
      [`/v1/telemetry/events?run=run-c&type=execve&cursor=${cursor}`, 'invalid_cursor'],
      [`/v1/telemetry/events?run=run-d&cursor=${cursor}`, 'invalid_cursor'],
      ['/v1/telemetry/events?run=run-c&cursor=not-a-cursor', 'invalid_cursor'],
      [
        `/v1/telemetry/events?run=run-c&cursor=${Buffer.from('{"v":1}').toString('base64url')}`,
        'invalid_cursor',
      ],
      ['/v1/telemetry/events?run=run-c&cursor=%E2%9C%93', 'invalid_cursor'],
      [`/v1/telemetry/windows?run=run-c&cursor=${cursor}`, 'invalid_cursor'],
      ['/v1/telemetry/events?run=run-c&limit=1001', 'invalid_argument'],
      ['/v1/telemetry/events?run=run-c&limit=ten', 'invalid_argument'],
      ['/v1/telemetry/events?run=run-c&type=bogus', 'invalid_argument'],
      ['/v1/telemetry/windows?run=run-c&window=30', 'invalid_argument'],
      ['/v1/telemetry/windows?run=run-c&from=yesterday', 'invalid_argument'],
      [
        '/v1/telemetry/windows?run=run-c&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
        'invalid_argument',
      ],
    ];
    for (const [path, code] of cases) {
      const { status, body } = await request(daemon.url, path);
      assert.equal(status, 400, path);
      assert.equal((body['error'] as { code: string }).code, code, path);
    }
    const next = await request(daemon.url, `/v1/telemetry/events?run=run-c&limit=5&cursor=${cursor}`);
    assert.equal(next.status, 200, 'the cursor still works with its own filters');
  });

  it('answers 400 without run and 404 for a run nobody bound, on every per-run query', async function () {
    const { daemon } = shared;
    for (const path of ['/v1/telemetry/events', '/v1/telemetry/windows', '/v1/telemetry/correlations']) {
      const missing = await request(daemon.url, path);
      assert.equal(missing.status, 400, path);
      assert.match((missing.body['error'] as { message: string }).message, /^run is required/);
      const unknown = await request(daemon.url, `${path}?run=nobody`);
      assert.equal(unknown.status, 404, path);
      assert.equal((unknown.body['error'] as { code: string }).code, 'run_not_found');
    }
    assert.equal((await request(daemon.url, '/v1/telemetry/producer-health?run=nobody')).status, 404);
    assert.equal((await request(daemon.url, '/v1/telemetry/producer-health')).status, 200);
  });

  it('keeps window counts equal to event counts for both window lengths', async function () {
    const { daemon } = shared;
    await bind(daemon.url, { run_id: 'run-w', tool_call_id: 'tc', cgroup_id: 'cg-w' });
    await ingest(daemon.url, mixedLines(2400, 'cg-w'), 'native');
    await ingest(daemon.url, mixedLines(600, 'cg-w', 2400), 'native');
    const events = await pageAll(daemon.url, 'run=run-w');
    const byType = new Map<string, number>();
    for (const event of events)
      byType.set(event['type'] as string, (byType.get(event['type'] as string) ?? 0) + 1);
    for (const window of [10, 60]) {
      const { body } = await request(daemon.url, `/v1/telemetry/windows?run=run-w&window=${window}`);
      const windows = body['windows'] as { type: string; events: number; correlated: number }[];
      const counted = new Map<string, number>();
      for (const row of windows) counted.set(row.type, (counted.get(row.type) ?? 0) + row.events);
      assert.deepEqual(new Map([...counted].sort()), new Map([...byType].sort()), `window=${window}`);
      assert.equal(
        windows.reduce((sum, row) => sum + row.correlated, 0),
        events.length,
      );
    }
    const filtered = await request(daemon.url, '/v1/telemetry/windows?run=run-w&window=60&type=secret_path');
    const secret = (filtered.body['windows'] as { events: number; risky: number }[]).reduce(
      (sum, row) => sum + row.events,
      0,
    );
    assert.equal(secret, byType.get('secret_path'));
  });

  it('counts every run event into its windows as its stored row says, whichever way it joined its run', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-k', tool_call_id: 'tc', cgroup_id: 'cg-k' });
    await bind(daemon.url, {
      run_id: 'run-c',
      tool_call_id: 'tc',
      cgroup_id: 'cg-c',
      binding_source: 'ai_asserted',
    });
    const most = Number.MAX_SAFE_INTEGER;
    const line = (n: number, cgroup: string, at: string, bytes?: number): string =>
      nativeLine({
        cgroup_id: cgroup,
        pid: 2000 + (n % 7),
        event_type: types[n % types.length],
        timestamp: at,
        path: n % 3 === 0 ? '/root/.ssh/id_rsa' : `/tmp/w${n}`,
        dst_ip: n % 4 === 0 ? '169.254.169.254' : '93.184.216.34',
        dst_port: 443,
        query: 'example.com',
        ...(bytes === undefined ? {} : { bytes }),
      });
    // both runs in one body, across 10 s and 60 s boundaries, before 1970, with bytes that sum past 2^53
    const first = Array.from({ length: 240 }, (_v, n) =>
      line(
        n,
        n % 2 === 0 ? 'cg-k' : 'cg-c',
        `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.${n % 10}Z`,
        n % 5 === 3 ? most - (n % 7) : n,
      ),
    );
    const early = Array.from({ length: 30 }, (_v, n) =>
      line(n, 'cg-k', `1969-12-31T23:59:${String(45 + (n % 15))}Z`),
    );
    // a second request into windows the first already made; late events wait in the spool, then settle
    const second = Array.from({ length: 90 }, (_v, n) =>
      line(
        n,
        n % 3 === 0 ? 'cg-late' : 'cg-k',
        `2026-01-01T00:00:${String((n * 7) % 60).padStart(2, '0')}Z`,
        3,
      ),
    );
    assert.equal((await ingest(daemon.url, [...first, ...early].join('\n'), 'native')).status, 200);
    assert.equal((await ingest(daemon.url, second.join('\n'), 'native')).body['pending'], 30);
    assert.equal(
      (await bind(daemon.url, { run_id: 'run-k', tool_call_id: 'tc2', cgroup_id: 'cg-late' }))[
        'recorrelated'
      ],
      30,
    );
    await assertStopsCleanly(daemon);

    const columns = 'run_id, window_s, bucket_ns, type, events, correlated, risky, bytes';
    const floor = (windowS: number): string =>
      `time_ns - ((time_ns % ${windowS}000000000) + ${windowS}000000000) % ${windowS}000000000`;
    const recount = (windowS: number): string =>
      `SELECT run_id, ${windowS} AS window_s, ${floor(windowS)} AS bucket_ns, type, count(*) AS events,
         count(*) FILTER (WHERE evidence_level = ${evidenceCode('kernel_correlated')}) AS correlated, count(*) FILTER (WHERE risky) AS risky,
         sum(bytes)::BIGINT AS bytes
       FROM events WHERE run_id IS NOT NULL GROUP BY ALL`;
    await withDatabase(join(daemons.dataDir, 'provd.duckdb'), async (db) => {
      const stored = await queryRows(db, `SELECT ${columns} FROM windows ORDER BY ALL`);
      const counted = await queryRows(
        db,
        `SELECT ${columns} FROM (${recount(10)} UNION ALL ${recount(60)}) ORDER BY ALL`,
      );
      assert.deepEqual(stored, counted);
      // what the comparison covers: both evidence levels, risky events, windows before 1970, a sum past 2^53
      const [facts] = await queryRows(
        db,
        `SELECT sum(events)::INTEGER AS events, sum(correlated)::INTEGER AS correlated, sum(risky)::INTEGER AS risky,
           count(DISTINCT bucket_ns) FILTER (WHERE bucket_ns < 0)::INTEGER AS before_1970, max(bytes) > ${most} AS past_2_53
         FROM windows WHERE window_s = 10`,
      );
      const { risky, ...covered } = facts!;
      assert.deepEqual(covered, { events: 360, correlated: 240, before_1970: 2, past_2_53: true });
      assert.ok(Number(risky) > 0, 'some events are risky');
    });
  });

  it('correlates events that arrive before their binding once the binding comes', async function () {
    const daemon = await daemons.start();
    const early = await ingest(daemon.url, mixedLines(40, 'cg-late'), 'native');
    assert.equal(early.body['pending'], 40);
    const health = await request(daemon.url, '/v1/health');
    assert.equal(health.body['coverage_status'], 'pending');
    assert.equal(health.body['queued_spool'], 40);
    const binding = await bind(daemon.url, { run_id: 'run-l', tool_call_id: 'tc', cgroup_id: 'cg-late' });
    assert.equal(binding['recorrelated'], 40);
    const events = await pageAll(daemon.url, 'run=run-l');
    assert.equal(events.length, 40);
    for (const event of events) {
      assert.deepEqual(event['correlation'], {
        method: 'cgroup',
        confidence: 0.98,
        evidence_level: 'kernel_correlated',
      });
    }
    const one = await request(
      daemon.url,
      `/v1/telemetry/correlations?run=run-l&event=${events[0]!['id'] as string}`,
    );
    const basis = (one.body['correlations'] as Record<string, unknown>[])[0]!;
    assert.equal(basis['binding_id'], binding['binding_id']);
    assert.deepEqual(basis['matched'], { cgroup_id: 'cg-late' });
    // an event the run does not hold is not_found: run_not_found names unknown runs only
    const missing = await request(daemon.url, '/v1/telemetry/correlations?run=run-l&event=b0.nope');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body['error'], {
      code: 'not_found',
      message: 'no event "b0.nope" in run "run-l"',
    });
    assert.equal((await request(daemon.url, '/v1/health')).body['queued_spool'], 0);
  });

  it('correlates in the normalize workers, not only in the store, once a binding is answered', async function () {
    const daemon = await daemons.start();
    for (let run = 0; run < 10; run++)
      await bind(daemon.url, { run_id: `run-${run}`, tool_call_id: 'tc', cgroup_id: `cg-${run}` });
    for (let round = 0; round < 4; round++) {
      const lines = Array.from({ length: 3000 }, (_, i) =>
        nativeLine({ cgroup_id: `cg-${i % 10}`, pid: i + 1 }),
      ).join('\n');
      assert.equal((await ingest(daemon.url, lines, 'native')).body['pending'], 0);
    }
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    const sources = producer['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['native_jsonl']?.['accepted'], 12_000);
    assert.equal(
      sources['native_jsonl']?.['spooled'],
      undefined,
      'no event waited for the store to settle it',
    );
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_settled_late'], 0);
  });

  it('marks an ai_asserted binding context_asserted with its lower confidence', async function () {
    const { daemon } = shared;
    await bind(daemon.url, {
      run_id: 'run-ai',
      tool_call_id: 'tc',
      cgroup_id: 'cg-ai',
      binding_source: 'ai_asserted',
    });
    await ingest(daemon.url, mixedLines(3, 'cg-ai'), 'native');
    for (const event of await pageAll(daemon.url, 'run=run-ai')) {
      assert.deepEqual(event['correlation'], {
        method: 'cgroup',
        confidence: 0.5,
        evidence_level: 'context_asserted',
      });
    }
  });

  it('keeps health ok when unclaimed host activity leaves the spool, and counts it apart', async function () {
    const daemon = await daemons.start({ args: ['--spool-ttl', '1s'] });
    await ingest(daemon.url, mixedLines(25, 'cg-never-bound'), 'native');
    const producer = await eventually('the spool to give 25 events up', producerHealth(daemon), (body) => {
      const buffering = body['disk_buffering'] as Record<string, number>;
      return buffering['spool_unclaimed'] === 25;
    });
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_unclaimed'], 25);
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_events'], 0);
    assert.deepEqual(producer['coverage_gaps'], {});
    assert.equal((producer['drops'] as Record<string, number>)['spool_overflowed'], 0);
    const coverage = producer['correlation_coverage'] as Record<string, unknown>;
    assert.deepEqual(coverage['by_spool_state'], { unclaimed: 25 }, 'kept as uncorrelated events');
    const health = (await request(daemon.url, '/v1/health')).body;
    assert.equal(health['status'], 'ok');
    assert.equal(health['coverage_status'], 'no_recorded_gaps');
    assert.equal(health['queued_spool'], 0);
  });

  it('degrades health when the spool overflows, even beside unclaimed host activity', async function () {
    // the TTL outlasts the once-a-second upkeep, so the flood below overflows before it could expire
    const daemon = await daemons.start({ args: ['--spool-ttl', '4s', '--spool-max-events', '10'] });
    await ingest(daemon.url, mixedLines(3, 'cg-host'), 'native');
    let producer = await eventually(
      'the spool to give 3 events up',
      producerHealth(daemon),
      (body) => (body['disk_buffering'] as Record<string, number>)['spool_unclaimed'] === 3,
    );
    assert.equal((await request(daemon.url, '/v1/health')).body['status'], 'ok');
    await ingest(daemon.url, mixedLines(15, 'cg-flood'), 'native');
    const health = await eventually(
      'a recorded gap',
      async () => (await request(daemon.url, '/v1/health')).body,
      (body) => body['coverage_status'] === 'gaps_recorded',
    );
    assert.equal(health['status'], 'degraded');
    assert.equal(health['ready'], true);
    assert.equal(health['coverage_status'], 'gaps_recorded');
    producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.equal((producer['drops'] as Record<string, number>)['spool_overflowed'], 5);
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_unclaimed'], 3);
    assert.deepEqual(producer['coverage_gaps'], { spool_overflow: { gaps: 1, lost_events: 5 } });
  });

  it('marks the oldest spooled events overflowed past the event bound, and counts them as a gap', async function () {
    const daemon = await daemons.start({ args: ['--spool-max-events', '50'] });
    await ingest(daemon.url, mixedLines(30, 'cg-none'), 'native');
    await ingest(daemon.url, mixedLines(50, 'cg-none', 30), 'native');
    const producer = await eventually(
      'the spool to overflow',
      producerHealth(daemon),
      (body) => ((body['drops'] as Record<string, number>)['spool_overflowed'] ?? 0) > 0,
    );
    assert.equal((producer['drops'] as Record<string, number>)['spool_overflowed'], 30);
    assert.equal((producer['disk_buffering'] as Record<string, number>)['spool_events'], 50);
    assert.deepEqual((producer['coverage_gaps'] as Record<string, unknown>)['spool_overflow'], {
      gaps: 1,
      lost_events: 30,
    });
    // the newest 50 stay in the spool and are still settled by a late binding
    const binding = await bind(daemon.url, { run_id: 'run-o', tool_call_id: 'tc', cgroup_id: 'cg-none' });
    assert.equal(binding['recorrelated'], 50);
  });

  it('keeps spooled events across a restart and settles them when the binding comes', async function () {
    const first = await daemons.start();
    await ingest(first.url, mixedLines(60, 'cg-restart'), 'native');
    await assertStopsCleanly(first);
    const second = await daemons.start();
    assert.equal((await request(second.url, '/v1/health')).body['queued_spool'], 60);
    const binding = await bind(second.url, { run_id: 'run-r', tool_call_id: 'tc', cgroup_id: 'cg-restart' });
    assert.equal(binding['recorrelated'], 60);
  });
});
