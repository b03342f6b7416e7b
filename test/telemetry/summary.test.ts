import assert from 'node:assert/strict';
import { join } from 'node:path';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

const run = 'run-sum';

describe('GET /v1/observe/summary', function () {
  const fixture = useDaemonFixture();

  it("sums up a run's events, processes, files, destinations, names, coverage and graph", async function () {
    const daemon = await fixture.start();
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-1', cgroup_id: '777' });
    await bind(daemon.url, {
      run_id: run,
      tool_call_id: 'tc-2',
      cgroup_id: '777',
      binding_source: 'ai_asserted',
    });
    const at = (s: number): string => `2026-01-01T00:00:0${s}Z`;
    const lines = [
      nativeLine({ timestamp: at(1), pid: 10, tgid: 10 }),
      nativeLine({ event_type: 'file_open', timestamp: at(2), pid: 10, tgid: 10, path: '/work/a' }),
      nativeLine({ event_type: 'file_open', timestamp: at(3), pid: 11, tgid: 11, path: '/work/a' }),
      nativeLine({ event_type: 'file_write', timestamp: at(4), pid: 11, tgid: 11, path: '/work/b' }),
      nativeLine({
        event_type: 'network_connect',
        timestamp: at(5),
        pid: 11,
        tgid: 11,
        path: null,
        dst_ip: '10.0.0.1',
        dst_port: 443,
      }),
      nativeLine({
        event_type: 'dns_query',
        timestamp: at(6),
        pid: 11,
        tgid: 11,
        path: null,
        query: 'api.example.com',
      }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
    await assertStopsCleanly(daemon);
    // a host-wide gap during the run's span, and one long before it
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      const second = 1_000_000_000n;
      const start = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
      await db.run(`INSERT INTO coverage_gaps (id, run_id, kind, source, start_ns, end_ns, recorded_at_ns)
                    VALUES ('g1', NULL, 'kernel_loss', 'provd_sensor', ${start + 3n * second}, ${start + 4n * second}, 1),
                           ('g2', NULL, 'kernel_loss', 'provd_sensor', 1, 2, 1)`);
    });
    const restarted = await fixture.start();
    const { status, body } = await request(restarted.url, `/v1/observe/summary?run=${run}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['schema_version'], 'provenance.observability_summary/v1');
    assert.deepEqual(body['span'], {
      first_event: '2026-01-01T00:00:01.000000000Z',
      last_event: '2026-01-01T00:00:06.000000000Z',
    });
    const events = body['events'] as Record<string, unknown>;
    assert.equal(events['total'], 6);
    assert.deepEqual(events['by_type'], {
      execve: 1,
      file_open: 2,
      file_write: 1,
      private_cidr: 1, // a connect to 10.0.0.1, classified
      dns_query: 1,
    });
    // both bindings cover the cgroup: the system-side one wins over the later ai_asserted one
    assert.deepEqual(events['by_evidence_level'], { kernel_correlated: 6 });
    assert.deepEqual(body['processes'], { distinct: 2, execs: 1 });
    assert.deepEqual(body['files'], {
      distinct: 3,
      top: [
        { value: '/work/a', events: 2 },
        { value: '/bin/sh', events: 1 },
        { value: '/work/b', events: 1 },
      ],
    });
    assert.deepEqual(body['network_destinations'], {
      distinct: 1,
      top: [{ value: '10.0.0.1:443', events: 1 }],
    });
    assert.deepEqual(body['dns_names'], { distinct: 1, top: [{ value: 'api.example.com', events: 1 }] });
    assert.deepEqual(body['tool_calls'], { recorded: 0, by_status: {}, bound: 2 });
    assert.equal(body['bindings'], 2);
    assert.deepEqual(body['coverage'], { run_gaps: 0, host_gaps_in_span: 1 });
    const graph = body['graph'] as Record<string, unknown>;
    assert.equal(graph['event_batches'], 1);
    // run, two bindings, one batch, and the checkpoints the 1 s timer wrote before the stop, if any
    const checkpoint = graph['last_checkpoint'] as { index: number } | null;
    assert.equal(graph['objects'], 4 + (checkpoint === null ? 0 : checkpoint.index + 1));
    assert.equal(graph['last_verify'], null, 'never verified');
    const verified = await request(restarted.url, `/v1/graph/verify?run=${run}`);
    assert.equal(verified.body['status'], 'ok');
    const after = await request(restarted.url, `/v1/observe/summary?run=${run}`);
    const lastVerify = (after.body['graph'] as Record<string, unknown>)['last_verify'] as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      { ...lastVerify, verified_at: typeof lastVerify['verified_at'] },
      {
        status: 'ok',
        error_count: 0,
        warning_count: 0,
        verified_at: 'string',
      },
    );

    const unknown = await request(restarted.url, '/v1/observe/summary?run=nope');
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body['error'] as Record<string, unknown>)['code'], 'run_not_found');
    assert.equal((await request(restarted.url, '/v1/observe/summary')).status, 400);
  });
});
