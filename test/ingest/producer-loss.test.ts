import assert from 'node:assert/strict';
import { join } from 'node:path';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { assertStopsCleanly, useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, ingest, pageAll } from '../support/telemetry.js';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { TlsReassembler } from '../../src/sensor/tls/reassembler.js';
import { chunkBatch } from '../support/tls-chunks.js';

const throttle = (type: string, cgroup: string, second: number): string =>
  JSON.stringify({ process_throttle: { type, cgroup }, time: `2026-01-01T00:00:${second}Z` });

type Gaps = Record<string, { gaps: number; lost_events: number }>;

describe('loss producers report about themselves', function () {
  const daemons = useDaemonFixture();

  it('records a throttling window from its start to its stop as one coverage gap, across requests', async function () {
    const daemon = await daemons.start();
    const first = await ingest(
      daemon.url,
      [throttle('THROTTLE_START', 'pod-a', 10), throttle('THROTTLE_START', 'pod-b', 11)].join('\n'),
    );
    assert.equal(first.body['accepted'], 2, JSON.stringify(first.body));
    const second = await ingest(
      daemon.url,
      [throttle('THROTTLE_STOP', 'pod-a', 30), throttle('THROTTLE_STOP', 'pod-c', 31)].join('\n'),
    );
    assert.equal(second.body['accepted'], 2, JSON.stringify(second.body));

    const health = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    // pod-a: one window, closed; pod-b: still open; pod-c: a stop whose start provd never saw
    assert.deepEqual((health['coverage_gaps'] as Gaps)['producer_throttle'], { gaps: 3, lost_events: 0 });
    const sources = health['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['tetragon']?.['capture_loss:throttle_start'], 2);
    assert.equal(sources['tetragon']?.['capture_loss:throttle_stop'], 2);
    const daemonHealth = (await request(daemon.url, '/v1/health')).body;
    assert.equal(daemonHealth['coverage_status'], 'gaps_recorded');
    assert.equal(sources['tetragon']?.['accepted'], 4, 'each report is also kept as an event');
  });

  it('counts records kept but cut as truncated, with no coverage gap and health ok', async function () {
    const daemon = await daemons.start();
    const cut = (n: number): string =>
      JSON.stringify({
        type: 'capture_loss',
        time: '2026-01-01T00:00:01Z',
        loss: 'sensor_truncated',
        truncated_events: n,
      });
    assert.equal((await ingest(daemon.url, [cut(5), cut(2)].join('\n'), 'native')).body['accepted'], 2);
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.deepEqual(producer['coverage_gaps'], {});
    const sources = producer['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['native_jsonl']?.['truncated'], 7);
    const health = (await request(daemon.url, '/v1/health')).body;
    assert.equal(health['status'], 'ok');
    const coverage = (health['checks'] as Record<string, Record<string, unknown>>)['coverage'];
    assert.equal(coverage?.['truncated_records'], 7);
    assert.equal(coverage?.['recorded_gaps'], 0);
  });

  it('counts TLS plaintext that is not HTTP apart from lost events: no gap, health ok, the count shown', async function () {
    // what the sensor's TLS pool makes of an SMTP session and a binary protocol inside TLS (the same
    // reassembler, fed the kernel's chunk records), stored through the native format
    const pool = new TlsReassembler();
    const reports = decodeSensorBatch(
      pool.take(
        chunkBatch([
          { data: 'EHLO mail.example\r\n', conn: 1n },
          { data: '\x16\x03\x01\x00\x05hello', conn: 2n, direction: 'read' },
          { data: 'QUIT\r\n', conn: 3n },
        ]),
        1_790_000_000_000_000_000n,
      ),
    ).events;
    assert.equal(reports.length, 3);
    const lines = reports.map((event) =>
      JSON.stringify({ type: event.type, time: '2026-01-01T00:00:01Z', ...event.attrs }),
    );
    const daemon = await daemons.start();
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).body['accepted'], 3);
    const health = (await request(daemon.url, '/v1/health')).body;
    const coverage = (health['checks'] as Record<string, Record<string, unknown>>)['coverage'];
    assert.deepEqual(
      [health['status'], coverage?.['recorded_gaps'], coverage?.['tls_unparsed_messages']],
      ['ok', 0, 3],
    );
    assert.notEqual(health['coverage_status'], 'gaps_recorded');
    const producer = (await request(daemon.url, '/v1/telemetry/producer-health')).body;
    assert.deepEqual(producer['coverage_gaps'], {});
    const sources = producer['sources'] as Record<string, Record<string, number>>;
    assert.equal(sources['native_jsonl']?.['tls_unparsed_messages'], 3);
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    assert.match(
      metrics,
      /^provd_source_events_total\{source="native_jsonl",counter="tls_unparsed_messages"\} 3$/m,
    );
    // a real loss beside it still degrades: a message whose chunks the kernel ring dropped
    const dropped = decodeSensorBatch(
      pool.take(
        chunkBatch([
          { data: 'POST /x HTTP/1.1\r\nContent-Length: 30\r\n\r\n0123', conn: 4n, seq: 0 },
          { data: '4567', conn: 4n, seq: 2 },
        ]),
        1_790_000_000_000_000_000n,
      ),
    ).events;
    const lost = dropped.map((event) =>
      JSON.stringify({ type: event.type, time: '2026-01-01T00:00:02Z', ...event.attrs }),
    );
    assert.equal((await ingest(daemon.url, lost.join('\n'), 'native')).body['accepted'], 1);
    const after = (await request(daemon.url, '/v1/health')).body;
    assert.deepEqual([after['status'], after['coverage_status']], ['degraded', 'gaps_recorded']);
    const kinds = (after['checks'] as Record<string, Record<string, unknown>>)['coverage']?.['gaps_by_kind'];
    assert.deepEqual(kinds, { sensor_tls_uncaptured: { gaps: 1, lost_events: 1 } });
  });

  it('closes the latest open window of a cgroup with its stop, and leaves an earlier one open', async function () {
    const daemon = await daemons.start();
    const body = [
      throttle('THROTTLE_START', 'pod-a', 10),
      throttle('THROTTLE_START', 'pod-a', 30),
      throttle('THROTTLE_STOP', 'pod-a', 40),
    ].join('\n');
    assert.equal((await ingest(daemon.url, body)).body['accepted'], 3);
    await assertStopsCleanly(daemon);
    const rows = await withDatabase(join(daemons.dataDir, 'provd.duckdb'), (db) =>
      queryRows(
        db,
        `SELECT start_ns, end_ns, json_extract_string(detail, '$.open') AS open FROM coverage_gaps
         WHERE kind = 'producer_throttle' ORDER BY start_ns`,
      ),
    );
    const second = (s: number): string => String(BigInt(Date.UTC(2026, 0, 1, 0, 0, s)) * 1_000_000n);
    assert.deepEqual(
      rows.map((row) => [String(row['start_ns']), String(row['end_ns']), row['open']]),
      [
        [second(10), second(10), 'true'],
        [second(30), second(40), 'false'],
      ],
    );
  });

  it("records Falco's drop reports and Tetragon's rate limits with the events they lost", async function () {
    const daemon = await daemons.start();
    const lines = [
      JSON.stringify({
        time: '2026-01-01T00:00:01Z',
        rule: 'Falco internal: syscall event drop',
        priority: 'Debug',
        output_fields: { n_drops: 120, n_evts: 5000 },
      }),
      JSON.stringify({
        rate_limit_info: { number_of_dropped_process_events: '7' },
        time: '2026-01-01T00:00:02Z',
      }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'))).body['accepted'], 2);
    const gaps = (await request(daemon.url, '/v1/telemetry/producer-health')).body['coverage_gaps'] as Gaps;
    assert.deepEqual(gaps['producer_drop'], { gaps: 1, lost_events: 120 });
    assert.deepEqual(gaps['producer_rate_limit'], { gaps: 1, lost_events: 7 });
  });

  it('counts generic events per kind in producer health, and serves them by type', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-g', tool_call_id: 'tc', pid: 5 });
    const proc = { pid: 5, binary: '/bin/bash' };
    const lines = [
      JSON.stringify({
        process_uprobe: { process: proc, path: '/bin/bash', symbol: 'readline' },
        time: '2026-01-01T00:00:01Z',
      }),
      JSON.stringify({
        process_uprobe: { process: proc, path: '/bin/bash', symbol: 'readline' },
        time: '2026-01-01T00:00:02Z',
      }),
      JSON.stringify({
        time: '2026-01-01T00:00:03Z',
        rule: 'Create Privileged Pod',
        source: 'k8s_audit',
        output_fields: { 'ka.verb': 'create' },
      }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'))).body['accepted'], 3);
    const sources = (await request(daemon.url, '/v1/telemetry/producer-health')).body['sources'] as Record<
      string,
      Record<string, number>
    >;
    assert.equal(sources['tetragon']?.['generic:process_uprobe'], 2);
    assert.equal(sources['falco']?.['generic:falco:k8s_audit'], 1);
    const events = await pageAll(daemon.url, 'run=run-g&type=generic');
    assert.deepEqual(
      events.map((event) => (event['attrs'] as Record<string, unknown>)['symbol']),
      ['readline', 'readline'],
    );
  });
});
