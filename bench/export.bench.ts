/**
 * Export benchmark (`node dist/bench/export.bench.js [--short]`): GET /v1/export?run=R of one run of
 * 500,000 events (20,000 with --short), end to end (sealing wait, COPY of five tables in a read
 * snapshot, manifest hashing, tar, transfer), with p50 and p99 and the daemon's peak RSS, and the
 * same events as a range (GET /v1/export?from=&to=); then
 * `provd verify --bundle`'s check of the extracted bundle, and the run's in-toto attestation (GET
 * /v1/graph/attestation). The baseline, in the same run, is DuckDB's own COPY of the same rows to
 * Parquet on the stopped daemon's file: each case reports its p50 as a ratio to it.
 * Then the OTLP export (`--otlp-endpoint`): a daemon started on the stopped one's store sends the
 * sealed run to a loopback receiver that acknowledges every request; `otlp_drain` is the rate it
 * sends the backlog at (events a second, from ready to every span acknowledged, as health's
 * `checks.otlp` counts them), as a ratio to the rate the same events were ingested at in this run
 * (above 1: the export keeps up with ingest). Prints one JSON object per result.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractExport } from '../src/cli/export-files.js';
import { execute, raw, sql } from '../src/store/sql.js';
import { pathLiteral } from '../src/views/export/export-columns.js';
import { keyOf } from '../src/views/export/bundle-tables.sql.js';
import { verifyBundle } from '../src/views/export/bundle-verify.sql.js';
import { request } from '../test/support/http.js';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { withDatabase } from '../test/support/duckdb.js';
import { benchMain } from './support/bench-main.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';

const isShort = process.argv.includes('--short');
const events = isShort ? 20_000 : 500_000;
const repeats = isShort ? 5 : 10;
const chunk = 10_000;
const runId = 'export-run';
const host = describeHost();
const dataDir = makeDataDir();
const scratch = mkdtempSync(join(tmpdir(), 'provd-export-bench-'));

/** Binds the run and ingests `events` events of its cgroup, `chunk` a request. */
async function seed(daemon: RunningDaemon): Promise<void> {
  const post = async (path: string, type: string, body: string): Promise<void> => {
    const answer = await fetch(daemon.url + path, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    if (answer.status !== 200) throw new Error(`seeding: ${path} answered HTTP ${answer.status}`);
  };
  const bind = { run_id: runId, tool_call_id: 'tc', cgroup_id: '4242', started_at: '2026-01-01T00:00:00Z' };
  await post('/v1/telemetry/bind', 'application/json', JSON.stringify(bind));
  const start = Date.UTC(2026, 0, 1);
  for (let from = 0; from < events; from += chunk) {
    const lines = Array.from({ length: Math.min(chunk, events - from) }, (_v, j) => {
      const i = from + j;
      const kind = i % 3;
      return JSON.stringify({
        event_type: kind === 0 ? 'execve' : kind === 1 ? 'file_open' : 'network_connect',
        timestamp: new Date(start + 1000 + i).toISOString(),
        pid: 5000 + (i % 64),
        tgid: 5000 + (i % 64),
        ppid: 1,
        comm: 'worker',
        cgroup_id: '4242',
        ...(kind === 2 ? { dst_ip: '93.184.216.34', dst_port: 443 } : { path: `/work/file-${i % 1000}` }),
      });
    });
    await post('/v1/telemetry/ingest?format=native', 'application/x-ndjson', lines.join('\n') + '\n');
  }
}

async function timed(work: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times;
}

function print(name: string, times: number[], extra: Record<string, unknown> = {}): number {
  const p50 = percentileMs(times, 50);
  const result = {
    bench: 'export',
    case: name,
    events,
    repeats,
    p50_ms: p50,
    p99_ms: percentileMs(times, 99),
    rows_per_s: Math.round(events / (p50 / 1000)),
    ...extra,
    ...host,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  return p50;
}

async function run(): Promise<string[]> {
  const daemon = await startDaemon({ dataDir });
  let archive = new Uint8Array();
  let exportTimes: number[];
  let peak: number | null;
  let rangeTimes: number[];
  let daemonKey: string;
  let attestTimes: number[];
  let seedS: number;
  try {
    const seedStart = performance.now();
    await seed(daemon);
    seedS = (performance.now() - seedStart) / 1000;
    // the key the bundle is verified under, as a user pins it (--key)
    const keys = (await (await fetch(`${daemon.url}/v1/graph/keys`)).json()) as {
      keys: { public_key_pem: string }[];
    };
    daemonKey = keys.keys[0]!.public_key_pem;
    // one untimed export: the sealing round of the seed is not the export's cost
    await fetch(`${daemon.url}/v1/export?run=${runId}`).then((answer) => answer.arrayBuffer());
    const pid = daemon.child.pid!;
    resetPeakRss(pid);
    exportTimes = await timed(async () => {
      const answer = await fetch(`${daemon.url}/v1/export?run=${runId}`);
      if (answer.status !== 200) throw new Error(`export answered HTTP ${answer.status}`);
      archive = new Uint8Array(await answer.arrayBuffer());
    });
    peak = readPeakRssBytes(pid);
    rangeTimes = await timed(async () => {
      const answer = await fetch(`${daemon.url}/v1/export?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`);
      if (answer.status !== 200) throw new Error(`range export answered HTTP ${answer.status}`);
      await answer.arrayBuffer();
    });
    attestTimes = await timed(async () => {
      const answer = await fetch(`${daemon.url}/v1/graph/attestation?run=${runId}`);
      if (answer.status !== 200) throw new Error(`attestation answered HTTP ${answer.status}`);
      await answer.arrayBuffer();
    });
  } finally {
    await daemon.stop();
  }
  const bundles = extractExport(archive, join(scratch, 'bundle'), 'run');
  const verifyTimes = await timed(async () => {
    const result = await verifyBundle(bundles[0]!, { pinned: new Map([keyOf(daemonKey)]) });
    if (result.status !== 'ok') throw new Error(`verify --bundle: ${JSON.stringify(result.issues)}`);
  });
  // the baseline: the same rows, COPY'd to Parquet by DuckDB alone, on the stopped daemon's file
  const baselineTimes = await withDatabase(join(dataDir, 'provd.duckdb'), async (connection) =>
    timed(async () => {
      const target = raw(pathLiteral(join(scratch, 'baseline.parquet')));
      await execute(
        connection,
        sql`COPY (SELECT * FROM events WHERE run_id = ${runId} ORDER BY seq) TO ${target} (FORMAT parquet)`,
      );
    }),
  );
  const baseline = print('baseline_duckdb_copy', baselineTimes);
  const exported = print('get_export_run', exportTimes, {
    archive_bytes: archive.byteLength,
    daemon_peak_rss_bytes: peak,
  });
  const ranged = print('get_export_range', rangeTimes);
  const verified = print('verify_bundle', verifyTimes);
  const attested = print('get_attestation', attestTimes);
  const ratios = {
    bench: 'export',
    case: 'ratios_to_baseline_p50',
    get_export_run: Number((exported / baseline).toFixed(3)),
    get_export_range: Number((ranged / baseline).toFixed(3)),
    verify_bundle: Number((verified / baseline).toFixed(3)),
    get_attestation: Number((attested / baseline).toFixed(3)),
  };
  process.stdout.write(JSON.stringify(ratios) + '\n');
  await otlpDrain(seedS);
  return [];
}

/** A receiver that acknowledges every OTLP/HTTP request with an empty response, reading the body. */
async function startAckingReceiver(): Promise<{ server: Server; url: string; bytes: () => number }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/v1/traces`, bytes: () => bytes };
}

/** The sealed run's backlog sent to a receiver by a daemon started on its store; the rate, against ingest's. */
async function otlpDrain(seedS: number): Promise<void> {
  const receiver = await startAckingReceiver();
  const daemon = await startDaemon({ dataDir, args: ['--otlp-endpoint', receiver.url] });
  const sent = async (): Promise<Record<string, unknown>> =>
    ((await request(daemon.url, '/v1/health')).body['checks'] as Record<string, Record<string, unknown>>)[
      'otlp'
    ]!;
  try {
    const start = performance.now();
    const pid = daemon.child.pid!;
    resetPeakRss(pid);
    let check = await sent();
    // every event's span, and the run's span once the whole run was sent
    while (Number(check['sent_spans']) <= events || Number(check['pending_runs']) > 0) {
      if (check['status'] !== 'ok') throw new Error(`otlp export: ${JSON.stringify(check)}`);
      if (performance.now() - start > 600_000)
        throw new Error(`otlp export stalled: ${JSON.stringify(check)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      check = await sent();
    }
    const drainS = (performance.now() - start) / 1000;
    const ingestRate = events / seedS;
    const drainRate = events / drainS;
    const result = {
      bench: 'export',
      case: 'otlp_drain',
      events,
      spans: check['sent_spans'],
      otlp_bytes: receiver.bytes(),
      events_per_sec: Math.round(drainRate),
      baseline: { name: 'ingest_native_http', events_per_sec: Math.round(ingestRate) },
      ratio_to_baseline: Number((drainRate / ingestRate).toFixed(3)),
      daemon_peak_rss_bytes: readPeakRssBytes(pid),
      ...host,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await daemon.stop();
    receiver.server.close();
  }
}

await benchMain({
  name: 'export.bench',
  deadlineMs: isShort ? 300_000 : 1_800_000,
  isGuard: false,
  run,
  cleanup: () => {
    removeDir(dataDir);
    rmSync(scratch, { recursive: true, force: true });
  },
});
