/**
 * The kill phase: producers ingest unique events while the daemon is killed with SIGKILL `kills`
 * times, each at a seeded moment mid-ingest, and restarted on the same data dir and port. Producers
 * resend unanswered batches under the same Idempotency-Key, as a producer that must lose nothing
 * does. One producer's events have no binding yet (they wait in the spool, which a kill must not
 * empty); its binding comes at the end. Then every acknowledged event must be stored exactly once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EventLedger } from './event-ledger.js';
import { deliver } from './ingest-producer.js';
import type { PhaseTally } from './phase-tally.js';
import { Rng } from './rng.js';
import { SoakApi } from './soak-api.js';
import { SoakDaemon } from './soak-daemon.js';
import { dataDirFor, type SoakRun } from './soak-phases.js';
import { settleLedger } from './settle-ledger.js';

const run = 'soak-kill';
const boundCgroup = '7001';
/** The cgroup whose binding arrives only after the last kill. */
const lateCgroup = '7002';
const producers = [boundCgroup, boundCgroup, lateCgroup];
/** How long a restarted daemon may take to acknowledge its first batch before it is killed anyway. */
const firstAnswerWaitMs = 5_000;

/** Runs the kill phase on a daemon of its own. */
export async function runKill(soak: SoakRun, tally: PhaseTally): Promise<void> {
  const { options } = soak;
  const daemon = new SoakDaemon({
    dataDir: dataDirFor(soak, 'kill'),
    token: soak.token,
    sensor: options.sensor,
    // long enough that the late binding still claims what waited through every kill
    args: ['--spool-ttl', '2h'],
  });
  tally.daemon = daemon;
  await daemon.start();
  const api = new SoakApi(
    () => daemon.port,
    () => soak.token,
  );
  await api.post('/v1/telemetry/bind', { run_id: run, tool_call_id: 'tc', cgroup_id: boundCgroup });
  const ledger = new EventLedger(run, `k${options.seed}`);
  const rng = new Rng(options.seed, 'kill');
  let killing = true;

  const produce = async (producer: number, cgroup: string): Promise<void> => {
    const client = new SoakApi(
      () => daemon.port,
      () => soak.token,
    );
    const sizes = new Rng(options.seed, `kill-producer-${producer}`);
    for (let n = 0; killing; n++) {
      const batch = ledger.batch(producer, n, sizes.between(20, 400), cgroup);
      await deliver(client, ledger, batch, tally, {
        wellFormed: false,
        origin: `kill seed=${options.seed} producer=${producer}`,
      });
    }
    client.close();
  };
  const running = producers.map((cgroup, producer) => produce(producer, cgroup));

  for (let k = 1; k <= options.kill.kills; k++) {
    // once this process has acknowledged something (or a while passed), kill it at a seeded moment
    // while the producers' next batches are in flight
    const acknowledged = ledger.acknowledgedCount;
    const until = Date.now() + firstAnswerWaitMs;
    while (ledger.acknowledgedCount === acknowledged && Date.now() < until) await sleep(20);
    await sleep(rng.between(0, 1500));
    await daemon.kill9();
    await daemon.start();
    if (k % 10 === 0)
      process.stderr.write(`soak: kill: ${k} kills, ${ledger.acknowledgedCount} events acknowledged\n`);
  }
  killing = false;
  await Promise.all(running);
  await api.post('/v1/telemetry/bind', {
    run_id: run,
    tool_call_id: 'tc-late',
    cgroup_id: lateCgroup,
    started_at: '2026-01-01T00:00:00Z',
  });
  await settleLedger(api, ledger, tally, 'kill');
  const restarts = daemon.startMs.slice(1).sort((a, b) => a - b);
  tally.note(
    'restarts',
    `${restarts.length} restarts after SIGKILL: median ${restarts[restarts.length >> 1]} ms, slowest ${restarts.at(-1)} ms until listening`,
  );
  api.close();
  const code = await daemon.stop();
  if (code !== 0) tally.fail(null, 'unclean_stop', `the daemon answered SIGTERM with exit ${code}`);
}
