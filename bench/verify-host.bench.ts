/**
 * verify-host benchmark (`npm run bench:verify-host`; `npm run bench:guard` runs it with --short
 * --guard): GET /v1/graph/verify-host over a store of 10,000,000 host events (200,000 with
 * --short). The first call after a start verifies every host event; later calls check only what
 * changed (nothing here) and must answer within 50 ms at p99, with the daemon's peak RSS under
 * 1 GiB throughout. The baseline, in the same run, is DuckDB's own scan of the same rows with one
 * sha256 each (the least a recomputation of their hashes costs).
 *
 * The store: host events ingested through HTTP (native lines of a cgroup no binding names) in
 * bodies of 50,000 lines, then, for the full size, copied in SQL with their digests (copies shift
 * seq past the originals; their hashes and so their digests' roots are the originals'), then
 * signed and anchored by the daemon's own host round. It is built once and kept under
 * .cache/verify-host-f<store format>-<events>/ (a data dir); a later run starts the daemon on it.
 *
 * `--guard` fails when a call does not answer `ok`, or when the first call's time over a later
 * call's p99 falls more than 25% below the ratio recorded in bench/baselines.json.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { execute, inTransaction, readRows, sql } from '../src/store/sql.js';
import { makeDataDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { request } from '../test/support/http.js';
import { benchMain } from './support/bench-main.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';
import { readPeakRssBytes } from './support/peak-rss.js';
import { guardRatio } from './support/ratio-guard.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const events = isShort ? 200_000 : 10_000_000;
/** Events ingested through HTTP; the rest are copies made in SQL. */
const ingested = isShort ? 200_000 : 1_000_000;
const linesPerBody = 50_000;
const laterCalls = isShort ? 30 : 200;
const targetP99Ms = 50;
const rssLimitBytes = 1024 ** 3;
const host = describeHost();
const root = fileURLToPath(new URL('../../', import.meta.url));
const migrations = readdirSync(join(root, 'sql')).filter((name) => name.endsWith('.sql')).length;
const cacheDir = join(root, '.cache', `verify-host-f${migrations}-${events}`);
const env = { PROVD_FAULT_HOST_ROUND_MS: '500' };
const daemonArgs = ['--spool-ttl', '1s'];
let scratch: string | null = null;

function hostLines(from: number, count: number): string {
  const lines: string[] = [];
  for (let i = from; i < from + count; i++)
    lines.push(
      JSON.stringify({
        event_type: 'execve',
        timestamp: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
        pid: 1000 + (i % 30_000),
        tgid: 1000 + (i % 30_000),
        ppid: 1,
        comm: `h${i % 97}`,
        cgroup_id: '424242',
        path: `/usr/bin/tool-${i % 1013}`,
      }),
    );
  return lines.join('\n');
}

async function verifyHost(daemon: RunningDaemon): Promise<{ ms: number; status: unknown }> {
  const started = performance.now();
  const { status, body } = await request(daemon.url, '/v1/graph/verify-host');
  const ms = performance.now() - started;
  if (status !== 200) throw new Error(`verify-host answered ${status}: ${JSON.stringify(body)}`);
  return { ms, status: body['status'] };
}

/** Waits until a host round signed every digest (verify-host no longer says host_unsigned and is ok). */
async function waitSigned(daemon: RunningDaemon): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const { body } = await request(daemon.url, '/v1/graph/verify-host');
    const kinds = (body['issues'] as { kind: string }[]).map((issue) => issue.kind);
    if (body['status'] === 'ok' && !kinds.includes('host_unsigned')) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the host digests were never signed');
}

/** Builds the store in a scratch data dir and moves it to the cache. */
async function buildStore(): Promise<void> {
  scratch = makeDataDir();
  let daemon = await startDaemon({ dataDir: scratch, args: daemonArgs, env });
  try {
    for (let from = 0; from < ingested; from += linesPerBody) {
      const { status } = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
        method: 'POST',
        body: hostLines(from, Math.min(linesPerBody, ingested - from)),
      });
      if (status !== 200) throw new Error(`ingest answered ${status}`);
    }
    await waitSigned(daemon);
  } finally {
    await daemon.stop();
  }
  if (events > ingested) {
    await copyHostEvents(join(scratch, 'provd.duckdb'), Math.ceil(events / ingested) - 1);
    daemon = await startDaemon({ dataDir: scratch, args: daemonArgs, env });
    try {
      await waitSigned(daemon); // the copies' digests signed and anchored by a real round
    } finally {
      await daemon.stop();
    }
  }
  mkdirSync(join(root, '.cache'), { recursive: true });
  renameSync(scratch, cacheDir);
  scratch = null;
}

