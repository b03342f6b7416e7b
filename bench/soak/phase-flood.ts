/**
 * The flood phase: `clients` clients at once, each ingesting batches of unique events (resent under
 * their Idempotency-Key after a 429, which is backpressure, not a failure) and asking the queries a
 * user asks while it happens. Every well-formed request must be answered within the deadline; at
 * the end every acknowledged event must be stored exactly once.
 */
import { EventLedger } from './event-ledger.js';
import { deliver } from './ingest-producer.js';
import type { PhaseTally } from './phase-tally.js';
import { Rng } from './rng.js';
import { SoakApi } from './soak-api.js';
import type { SoakDaemon } from './soak-daemon.js';
import { seededRuns } from './seed-store.js';
import { settleLedger } from './settle-ledger.js';
import type { SoakOptions } from './soak-options.js';

/** The flood's options, with the run's seed. */
export type FloodPlan = SoakOptions['flood'] & { seed: number };

const run = 'soak-flood';
const cgroup = '7101';

/**
 * Queries a user asks while producers ingest: each well-formed, each held to the deadline. `a` and
 * `b` are runs of the store that stay as they are (the seeded ones where there are).
 */
export function userQueries(run: string, [a, b] = seededRuns): string[] {
  return [
    `/v1/telemetry/events?run=${run}&limit=100`,
    `/v1/telemetry/events?run=${a}&type=secret_path`,
    `/v1/timeline?run=${a}&limit=50`,
    `/v1/signals?run=${a}`,
    `/v1/telemetry/windows?run=${run}`,
    `/v1/security/risks?run=${a}`,
    '/v1/health',
    '/v1/runs?limit=20',
    `/v1/observe/summary?run=${run}`,
    '/v1/telemetry/producer-health',
    `/v1/graph/verify?run=${b}`,
    '/v1/graph/keys',
    `/v1/graph/checkpoint?run=${a}`,
    `/v1/context/overview?run=${a}`,
    '/metrics',
  ];
}

/** Runs the flood phase against the shared daemon. */
export async function runFlood(daemon: SoakDaemon, plan: FloodPlan, tally: PhaseTally): Promise<void> {
  const token = (): string => daemon.token;
  const api = new SoakApi(() => daemon.port, token);
  await api.post('/v1/telemetry/bind', { run_id: run, tool_call_id: 'tc', cgroup_id: cgroup });
  const ledger = new EventLedger(run, `f${plan.seed}`);
  const until = Date.now() + plan.seconds * 1000;
  const queries = userQueries(run);

  const client = async (index: number): Promise<void> => {
    const rng = new Rng(plan.seed, `flood-${index}`);
    const own = new SoakApi(() => daemon.port, token);
    for (let n = 0; Date.now() < until; n++) {
      const origin = `flood seed=${plan.seed} client=${index} request=${n}`;
      if (rng.chance(0.5)) {
        const batch = ledger.batch(index, n, rng.between(100, 2000), cgroup);
        await deliver(own, ledger, batch, tally, { wellFormed: true, origin });
      } else {
        const request = own.getRequest(rng.pick(queries));
        const outcome = await own.send(request);
        const sent = { request, outcome, wellFormed: true, origin };
        const status = tally.count(sent);
        if (status === 0) own.client.close();
        // a 5xx is counted already; a 4xx to a query that is right is a failure of its own
        else if (status >= 400 && status < 500)
          tally.fail(
            sent,
            'query_refused',
            `${status} ${'answer' in outcome ? outcome.answer.body.subarray(0, 200).toString() : ''}`,
          );
      }
    }
    own.close();
  };
  await Promise.all(Array.from({ length: plan.clients }, (_v, i) => client(i)));
  await settleLedger(api, ledger, tally, 'flood');
  api.close();
}
