/**
 * Timeline benchmark (`npm run bench:timeline`; `npm run bench:guard` runs it with --short --guard):
 * GET /v1/timeline pages of one run holding 10,000,000 events (100,000 with --short), at its start
 * and deep into it, and the causality tree, each with p50, p99 and whether p99 meets the 20 ms
 * target. The baseline of a page, in the same run, is a page of the same size of GET
 * /v1/telemetry/events: one keyset page over the same rows, without the merge. That page is
 * reported on its own line too (events.first_page, events.deep_page): its p99 against the 20 ms
 * target of issue 24, as p99_to_target.
 *
 * `--guard` fails the run when the baseline page's p50 over a timeline page's falls more than 25%
 * below the ratio recorded in bench/baselines.json; it leaves out the causality tree, which it does
 * not guard.
 */
import { join } from 'node:path';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { deepCursor, measureGets, p99Target, type Latency } from './support/query-latency.js';
import { fillStoreBySql } from './support/store-fill.js';
import { withBodyType } from '../test/support/http.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const events = isShort ? 100_000 : 10_000_000;
const deadlineMs = isShort ? 120_000 : 900_000;
/**
 * Timed requests per series: a p99 of fewer than 100 is only their maximum, and of a few hundred it
 * swings with one burst of slow requests on a shared 2-core host (200: 21 ms, 2,400: 16.5 ms on one store).
 * `--guard` compares p50s only, which 100 give as well.
 */
const repeats = isShort ? (isGuard ? 100 : 200) : 1000;
/** Untimed requests before each timed series: the first after a start pay for JIT and cold buffers. */
const warmup = 3;
/** The latency target of every timeline answer at 10M events (reported, never a failure: times vary by host). */
const targetP99Ms = 20;
const host = describeHost();
const dataDir = makeDataDir();
const runId = 'timeline-run';
const seeded = 10_000;

/** A bound tool call, an asserted one, and `seeded` events of one cgroup over six minutes. */
async function seed(daemon: RunningDaemon): Promise<void> {
  const post = async (path: string, body: string): Promise<void> => {
    const answer = await fetch(daemon.url + path, { method: 'POST', headers: withBodyType(path), body });
    if (answer.status !== 200) throw new Error(`seeding: ${path} answered HTTP ${answer.status}`);
  };
  const start = Date.UTC(2026, 0, 1);
  const bind = {
    run_id: runId,
    tool_call_id: 'tc-bound',
    cgroup_id: '4242',
    started_at: '2026-01-01T00:00:00Z',
  };
  await post('/v1/telemetry/bind', JSON.stringify(bind));
  await post('/v1/record', JSON.stringify({ run_id: runId, command: 'make', execute: false }));
  const lines = Array.from({ length: seeded }, (_v, i) =>
    JSON.stringify({
      event_type: i % 5 === 0 ? 'execve' : 'file_open',
      timestamp: new Date(start + 1000 + i * 37).toISOString(),
      pid: 5000 + (i % 50),
      tgid: 5000 + (i % 50),
      ppid: 5000 + Math.floor((i % 50) / 2),
      comm: 'worker',
      cgroup_id: '4242',
      path: `/work/${i}`,
    }),
  );
  await post('/v1/telemetry/ingest?format=native', lines.join('\n'));
}

/** p50 and p99 of the series of each of `paths`; --guard interleaves them (query-latency.ts). */
const measure = (daemon: RunningDaemon, paths: string[]): Promise<Latency[]> =>
  measureGets(daemon, paths, repeats, warmup, isGuard);

async function run(): Promise<string[]> {
  let daemon = await startDaemon({ dataDir });
  await seed(daemon);
  await daemon.stop();
  await fillStoreBySql(join(dataDir, 'provd.duckdb'), events);
  daemon = await startDaemon({ dataDir });
  const failures: string[] = [];
  try {
    const timeline = `/v1/timeline?run=${runId}`;
    const list = `/v1/telemetry/events?run=${runId}`;
    const pages = isShort ? 20 : 50;
    const deepTimeline = await deepCursor(daemon, timeline, pages);
    const deepList = await deepCursor(daemon, list, pages);
    const cases = [
      { name: 'first_page', path: timeline, baseline: list },
      {
        name: 'deep_page',
        path: `${timeline}&cursor=${deepTimeline}`,
        baseline: `${list}&cursor=${deepList}`,
      },
    ];
    const measured = await measure(
      daemon,
      cases.flatMap(({ path, baseline }) => [baseline, path]),
    );
    for (const [index, { name }] of cases.entries()) {
      const [base, page] = [measured[2 * index]!, measured[2 * index + 1]!];
      process.stdout.write(
        JSON.stringify({
          name: `events.${name}`,
          events,
          limit: 100,
          p50_ms: base.p50,
          p99_ms: base.p99,
          ...p99Target(base.p99),
          repeats,
          warmup_requests: warmup,
          ...host,
        }) + '\n',
      );
      const ratio = page.p50 / base.p50;
      const result = {
        name: `timeline.table.${name}`,
        events,
        limit: 100,
        p50_ms: page.p50,
        p99_ms: page.p99,
        baseline_events_page_p50_ms: base.p50,
        ratio_to_baseline: Math.round(ratio * 1000) / 1000,
        target_p99_ms: targetP99Ms,
        target_met: page.p99 <= targetP99Ms,
        repeats,
        warmup_requests: warmup,
        ...host,
      };
      process.stdout.write(JSON.stringify(result) + '\n');
      failures.push(
        ...guardRatio(
          `timeline.table.${name}.p50/events_page`,
          base.p50 / page.p50,
          "the events page's p50 over the timeline's",
        ),
      );
    }
    // the causality tree is measured against its target, never guarded
    if (isGuard) return failures;
    const tree = (await measure(daemon, [`${timeline}&view=causality`]))[0]!;
    const result = {
      name: 'timeline.causality',
      events,
      p50_ms: tree.p50,
      p99_ms: tree.p99,
      answer_bytes: tree.bytes,
      target_p99_ms: targetP99Ms,
      target_met: tree.p99 <= targetP99Ms,
      repeats,
      warmup_requests: warmup,
      ...host,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await daemon.stop();
  }
  return failures;
}

await benchMain({ name: 'timeline.bench', deadlineMs, isGuard, run, cleanup: () => removeDir(dataDir) });
