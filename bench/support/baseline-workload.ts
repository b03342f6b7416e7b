/**
 * A workload for benchmarks of the baselines (POST /v1/security/baselines) and of GET
 * /v1/security/deviations: two runs seeded over HTTP before the store is grown with fillStoreBySql
 * (which copies their events with them and rebuilds the behaviour rollup over the copies), one of
 * them learned as a baseline, and the deviations to ask for.
 *
 * Each run's events cover every folded measure: execs, reads and writes, connects and DNS lookups.
 * The measured run shows more distinct values than the learned one (new binaries, prefixes,
 * destinations and names), so its deviations fill many pages; the learned run has none.
 */
import { withBodyType } from '../../test/support/http.js';

/** The run a baseline is learned from, and the run measured against it. */
export const baselineRuns = { learned: 'baseline-learned', measured: 'baseline-measured' } as const;

const startMs = Date.UTC(2026, 0, 1);

/** `count` native lines of one run's cgroup, 37 ms apart; `wider` makes every measure show more values. */
function runLines(cgroup: string, count: number, wider: boolean): string[] {
  const spread = (narrow: number, wide: number): number => (wider ? wide : narrow);
  return Array.from({ length: count }, (_v, i) => {
    const base = {
      timestamp: new Date(startMs + 1000 + i * 37).toISOString(),
      pid: 5000 + (i % 50),
      tgid: 5000 + (i % 50),
      ppid: 1,
      comm: 'worker',
      cgroup_id: cgroup,
    };
    const n = Math.floor(i / 10);
    const fields = [
      { event_type: 'execve', path: `/usr/bin/tool${n % spread(100, 200)}` },
      { event_type: 'network_connect', dst_ip: `203.0.113.${n % spread(100, 250)}`, dst_port: 443 },
      { event_type: 'dns_query', query: `h${n % spread(900, 1000)}.example.com` },
      { event_type: 'file_write', path: `/work/out${n % 30}/f${i}` },
    ][i % 10] ?? {
      event_type: 'file_open',
      path: `/work/${i % spread(1000, 1500)}/x/${i}`,
      flags: 'O_RDONLY',
    };
    return JSON.stringify({ ...base, ...fields });
  });
}

async function post(url: string, path: string, body: string): Promise<Record<string, unknown>> {
  const answer = await fetch(url + path, { method: 'POST', headers: withBodyType(path), body });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${path} answered HTTP ${answer.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Binds both runs (cgroups 4301 and 4302) and ingests `events` native events into each. */
export async function seedBaselineRuns(url: string, events = 10_000): Promise<void> {
  const runs = [
    [baselineRuns.learned, '4301', false],
    [baselineRuns.measured, '4302', true],
  ] as const;
  for (const [run, cgroup, wider] of runs) {
    const bind = { run_id: run, tool_call_id: 'tc', cgroup_id: cgroup, started_at: '2026-01-01T00:00:00Z' };
    await post(url, '/v1/telemetry/bind', JSON.stringify(bind));
    await post(url, '/v1/telemetry/ingest?format=native', runLines(cgroup, events, wider).join('\n'));
  }
}

/** Learns a version of `name` from `runs` over HTTP; resolves to its version and how long it took. */
export async function learnBaseline(
  url: string,
  name: string,
  runs: readonly string[] = [baselineRuns.learned],
): Promise<{ version: number; ms: number }> {
  const started = performance.now();
  const baseline = await post(url, '/v1/security/baselines', JSON.stringify({ name, runs }));
  return { version: baseline['version'] as number, ms: performance.now() - started };
}

/** The deviations requests to time: a first page of many (the measured run), and an empty answer (the learned run). */
export function deviationsPaths(name: string): { name: string; path: string }[] {
  const path = (run: string): string =>
    `/v1/security/deviations?run=${run}&baseline=${encodeURIComponent(name)}`;
  return [
    { name: 'deviations.first_page', path: path(baselineRuns.measured) },
    { name: 'deviations.within_baseline', path: path(baselineRuns.learned) },
  ];
}
