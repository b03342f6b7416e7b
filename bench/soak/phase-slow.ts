/**
 * The slow phase: while `readers` connections ask for large answers and read them a byte at a time
 * or never, and writers send ingest bodies a few bytes at a time or stop halfway, ordinary clients
 * keep asking and ingesting: each of their well-formed requests must be answered within the
 * deadline. The slow writers that finish must be answered too, and nothing may answer 5xx.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EventLedger } from './event-ledger.js';
import { deliver } from './ingest-producer.js';
import type { PhaseTally } from './phase-tally.js';
import { userQueries } from './phase-flood.js';
import { Rng } from './rng.js';
import { SoakApi } from './soak-api.js';
import type { SoakDaemon } from './soak-daemon.js';
import { seededRuns } from './seed-store.js';
import { settleLedger } from './settle-ledger.js';
import { slowReader, slowWriter, type SlowPeer } from './slow-peers.js';
import type { SoakOptions } from './soak-options.js';

/** The slow phase's options, with the run's seed. */
export type SlowPlan = SoakOptions['slow'] & { seed: number };

const run = 'soak-slow';
const cgroup = '7301';
const ordinaryClients = 4;
const slowWriters = 4;

/** Runs the slow phase against the shared daemon. */
export async function runSlow(daemon: SoakDaemon, plan: SlowPlan, tally: PhaseTally): Promise<void> {
  const token = (): string => daemon.token;
  const api = new SoakApi(() => daemon.port, token);
  await api.post('/v1/telemetry/bind', { run_id: run, tool_call_id: 'tc', cgroup_id: cgroup });
  const ledger = new EventLedger(run, `s${plan.seed}`);
  const rng = new Rng(plan.seed, 'slow');
  // answers worth reading slowly: a page of 1,000 events of about 1.5 KiB each, the timeline, the document
  for (let n = 0; n < 3; n++)
    await deliver(api, ledger, ledger.batch(99, n, 1_000, cgroup, 1_000), tally, {
      wellFormed: false,
      origin: 'slow setup',
    });
  const large = [
    '/v1/openapi.json',
    `/v1/telemetry/events?run=${run}&limit=1000`,
    `/v1/timeline?run=${run}&limit=1000`,
    `/v1/export?run=${run}`,
    `/v1/timeline?run=${seededRuns[0]}&limit=1000`,
  ];
  const peers: SlowPeer[] = [];
  for (let i = 0; i < plan.readers; i++)
    peers.push(slowReader(daemon.port, api.getRequest(rng.pick(large)), i % 2 === 0 ? 0 : 1));
  const writes: { peer: SlowPeer; finishes: boolean }[] = [];
  // the slow writers' events are not in the ledger: their answers, if any, are read only for a status
  const unledgered = new EventLedger(run, `w${plan.seed}`);
  for (let i = 0; i < slowWriters; i++) {
    const batch = unledgered.batch(i, 0, 100, cgroup);
    const request = api.postRequest('/v1/telemetry/ingest?format=native', batch.body, 'application/x-ndjson');
    // half trickle their whole body within the phase, half stop halfway and wait
    const finishes = i % 2 === 0;
    const tickBytes = Math.ceil(batch.body.length / ((plan.seconds * 1000 * 0.6) / 100));
    writes.push({
      peer: slowWriter(daemon.port, request, tickBytes, 100, finishes ? undefined : batch.body.length / 2),
      finishes,
    });
  }

  const until = Date.now() + plan.seconds * 1000;
  const queries = userQueries(run);
  const ordinary = async (index: number): Promise<void> => {
    const own = new SoakApi(() => daemon.port, token);
    const mine = new Rng(plan.seed, `slow-client-${index}`);
    for (let n = 0; Date.now() < until; n++) {
      const origin = `slow seed=${plan.seed} client=${index} request=${n}`;
      if (mine.chance(0.3)) {
        await deliver(own, ledger, ledger.batch(index, n, mine.between(50, 500), cgroup), tally, {
          wellFormed: true,
          origin,
        });
        continue;
      }
      const request = own.getRequest(mine.pick(queries));
      const outcome = await own.send(request);
      tally.count({ request, outcome, wellFormed: true, origin });
      if (!('answer' in outcome)) own.client.close();
      await sleep(20);
    }
    own.close();
  };
  await Promise.all(Array.from({ length: ordinaryClients }, (_v, i) => ordinary(i)));

  const readerOutcomes = await Promise.all(peers.map((peer) => peer.stop()));
  for (const { peer, finishes } of writes) {
    const seen = await peer.stop();
    if (seen.status !== null && seen.status >= 500)
      tally.fail(null, 'unexpected_5xx', `a slow writer was answered ${seen.status}`);
    if (finishes && seen.status === null && !seen.closed)
      tally.fail(
        null,
        'slow_writer_unanswered',
        'a slow writer sent its whole body within the phase and got no answer',
      );
  }
  const closedReaders = readerOutcomes.filter((outcome) => outcome.closed).length;
  tally.note(
    'slow_peers',
    `${plan.readers} slow readers (${closedReaders} closed by the daemon), ${slowWriters} slow writers`,
  );
  await settleLedger(api, ledger, tally, 'slow');
  api.close();
}
