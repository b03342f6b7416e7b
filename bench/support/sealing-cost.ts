/**
 * What sealing costs ingest: the ingest benchmark's workload (45 of 50 runs bound, so ~90% of the
 * events are sealed into their runs' event_batch chains and checkpointed each second) posted to a
 * fresh daemon with sealing on, and to one with PROVD_FAULT_NO_SEALING=1, in alternating rounds so
 * a noisy neighbour slows both alike. Each round's rate is the events it committed per second.
 */
import { makeDataDir, removeDir, startDaemon } from '../../test/support/daemon.js';
import { discardDaemon } from './discard-daemon.js';
import { HttpClient, postBodies } from './ingest-http.js';
import { renderChunks, workloadEpochS, workloadRuns } from './ingest-workload.js';

/** Events per second of each round, per mode. */
export interface SealingCost {
  sealed: number[];
  unsealed: number[];
}

const ingestPath = '/v1/telemetry/ingest?format=native';
const chunkBytes = 4 * 1024 * 1024;
const spanS = 240;
const inFlight = 3;

/** Ingests `events` once per mode per round; throws when a request fails. */
export async function measureSealingCost(events: number, rounds: number): Promise<SealingCost> {
  const runs = workloadRuns(50, 45);
  const chunks = [...renderChunks(runs, { seed: 1, events, startS: workloadEpochS, spanS }, chunkBytes)];
  const warmup = [
    ...renderChunks(runs, { seed: 2, events: 20_000, startS: workloadEpochS, spanS }, chunkBytes),
  ];
  const cost: SealingCost = { sealed: [], unsealed: [] };
  for (let round = 0; round < rounds; round++) {
    // the order flips every round, so neither mode always runs first
    const modes = round % 2 === 0 ? (['unsealed', 'sealed'] as const) : (['sealed', 'unsealed'] as const);
    for (const mode of modes) {
      const dataDir = makeDataDir();
      const daemon = await startDaemon({
        dataDir,
        env: mode === 'unsealed' ? { PROVD_FAULT_NO_SEALING: '1' } : {},
      });
      const client = new HttpClient(daemon.url, inFlight + 1);
      try {
        for (const run of runs.filter((candidate) => candidate.bound))
          await client.postJson('/v1/telemetry/bind', {
            run_id: run.runId,
            tool_call_id: run.toolCallId,
            cgroup_id: run.cgroupId,
          });
        await postBodies(client, ingestPath, warmup.values(), 2);
        const posted = await postBodies(client, ingestPath, chunks.values(), inFlight);
        if (posted.failures.length > 0) throw new Error(`ingest (${mode}) failed: ${posted.failures[0]}`);
        cost[mode].push(Math.round((posted.accepted * 1000) / posted.elapsedMs));
      } finally {
        client.close();
        await discardDaemon(daemon);
        removeDir(dataDir);
      }
    }
  }
  return cost;
}
