/**
 * Export benchmark (`node dist/bench/export.bench.js [--short]`): GET /v1/export?run=R of one run of
 * 500,000 events (20,000 with --short), end to end (sealing wait, COPY of five tables in a read
 * snapshot, manifest hashing, tar, transfer), with p50 and p99 and the daemon's peak RSS, and the
 * same events as a range (GET /v1/export?from=&to=); then
 * `provd verify --bundle`'s check of the extracted bundle. The baseline, in the same run, is
 * DuckDB's own COPY of the same rows to Parquet on the stopped daemon's file: each case reports
 * its p50 as a ratio to it. Prints one JSON object per result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractExport } from '../src/cli/export-files.js';
import { execute, raw, sql } from '../src/store/sql.js';
import { pathLiteral } from '../src/views/export/export-columns.js';
import { keyOf } from '../src/views/export/bundle-tables.sql.js';
import { verifyBundle } from '../src/views/export/bundle-verify.sql.js';
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
  try {
    await seed(daemon);
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
  const ratios = {
    bench: 'export',
    case: 'ratios_to_baseline_p50',
    get_export_run: Number((exported / baseline).toFixed(3)),
    get_export_range: Number((ranged / baseline).toFixed(3)),
    verify_bundle: Number((verified / baseline).toFixed(3)),
  };
  process.stdout.write(JSON.stringify(ratios) + '\n');
  return [];
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