/** Copies the host events and their digests `copies` times, each past the last seq. */
async function copyHostEvents(path: string, copies: number): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const [span] = await readRows<{ span: bigint }>(connection, sql`SELECT max(seq) + 1 AS span FROM events`);
    await inTransaction(connection, async () => {
      for (let k = 1; k <= copies; k++) {
        const shift = BigInt(k) * span!.span;
        await execute(
          connection,
          sql`INSERT INTO events SELECT * REPLACE (id || '~' || ${k} AS id, seq + ${shift} AS seq)
              FROM events WHERE run_id IS NULL AND seq < ${span!.span} ORDER BY seq`,
        );
        await execute(
          connection,
          sql`INSERT INTO event_batches SELECT * REPLACE (batch_id || '~' || ${k} AS batch_id,
                seq_from + ${shift} AS seq_from, seq_to + ${shift} AS seq_to)
              FROM event_batches WHERE run_id IS NULL AND seq_from < ${span!.span}`,
        );
      }
    });
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Host rows per second of DuckDB's own scan of them with one sha256 each. */
async function baselineRate(path: string): Promise<{ rows: number; perSec: number; ms: number }> {
  const instance = await DuckDBInstance.create(path, { threads: '1' });
  const connection = await instance.connect();
  try {
    const started = performance.now();
    const [row] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM events WHERE run_id IS NULL AND sha256(attrs || hash) IS NOT NULL`,
    );
    const ms = performance.now() - started;
    return { rows: Number(row!.n), perSec: Number(row!.n) / (ms / 1000), ms };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function run(): Promise<string[]> {
  const failures: string[] = [];
  const built = !existsSync(cacheDir);
  const buildStarted = performance.now();
  if (built) await buildStore();
  const buildMs = performance.now() - buildStarted;
  const baseline = await baselineRate(join(cacheDir, 'provd.duckdb'));
  const daemon = await startDaemon({ dataDir: cacheDir, args: daemonArgs, env });
  try {
    const first = await verifyHost(daemon);
    const firstRss = readPeakRssBytes(daemon.child.pid!);
    const later: number[] = [];
    const statuses = new Set([first.status]);
    for (let i = 0; i < laterCalls; i++) {
      const call = await verifyHost(daemon);
      later.push(call.ms);
      statuses.add(call.status);
    }
    const p99 = percentileMs(later, 99);
    const peak = readPeakRssBytes(daemon.child.pid!);
    const ratio = first.ms / Math.max(p99, 0.001);
    process.stdout.write(
      JSON.stringify({
        name: 'verify_host',
        events: baseline.rows,
        store: { cache: cacheDir, built, build_ms: built ? Math.round(buildMs) : null },
        first_ms: Math.round(first.ms),
        first_events_per_sec: Math.round(baseline.rows / (first.ms / 1000)),
        later_calls: laterCalls,
        later_p50_ms: percentileMs(later, 50),
        later_p99_ms: p99,
        peak_rss_bytes: peak,
        peak_rss_after_first_bytes: firstRss,
        statuses: [...statuses],
        baseline: {
          name: 'duckdb_scan_sha256',
          ms: Math.round(baseline.ms),
          rows_per_sec: Math.round(baseline.perSec),
        },
        first_to_baseline: Math.round((baseline.ms / first.ms) * 1000) / 1000,
        first_over_later_p99: Math.round(ratio),
        target: { later_p99_ms: targetP99Ms, peak_rss_bytes: rssLimitBytes },
        target_met: p99 <= targetP99Ms && peak !== null && peak < rssLimitBytes,
        ...host,
      }) + '\n',
    );
    if (statuses.size !== 1 || !statuses.has('ok'))
      failures.push(`verify-host answered ${[...statuses].join(', ')}`);
    failures.push(
      ...guardRatio('verify_host.first/later_p99', ratio, "the first call's time over a later call's p99"),
    );
  } finally {
    await daemon.stop();
  }
  return failures;
}

await benchMain({
  name: 'verify-host.bench',
  deadlineMs: isShort ? 300_000 : 3_600_000,
  isGuard,
  run,
  cleanup: () => {
    if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  },
});
