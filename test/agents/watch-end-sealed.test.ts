/**
 * The end of a watched agent, and an agent session's SessionEnd, are sealed only after the sensor's
 * batches of it are stored: the sensor's
 * commits linger up to 5 s for others to join them (event-commit.sql.ts), and the run's checkpoint
 * at the end must not leave its last events out. The daemon is killed (SIGKILL) the moment `provd
 * watch` returns, so nothing stored or sealed after the end can hide a late one. It starts the
 * sensor (`sensor: true`), so it runs alone; it skips, saying why, without root, BTF or a cgroup.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import { typeCode } from '../../src/model/codes.js';
import { readRows, sql } from '../../src/store/sql.js';
import { runCli } from '../support/cli.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { skipWithoutWatchSensor } from '../support/watch-sensor.js';

/** The run's stored execs (their argv), its events, and what its last checkpoint counts as sealed. */
async function readRun(dataDir: string, run: string) {
  const instance = await DuckDBInstance.create(join(dataDir, 'provd.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const execs = await readRows<{ argv: string }>(
      connection,
      sql`SELECT json_extract(attrs, '$.argv')::VARCHAR AS argv FROM events
          WHERE run_id = ${run} AND type = ${typeCode('execve')}`,
    );
    const [stored] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM events WHERE run_id = ${run}`,
    );
    const [checkpoint] = await readRows<{ envelope: string }>(
      connection,
      sql`SELECT envelope FROM checkpoints WHERE run_id = ${run} ORDER BY chain_index DESC LIMIT 1`,
    );
    assert.ok(checkpoint, `run ${run} has no checkpoint`);
    const envelope = JSON.parse(checkpoint.envelope) as { payload: string };
    const payload = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as {
      payload: { counts: { events: number } };
    };
    return {
      argvs: execs.map((row) => JSON.parse(row.argv) as string[]),
      stored: Number(stored!.n),
      sealed: payload.payload.counts.events,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Both marker execs of the run are stored, and its last checkpoint counts every event it stored. */
async function assertSealedWhole(dataDir: string, run: string): Promise<void> {
  const { argvs, stored, sealed } = await readRun(dataDir, run);
  for (const marker of ['first-marker', 'last-marker'])
    assert.ok(
      argvs.some((argv) => argv.includes(marker)),
      `the exec of ${marker} is stored: ${JSON.stringify(argvs)}`,
    );
  assert.equal(sealed, stored, "the end's checkpoint counts every event of the run stored");
}

describe("sealing an agent's end", function () {
  describe('the end of a watched agent', function () {
    this.timeout(120_000);
    const fixture = useDaemonFixture();
    before(skipWithoutWatchSensor);

    it("is sealed after the agent's last events are stored, however close to its exit they came", async function () {
      const daemon = await fixture.start({ sensor: true });
      const run = 'run-sealed-end';
      // the last exec comes a moment before the agent exits: its batch would linger past the end
      const script = '/bin/true first-marker; sleep 0.2; /bin/true last-marker';
      const watched = await runCli(['watch', '--run', run, '--', 'sh', '-c', script], {
        env: { PROVD_URL: daemon.url },
      });
      assert.equal(watched.code, 0, watched.stderr);
      assert.match(watched.stderr, /sealed \(sha256:/);
      // nothing after the end may store or seal anything: what the end sealed is what the store holds
      await daemon.stop('SIGKILL');
      await assertSealedWhole(fixture.dataDir, run);
    });
  });

  describe("an agent session's SessionEnd", function () {
    this.timeout(120_000);
    const fixture = useDaemonFixture();
    before(function () {
      const why = sensorUnavailable();
      if (why === undefined) return;
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    });

    it("seals the run after the agent's last events are stored, however close to the SessionEnd they came", async function () {
      const daemon = await fixture.start({ sensor: true });
      const run = 'run-sealed-session';
      const hook = async (name: string): Promise<void> => {
        const body = JSON.stringify({ session_id: 's-sealed', hook_event_name: name, cwd: '/' });
        const answer = await request(daemon.url, `/v1/hooks/claude?run=${run}`, { method: 'POST', body });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      };
      await hook('SessionStart');
      // the agent: bound by its pid before it runs anything, as a session's first hook binds it
      const agent = spawn('sh', ['-c', 'read go; /bin/true first-marker; sleep 0.2; /bin/true last-marker'], {
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      const bound = await request(daemon.url, '/v1/telemetry/bind', {
        method: 'POST',
        body: JSON.stringify({
          run_id: run,
          tool_call_id: 'agent',
          process_id: String(agent.pid),
          root_pid: agent.pid,
        }),
      });
      assert.equal(bound.status, 200, JSON.stringify(bound.body));
      agent.stdin.end('go\n');
      await once(agent, 'exit');
      await hook('SessionEnd');
      await daemon.stop('SIGKILL');
      await assertSealedWhole(fixture.dataDir, run);
    });
  });
});
