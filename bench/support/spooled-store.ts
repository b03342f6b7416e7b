/**
 * A store whose spool holds `events` unbound events of one container (10,000 ingested through HTTP,
 * the rest copied in SQL), for the benchmarks of what a late binding and its run cost.
 */
import { join } from 'node:path';
import { startDaemon } from '../../test/support/daemon.js';
import { fillStoreBySql } from './store-fill.js';
import { withBodyType } from '../../test/support/http.js';

/** The container every spooled event belongs to: a binding on it claims them all. */
export const spooledContainer = 'c0ffee00c0ffee00c0ffee00';

/** Daemon flags that keep everything in the spool for the length of a run. */
export const spoolHoldArgs = [
  '--spool-ttl',
  '1h',
  '--spool-max-events',
  '5000000',
  '--spool-max-bytes',
  '100000000000',
];

/**
 * 10,000 unbound events of the container over ten minutes: a process tree, as an agent makes one.
 * Four in five events are execs, each of its own process; every tenth exec starts a group whose
 * other execs are its children (lineage to follow), and a file write is by the exec before it.
 */
function seedBody(): string {
  return Array.from({ length: 10_000 }, (_v, i) => {
    const isWrite = i % 5 === 0;
    const pid = 5000 + (isWrite ? i - 1 : i);
    const leader = 5000 + i - (i % 10) + 1;
    return JSON.stringify({
      event_type: isWrite ? 'file_write' : 'execve',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 17))).toISOString(),
      pid,
      tgid: pid,
      ppid: pid === leader ? 4000 : leader,
      comm: 'agent',
      container_id: spooledContainer,
      path: isWrite ? '/work/file' : '/usr/bin/tool',
      bytes: i,
    });
  }).join('\n');
}

/** Fills the spool of the store in `dataDir` to `events`; returns the database file's path. */
export async function fillSpool(dataDir: string, events: number): Promise<string> {
  const daemon = await startDaemon({ dataDir, args: spoolHoldArgs });
  try {
    const answer = await fetch(`${daemon.url}/v1/telemetry/ingest?format=native`, {
      method: 'POST',
      headers: withBodyType('/v1/telemetry/ingest'),
      body: seedBody(),
    });
    const body = (await answer.json()) as { pending?: number };
    if (answer.status !== 200 || body.pending !== 10_000)
      throw new Error(`seeding the spool: HTTP ${answer.status}`);
  } finally {
    await daemon.stop();
  }
  const path = join(dataDir, 'provd.duckdb');
  await fillStoreBySql(path, events);
  return path;
}
