/**
 * Memory of the daemon under concurrent large ingest bodies (`npm run bench:memory`): resident set
 * size idle, its peak during a flood of 4 MiB NDJSON bodies (429s retried after Retry-After), and
 * again once the flood has been answered and the daemon has been idle for a while. Prints one JSON
 * line per concurrency. A measurement, not a guard: RSS depends on the host's allocator and cores.
 *
 *   node dist/bench/ingest-memory.bench.js [--concurrency 8,32] [--requests 48] [--daemon-arg=--max-ingest-queue-bytes=N]
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { nativeLine } from '../test/support/telemetry.js';
import { makeDataDir, removeDir, startDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { describeHost } from './support/host.js';
import { HttpClient, postBodies } from './support/ingest-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';

const mib = 1024 * 1024;
/** How long the daemon idles after the flood before its RSS is read again. */
const settleMs = 10_000;

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(name);
  return at === -1 ? fallback : (argv[at + 1] ?? fallback);
};
const concurrencies = option('--concurrency', '8,32').split(',').map(Number);
const requests = Number(option('--requests', '48'));
const daemonArgs = argv
  .filter((arg) => arg.startsWith('--daemon-arg='))
  .flatMap((arg) => arg.slice(13).split('='));

/** About 4 MiB of native NDJSON. */
function body(): Uint8Array {
  const lines: string[] = [];
  let size = 0;
  while (size < 4 * mib) {
    const line = nativeLine({ comm: `m${lines.length}` }) + '\n';
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

function readRssBytes(pid: number): number | null {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : null;
}

const toMib = (bytes: number | null): number | null => (bytes === null ? null : Math.round(bytes / mib));

async function measure(concurrency: number, payload: Uint8Array): Promise<void> {
  const dataDir = makeDataDir();
  const daemon = await startDaemon({ dataDir, args: daemonArgs });
  const pid = daemon.child.pid ?? 0;
  const client = new HttpClient(daemon.url, concurrency);
  try {
    // bound events are stored and attributed; unbound ones would pile up in the spool instead
    await client.postJson('/v1/telemetry/bind', { run_id: 'run-mem', tool_call_id: 'tc', cgroup_id: '777' });
    await sleep(1000);
    const idle = readRssBytes(pid);
    resetPeakRss(pid);
    const bodies = Array.from({ length: requests }, () => payload).values();
    const run = await postBodies(client, '/v1/telemetry/ingest?format=native', bodies, concurrency);
    const peak = readPeakRssBytes(pid);
    await sleep(settleMs);
    const after = readRssBytes(pid);
    const line = {
      name: 'ingest.memory',
      concurrency,
      requests,
      body_bytes: payload.length,
      daemon_args: daemonArgs,
      idle_rss_mib: toMib(idle),
      peak_rss_mib: toMib(peak),
      settled_rss_mib: toMib(after),
      settle_ms: settleMs,
      retries_429: run.retries429,
      failures: run.failures.length,
      elapsed_ms: Math.round(run.elapsedMs),
      host: describeHost(),
    };
    process.stdout.write(JSON.stringify(line) + '\n');
  } finally {
    client.close();
    await daemon.stop();
    removeDir(dataDir);
  }
}

await benchMain({
  name: 'ingest-memory.bench',
  deadlineMs: 600_000,
  isGuard: false,
  run: async () => {
    const payload = body();
    for (const concurrency of concurrencies) await measure(concurrency, payload);
    return [];
  },
  cleanup: () => undefined,
});
