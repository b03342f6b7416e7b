/**
 * The ordinary-rate phase of bench:sensor: what a daemon with the sensor on costs on a quiet host and
 * beside a shell loop of `/bin/true; sleep 0.05` (about 35 execs/s) run as a recorded command (it
 * stands in for a watched agent, so `--capture agents` captures it), as CPU percent of one core
 * (utime + stime of every thread of the daemon over the phase), with the threads that took it by
 * name (a thread's name is its comm: `node`, `libuv-worker`, or what a native library named it).
 * The phases start once the daemon's start-up work is done (its first scan of every process for TLS
 * targets, the garbage of it): measured here, a daemon used 6.6% of a core in its first 10 s and
 * 3.1% in the next, then 0.7-1.1%. That start-up cost is reported apart.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { readRows, sql } from '../../src/store/sql.js';
import { startDaemon } from '../../test/support/daemon.js';
import { meterFor as meter } from './thread-cpu.js';

/** Targets of issues 24 and 42 (in `--capture agents`), percent of one core. */
export const quietTarget = 0.5;
export const loopTarget = 3;

/** Events the store holds, all runs and none. */
async function countEvents(path: string): Promise<number> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const [row] = await readRows<{ events: bigint }>(connection, sql`SELECT count(*) AS events FROM events`);
    return Number(row!.events);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** How long a phase waits for the daemon's start-up work (`settleSeconds`, short or not). */
export function settleSeconds(isShort: boolean): number {
  return isShort ? 15 : 30;
}

/**
 * Runs both phases of `seconds` each against one daemon with the sensor on in capture `mode` (and
 * `args`), after `settle` seconds of start-up, whose CPU is reported as `startup`. The loop runs as
 * a recorded command for a second longer than its phase.
 */
export async function measureOrdinaryRate(
  dataDir: string,
  seconds: number,
  settle: number,
  mode: 'agents' | 'host',
  args: string[] = [],
) {
  // recording a command needs a token; startDaemon has it run as root, as the bench does
  const token = 'ordinary-rate-bench';
  const daemon = await startDaemon({
    dataDir,
    sensor: true,
    authToken: token,
    args: ['--capture', mode, ...args],
  });
  const pid = daemon.child.pid!;
  let startup, quiet, loop;
  try {
    startup = await meter(pid, settle);
    quiet = await meter(pid, seconds);
    const recorded = fetch(`${daemon.url}/v1/record`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        run_id: 'ordinary-loop',
        command: 'bash',
        args: ['-c', `while [ $SECONDS -lt ${seconds + 1} ]; do /bin/true; sleep 0.05; done`],
        cwd: dataDir,
      }),
    });
    loop = await meter(pid, seconds);
    const answer = await recorded;
    if (answer.status !== 200)
      throw new Error(`the recorded loop failed: ${answer.status} ${await answer.text()}`);
  } finally {
    await daemon.stop();
  }
  return { startup, quiet, loop, events_stored: await countEvents(join(dataDir, 'provd.duckdb')) };
}
