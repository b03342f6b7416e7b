// Entry point of the store thread: the one owner of the DuckDB instance (src/store/store-actor.ts).
// The domains' store modules are wired here, explicitly.
import { parentPort, workerData } from 'node:worker_threads';
import type { StoreThreadData } from '../src/daemon/store-thread.js';
import { startProvenanceStore } from '../src/provenance/provenance-store.js';
import {
  insertVerdicts,
  settleDecisions,
  rollupFolds,
  startSecurityStore,
  verifyPolicyLinks,
} from '../src/security/security-store.js';
import { serveStoreActor } from '../src/store/store-actor.js';
import { announceThread } from '../src/shared/thread-id.js';
import {
  rehashStoredEvent,
  storedEventColumns,
  storedEventContentSql,
} from '../src/telemetry/stored-event-hash.js';
import { startTelemetryStore } from '../src/telemetry/telemetry-store.sql.js';
import { startViewsStore } from '../src/views/views-store.js';

if (parentPort === null) throw new Error('store.worker must run as a worker thread');
announceThread('store');
const data = workerData as StoreThreadData;
await serveStoreActor(parentPort, data.store, async (context) => {
  const telemetry = await startTelemetryStore(context, data.telemetry, {
    recordVerdicts: insertVerdicts,
    settleDecisions,
    rollupFolds,
  });
  return [
    telemetry,
    await startProvenanceStore(context, data.provenance, {
      eventRecheck: {
        columns: storedEventColumns,
        contentSql: storedEventContentSql,
        rehash: rehashStoredEvent,
      },
      runChecks: [verifyPolicyLinks],
    }),
    startSecurityStore(context, {
      catchUpRollup: () => telemetry.catchUpRollup(),
      endSeq: () => telemetry.endSeq(),
    }),
    startViewsStore(context, {
      catchUpRollup: () => telemetry.catchUpRollup(),
      unfoldedFrom: () => telemetry.unfoldedFrom(),
      endSeq: () => telemetry.endSeq(),
      places: telemetry.places,
    }),
  ];
});
