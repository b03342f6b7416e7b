/**
 * Bind benchmark (`npm run bench:bind`; `npm run bench:guard` runs it with --short --guard): a late
 * binding that claims every event of a full spool (1,000,000 events, 100,000 with --short), while
 * /v1/health is polled every 50 ms. The baseline, in the same run, is DuckDB's own rate for a plain
 * UPDATE of the same rows in a copy of the same store file: what moving them costs with no
 * correlation, windows or digests. Prints one JSON line per result.
 *
 * `--guard` fails the run when health answered anything but 200 while the bind ran (its own 2 s
 * deadline is the contract), when the bind did not claim every spooled event, or when its rate as a
 * ratio to the baseline's falls more than 25% below the one recorded in bench/baselines.json.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { execute, inTransaction, readRows, sql } from '../src/store/sql.js';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';
import { fillSpool, spoolHoldArgs, spooledContainer } from './support/spooled-store.js';
import { withBodyType } from '../test/support/http.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const spooled = isShort ? 100_000 : 1_000_000;
const deadlineMs = isShort ? 90_000 : 600_000;
const container = spooledContainer;
const host = describeHost();
const dataDir = makeDataDir();
const daemonArgs = spoolHoldArgs;

/** DuckDB's own rate for moving the same rows out of the spool, on a copy of the store. */
async function baseline(path: string): Promise<Record<string, unknown>> {
  const copy = join(dataDir, 'baseline.duckdb');
  copyFileSync(path, copy);
  const instance = await DuckDBInstance.create(copy);
  const connection = await instance.connect();
  try {
    const started = performance.now();
    await inTransaction(connection, () =>
      execute(
        connection,
        sql`UPDATE events SET run_id = 'r', tool_call_id = 't', binding_id = 'b', spool_state = 0, corr_method = 3
            WHERE spool_state = 1 AND container_id = ${container}`,
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      name: 'bind.baseline.update',
      events_per_sec: Math.round(spooled / seconds),
      duration_s: seconds,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Polls /v1/health every 50 ms until `stop` resolves; returns each latency and each status. */
async function pollHealth(
  daemon: RunningDaemon,
  stop: Promise<unknown>,
): Promise<{ ms: number[]; statuses: number[] }> {
  const ms: number[] = [];
  const statuses: number[] = [];
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const answer = await fetch(`${daemon.url}/v1/health`);
    await answer.arrayBuffer();
    ms.push(performance.now() - started);
    statuses.push(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { ms, statuses };
}

/** Events the bind moved into its run, counted in the stopped daemon's file. */
async function countInRun(path: string): Promise<number> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const [row] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM events WHERE run_id = 'bench-run'`,
    );
    return Number(row!.n);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function run(): Promise<string[]> {
  const path = await fillSpool(dataDir, spooled);
  const base = await baseline(path);
  process.stdout.write(JSON.stringify({ ...base, ...host }) + '\n');
  const daemon = await startDaemon({ dataDir, args: daemonArgs });
  try {
    resetPeakRss(daemon.child.pid!);
    const started = performance.now();
    const bind = fetch(`${daemon.url}/v1/telemetry/bind`, {
      method: 'POST',
      headers: withBodyType('/v1/telemetry/bind'),
      body: JSON.stringify({ run_id: 'bench-run', tool_call_id: 'tc', container_id: container }),
    }).then(async (answer) => ({
      status: answer.status,
      body: (await answer.json()) as { recorrelated?: number },
    }));
    const health = await pollHealth(daemon, bind);
    const answer = await bind;
    const seconds = (performance.now() - started) / 1000;
    const eventsPerSec = Math.round(spooled / seconds);
    const ratio = eventsPerSec / (base['events_per_sec'] as number);
    const nonOk = health.statuses.filter((status) => status !== 200).length;
    const peakRss = readPeakRssBytes(daemon.child.pid!);
    await daemon.stop();
    const result = {
      name: 'bind.settle',
      events_per_sec: eventsPerSec,
      duration_s: seconds,
      recorrelated: answer.body.recorrelated ?? null,
      stored_in_run: await countInRun(path),
      ratio_to_baseline: Math.round(ratio * 1000) / 1000,
      health_requests: health.ms.length,
      health_p50_ms: percentileMs(health.ms, 50),
      health_p99_ms: percentileMs(health.ms, 99),
      health_max_ms: percentileMs(health.ms, 100),
      health_not_200: nonOk,
      peak_rss_bytes: peakRss,
      spooled,
      ...host,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
    const failures: string[] = [];
    if (answer.status !== 200) failures.push(`the bind answered HTTP ${answer.status}`);
    if (result.recorrelated !== spooled || result.stored_in_run !== spooled)
      failures.push(`the bind claimed ${result.recorrelated} (${result.stored_in_run} stored) of ${spooled}`);
    if (nonOk > 0) failures.push(`health answered other than 200 ${nonOk} times while the bind ran`);
    failures.push(
      ...guardRatio('bind.settle.events_per_sec/update', ratio, "events/s over DuckDB's plain UPDATE"),
    );
    return failures;
  } finally {
    await daemon.stop();
  }
}

await benchMain({ name: 'bind.bench', deadlineMs, isGuard, run, cleanup: () => removeDir(dataDir) });
