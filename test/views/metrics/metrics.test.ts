import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/shared/package-root.js';
import { PrometheusText } from '../../../src/views/metrics/prometheus-text.js';
import { useDaemonFixture, type RunningDaemon } from '../../support/daemon.js';
import { request } from '../../support/http.js';
import { nativeLine } from '../../support/telemetry.js';
import { parseExposition, sampleValue, type Family } from './exposition-parser.js';

const token = 'metrics-token-0123456789';
const auth = { authorization: `Bearer ${token}` };
const run = 'run-metrics';

/** GETs `path` with the token; the JSON answer (checked against the OpenAPI document). */
async function getJson(daemon: RunningDaemon, path: string): Promise<Record<string, unknown>> {
  const answer = await request(daemon.url, path, { headers: auth });
  assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function post(daemon: RunningDaemon, path: string, body: string): Promise<Record<string, unknown>> {
  const answer = await request(daemon.url, path, { method: 'POST', body, headers: auth });
  assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function scrape(daemon: RunningDaemon): Promise<Map<string, Family>> {
  const response = await fetch(`${daemon.url}/metrics`, { headers: auth });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await response.text());
}

/** The samples of a family as `label value` → value, for comparing with a JSON object. */
function byLabel(families: Map<string, Family>, name: string, label: string): Record<string, number> {
  const family = families.get(name);
  assert.ok(family !== undefined, `${name} is exposed`);
  return Object.fromEntries(family.samples.map((sample) => [sample.labels[label]!, sample.value]));
}

describe('GET /metrics (Prometheus)', function () {
  const daemons = useDaemonFixture();

  it('exposes the same numbers as producer health, health and risks, in the text format 0.0.4', async function () {
    const daemon = await daemons.start({ authToken: token, args: ['--spool-ttl', '1h'] });
    await post(
      daemon,
      '/v1/telemetry/bind',
      JSON.stringify({
        run_id: run,
        tool_call_id: 'tc',
        cgroup_id: '777',
        started_at: '2026-01-01T00:00:00Z',
      }),
    );
    const native = [
      nativeLine({ event_type: 'execve', path: '/bin/ls', argv: ['ls'] }),
      nativeLine({ event_type: 'network_connect', dst_ip: '169.254.169.254', dst_port: 80 }),
      nativeLine({ event_type: 'network_connect', dst_ip: '10.0.0.5', dst_port: 443 }),
      nativeLine({ event_type: 'file_open', path: '/home/a/.aws/credentials', flags: 'O_RDONLY' }),
      nativeLine({ event_type: 'ptrace', request: 'PTRACE_ATTACH', target_pid: 1 }),
      // no binding names cgroup 999: it waits in the spool
      nativeLine({ event_type: 'execve', cgroup_id: '999', path: '/bin/true' }),
      JSON.stringify({ event_type: 'capture_loss', timestamp: '2026-01-01T00:00:02Z', lost_events: 9 }),
      'not json',
      JSON.stringify({ event_type: 5 }),
    ];
    const stored = await post(daemon, '/v1/telemetry/ingest?format=native', native.join('\n') + '\n');
    assert.equal(stored['rejected'], 2);
    const tetragon = readFileSync(
      join(packageRoot, 'test', 'fixtures', 'tetragon-process-exec.jsonl'),
      'utf8',
    );
    await post(daemon, '/v1/telemetry/ingest?format=tetragon', tetragon);

    const metrics = await scrape(daemon);
    const producers = await getJson(daemon, '/v1/telemetry/producer-health');
    const health = await getJson(daemon, '/v1/health');
    const risks = (await getJson(daemon, `/v1/security/risks?run=${run}&limit=1000`))['risks'] as {
      rule_id: string;
      decision: string;
    }[];

    for (const [name, family] of metrics) {
      assert.ok(name.startsWith('provd_'), name);
      if (family.type === 'counter') assert.match(name, /_total$/);
      assert.notEqual(family.help, '', name);
    }
    assert.equal(sampleValue(metrics, 'provd_up'), 1);
    assert.equal(sampleValue(metrics, 'provd_store_up'), 1);

    const sources = producers['sources'] as Record<string, Record<string, number>>;
    assert.deepEqual(Object.keys(sources).sort(), ['native_jsonl', 'tetragon']);
    const accepted = byLabel(metrics, 'provd_events_accepted_total', 'source');
    assert.deepEqual(
      accepted,
      Object.fromEntries(Object.entries(sources).map(([source, c]) => [source, c['accepted']])),
    );
    assert.equal(accepted['native_jsonl'], 7);
    for (const sample of metrics.get('provd_source_events_total')!.samples)
      assert.equal(
        sample.value,
        sources[sample.labels['source']!]?.[sample.labels['counter']!],
        JSON.stringify(sample),
      );

    const drops = producers['drops'] as {
      invalid: number;
      invalid_by_reason: Record<string, number>;
      spool_overflowed: number;
    };
    const rejected = byLabel(metrics, 'provd_events_rejected_total', 'reason');
    assert.deepEqual(rejected, drops.invalid_by_reason);
    assert.equal(
      Object.values(rejected).reduce((a, b) => a + b, 0),
      2,
    );
    assert.equal(sampleValue(metrics, 'provd_spool_overflowed_events_total'), drops.spool_overflowed);

    const buffering = producers['disk_buffering'] as Record<string, number>;
    assert.equal(sampleValue(metrics, 'provd_spool_events'), buffering['spool_events']);
    assert.equal(sampleValue(metrics, 'provd_spool_events'), health['queued_spool']);
    assert.ok(buffering['spool_events']! >= 1, 'the unbound event waits');
    assert.equal(sampleValue(metrics, 'provd_spool_bytes'), buffering['spool_bytes']);
    assert.equal(sampleValue(metrics, 'provd_spool_unclaimed_events_total'), buffering['spool_unclaimed']);
    assert.equal(
      sampleValue(metrics, 'provd_spool_settled_late_events_total'),
      buffering['spool_settled_late'],
    );
    assert.equal(
      sampleValue(metrics, 'provd_ingest_backpressure_refusals_total'),
      buffering['ingest_refused_requests'],
    );
    assert.equal(sampleValue(metrics, 'provd_ingest_in_flight_bytes'), 0);

    const gaps = producers['coverage_gaps'] as Record<string, { gaps: number; lost_events: number }>;
    assert.ok(Object.keys(gaps).length > 0, 'the capture_loss line recorded a gap');
    assert.deepEqual(
      byLabel(metrics, 'provd_coverage_gaps_total', 'kind'),
      Object.fromEntries(Object.entries(gaps).map(([k, g]) => [k, g.gaps])),
    );
    assert.deepEqual(
      byLabel(metrics, 'provd_coverage_gap_lost_events_total', 'kind'),
      Object.fromEntries(Object.entries(gaps).map(([k, g]) => [k, g.lost_events])),
    );

    const expected = new Map<string, number>();
    for (const risk of risks)
      expected.set(
        `${risk.decision} ${risk.rule_id}`,
        (expected.get(`${risk.decision} ${risk.rule_id}`) ?? 0) + 1,
      );
    const exposed = new Map(
      metrics
        .get('provd_risks_total')!
        .samples.map((s) => [`${s.labels['decision']} ${s.labels['rule_id']}`, s.value]),
    );
    assert.deepEqual(exposed, expected);
    assert.equal(exposed.get('kill secret_path'), 1);
    assert.equal(risks.length, 4);

    const onDisk = statSync(join(daemon.dataDir, 'provd.duckdb')).size;
    assert.equal(sampleValue(metrics, 'provd_store_bytes', { file: 'database' }), onDisk);
    assert.ok(sampleValue(metrics, 'provd_store_bytes', { file: 'wal' })! > 0, 'the commits are in the WAL');
    assert.equal(sampleValue(metrics, 'provd_sensor_status', { status: 'off' }), 1);
  });

  it('answers 401 without the token or with a wrong one, and 403 to a web page even with the token', async function () {
    const daemon = await daemons.start({ authToken: token });
    for (const headers of [{}, { authorization: `Bearer ${token}x` }, { authorization: token }] as Record<
      string,
      string
    >[]) {
      const answer = await request(daemon.url, '/metrics', { headers });
      assert.equal(answer.status, 401, JSON.stringify(headers));
      assert.equal((answer.body['error'] as { code: string }).code, 'unauthorized');
    }
    for (const marks of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      const answer = await request(daemon.url, '/metrics', { headers: { ...auth, ...marks } });
      assert.equal(answer.status, 403, JSON.stringify(marks));
    }
    const post = await request(daemon.url, '/metrics', { method: 'POST', headers: auth, body: '{}' });
    assert.equal(post.status, 405);
    const head = await fetch(`${daemon.url}/metrics`, { method: 'HEAD', headers: auth });
    assert.equal(head.status, 200);
  });

  it('escapes label values and help text, and refuses a counter not named _total', function () {
    const text = new PrometheusText()
      .family('x_total', 'counter', 'help with \\ and\nnewline', [[{ rule_id: 'a"b\\c\nd' }, 3]])
      .text();
    assert.equal(text.split('\n').length, 4, 'three lines and the final newline');
    const parsed = parseExposition(text);
    assert.equal(sampleValue(parsed, 'x_total', { rule_id: 'a"b\\c\nd' }), 3);
    assert.throws(() => new PrometheusText().family('x', 'counter', 'h', []), /ends in _total/);
    assert.throws(
      () => new PrometheusText().family('x_total', 'counter', 'h', []).family('x_total', 'counter', 'h', []),
      /twice/,
    );
    assert.throws(() => parseExposition('x_total 1\n'), /no announced family/);
  });
});
