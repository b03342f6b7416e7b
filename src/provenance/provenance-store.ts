/**
 * The provenance domain on the store thread: the graph's queries (verify, and later explain,
 * timeline, summary, records, keys), registered with the store actor as one module. The telemetry
 * commits store each batch's digest (seal-batches.ts); the checkpoint rounds seal and sign them.
 */
import type { QueryHandlers, StoreContext, StoreModule } from '../store/store-module.js';
import type { ProvenanceQueries } from './provenance-queries.js';
import { latestCheckpoint } from './checkpoint.query.js';
import { Checkpointer } from './checkpoints.js';
import { listKeys } from './keys.query.js';
import { assertToolCallFree, writeRecord } from './record/record-store.js';
import { stopSealing } from './seal-batches.js';
import { sealLegacyRuns } from './seal-legacy.js';
import { loadSigningKey } from './signing-key.js';
import type { EventRecheck } from './verify-events.js';
import { keepVerifyResult, verifyRun, type RunCheck } from './verify.query.js';
import { VerifyLog } from './verify-log.js';
import { log } from '../shared/log.js';
import { classifyStoreError } from '../store/store-error.js';

/** What the provenance module needs to start. */
export interface ProvenanceStoreInit {
  /** The ed25519 private key (PEM file) checkpoints are signed with; checked by the daemon at start. */
  signingKeyFile: string;
  /** False only under PROVD_FAULT_NO_SEALING: no event_batch objects, no checkpoints. */
  sealing: boolean;
}

/** What other domains lend the provenance module, wired by the store worker. */
export interface ProvenanceDeps {
  /** Recomputes an event's hash from its stored row (the telemetry domain owns the event format). */
  eventRecheck: EventRecheck;
  /** Checks of what other domains tie to the run's events (the policy's decisions and kills). */
  runChecks: readonly RunCheck[];
}

/** Starts the provenance module on an open, migrated store. */
export async function startProvenanceStore(
  context: StoreContext,
  init: ProvenanceStoreInit,
  deps: ProvenanceDeps,
): Promise<StoreModule> {
  const { writer, writes } = context;
  await sealLegacyRuns(writer, writes);
  const key = loadSigningKey(init.signingKeyFile);
  const checkpointer = new Checkpointer(writer, writes, key);
  if (init.sealing) checkpointer.start();
  else {
    stopSealing();
    log('warn', 'PROVD_FAULT_NO_SEALING is set: events are stored unsealed and no checkpoint is signed');
  }
  /** Waits for the sealing round, so what is read next covers everything committed before; writes nothing itself. */
  const sealedFirst = (): Promise<void> => (init.sealing ? checkpointer.sealed() : Promise.resolve());
  const verifyLog = new VerifyLog();
  const queries: QueryHandlers<ProvenanceQueries> = {
    verify: async (params) => {
      const sealedAtNs = BigInt(Date.now()) * 1_000_000n;
      await sealedFirst();
      const result = await verifyRun(context.reader(), params, deps.eventRecheck, deps.runChecks, sealedAtNs);
      // kept for the summary (a log of the read, never evidence: nothing to seal, so it does not
      // count as a write the sealing round follows), at most once a second a run for the same
      // outcome; failing to keep it does not fail the verify
      if (verifyLog.due(result))
        await writes
          .run(() => keepVerifyResult(writer, result), { housekeeping: true })
          .catch((error: unknown) =>
            log('warn', 'keeping a verify result failed', { error: classifyStoreError(error) }),
          );
      return JSON.stringify(result);
    },
    keys: () => listKeys(context.reader(), key),
    checkpoint: async (params) => {
      await sealedFirst();
      return latestCheckpoint(context.reader(), params);
    },
    recordFree: async (params) => {
      await assertToolCallFree(context.reader(), params);
      return '{}';
    },
    record: async (params) => JSON.stringify(await writes.run(() => writeRecord(writer, params))),
  };
  return {
    name: 'provenance',
    queries,
    // the batches committed since the last round, sealed and signed before the store closes
    flush: async () => {
      if (init.sealing) await writes.run(() => checkpointer.writeDue(null));
    },
    stop: () => checkpointer.stop(),
  };
}
