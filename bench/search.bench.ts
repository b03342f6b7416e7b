/**
 * Search benchmark (`npm run bench:search`): GET /api/search/sources on a store of 10,000,000 events
 * (100,000 with --short), with p50 and p99 of each case. The worst request is a text that appears
 * nowhere: it scans a whole window of positions and finds nothing. Cases: that text over the whole
 * store at its start and deep into it, within one run, a text every event holds (the page fills at
 * once), and a text only recorded tool calls hold. The baseline, in the same run, is a page of
 * GET /v1/telemetry/events of the same run: each case reports its p50 as a ratio to it.
 *
 * `--store DIR` keeps the filled data dir in DIR (and reuses it when it holds one already).
 * `--guard` fails the run when the baseline's p50 over a case's falls more than 25% below the ratio
 * recorded in bench/baselines.json.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventWindow } from '../src/views/search/search-sources.sql.js';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { measureGets } from './support/query-latency.js';
import { fillStoreBySql } from './support/store-fill.js';
import { withBodyType } from '../test/support/http.js';

const argv = process.argv.slice(2);
const isShort = argv.includes('--short');
const isGuard = argv.includes('--guard');
const storeArg = argv.indexOf('--store');
const keptDir = storeArg < 0 ? null : argv[storeArg + 1]!;
const events = isShort ? 100_000 : 10_000_000;
const deadlineMs = isShort ? 120_000 : 1_800_000;
/** Timed requests per case: a p99 of fewer than a few hundred is only their maximum (--guard compares p50s). */
const repeats = isShort ? (isGuard ? 50 : 100) : 300;
/** Untimed requests before each timed series. */
const warmup = 3;
const host = describeHost();
const dataDir = keptDir ?? makeDataDir();
const runId = 'search-run';
const seeded = 10_000;

/** Recorded tool calls and `seeded` events of one cgroup: execs with argv, opens, connects, DNS. */
async function seed(daemon: RunningDaemon): Promise<void> {
  const post = async (path: string, body: string): Promise<void> => {
    const answer = await fetch(daemon.url + path, { method: 'POST', headers: withBodyType(path), body });
    if (answer.status !== 200) throw new Error(`seeding: ${path} answered HTTP ${answer.status}`);
  };
  const bind = { run_id: runId, tool_call_id: 'tc-1', cgroup_id: '4242', started_at: '2026-01-01T00:00:00Z' };
  await post('/v1/telemetry/bind', JSON.stringify(bind));
  for (let i = 0; i < 20; i++) {
    const call = { run_id: runId, command: 'deploy-tool', args: ['--target', `host-${i}`], execute: false };
    await post('/v1/record', JSON.stringify(call));
  }
  const start = Date.UTC(2026, 0, 1);
  const lines = Array.from({ length: seeded }, (_v, i) => {
    const common = { timestamp: new Date(start + 1000 + i * 37).toISOString(), pid: 5000 + (i % 50) };
    const kind = i % 4;
    const fields =
      kind === 0
        ? { event_type: 'execve', path: '/usr/bin/make', argv: ['make', `target-${i}`, '--jobs=4'] }
        : kind === 1
          ? { event_type: 'file_open', path: `/work/src/module-${i}.ts`, flags: 'O_RDONLY' }
          : kind === 2
            ? { event_type: 'network_connect', dst_ip: `203.0.113.${i % 250}`, dst_port: 443 }
            : { event_type: 'dns_query', query: `host-${i}.example.org` };
    return JSON.stringify({ ...common, comm: 'worker', cgroup_id: '4242', ...fields });
  });
  await post('/v1/telemetry/ingest?format=native', lines.join('\n'));
}

/** The cursor `pages` pages into a search. */
async function deepCursor(daemon: RunningDaemon, path: string, pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const answer = await fetch(`${daemon.url}${path}${cursor === '' ? '' : `&cursor=${cursor}`}`);
    cursor = String(((await answer.json()) as { next_cursor: string | null }).next_cursor);
  }
  return cursor;
}

async function run(): Promise<string[]> {
  if (!existsSync(join(dataDir, 'provd.duckdb'))) {
    const seeding = await startDaemon({ dataDir });
    await seed(seeding);
    await seeding.stop();
    await fillStoreBySql(join(dataDir, 'provd.duckdb'), events);
  }
  const daemon = await startDaemon({ dataDir });
  const failures: string[] = [];
  try {
    const absent = '/api/search/sources?q=appears-nowhere';
    // halfway through the store: each page of a text found nowhere moves one window on
    const deep = await deepCursor(daemon, absent, Math.floor(events / 2 / eventWindow));
    const cases = [
      { name: 'absent.first_page', path: absent },
      { name: 'absent.deep_page', path: deep === '' ? absent : `${absent}&cursor=${deep}` },
      { name: 'absent.in_run', path: `${absent}&run=${runId}` },
      { name: 'frequent.first_page', path: '/api/search/sources?q=/work/src/' },
      { name: 'tool_calls_only', path: '/api/search/sources?q=deploy-tool' },
    ];
    // the baseline of the same run: one page of the run's events, a keyset read of 100 rows
    // --guard interleaves the series (query-latency.ts): their ratios to the baseline are what it checks
    const measured = await measureGets(
      daemon,
      [`/v1/telemetry/events?run=${runId}`, ...cases.map(({ path }) => path)],
      repeats,
      warmup,
      isGuard,
    );
    const baseline = measured[0]!;
    for (const [index, { name }] of cases.entries()) {
      const { p50, p99, text } = measured[index + 1]!;
      const count = (JSON.parse(text) as { count?: number }).count ?? 0;
      const result = {
        name: `search.${name}`,
        events,
        window: eventWindow,
        p50_ms: p50,
        p99_ms: p99,
        matches: count,
        baseline_events_page_p50_ms: baseline.p50,
        ratio_to_baseline: Math.round((p50 / baseline.p50) * 1000) / 1000,
        repeats,
        ...host,
      };
      process.stdout.write(JSON.stringify(result) + '\n');
      failures.push(
        ...guardRatio(
          `search.${name}.p50/events_page`,
          baseline.p50 / p50,
          "the events page's p50 over the search's",
        ),
      );
    }
  } finally {
    await daemon.stop();
  }
  return failures;
}

await benchMain({
  name: 'search.bench',
  deadlineMs,
  isGuard,
  run,
  cleanup: () => {
    if (keptDir === null) removeDir(dataDir);
  },
});
