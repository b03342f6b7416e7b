// Entry point of the store thread: the one owner of the DuckDB instance (src/store/store-actor.ts).
// It lists the domains' store modules; what they give one another is declared by each of them,
// and what they are started with is its workerData, declared here (src/daemon/store-thread.ts sends it).
import { parentPort, workerData } from 'node:worker_threads';
import { provenanceModule, type ProvenanceStoreInit } from '../src/provenance/provenance-store.js';
import { securityModule } from '../src/security/security-store.js';
import { serveStoreActor, type StoreInit } from '../src/store/store-actor.js';
import { storeModules } from '../src/store/store-modules.js';
import { announceThread } from '../src/shared/thread-id.js';
import { telemetryModule, type TelemetryStoreInit } from '../src/telemetry/telemetry-store.sql.js';
import { exportModule, type ExportStoreInit } from '../src/views/export/export-store.js';
import { otlpModule } from '../src/views/otlp/otlp-store.js';
import { viewsModule } from '../src/views/views-store.js';

/** The `workerData` of the store thread: the store's own, and each domain module's init. */
export interface StoreThreadData {
  store: StoreInit;
  telemetry: TelemetryStoreInit;
  provenance: ProvenanceStoreInit;
  exports: ExportStoreInit;
}

if (parentPort === null) throw new Error('store.worker must run as a worker thread');
announceThread('store');
const data = workerData as StoreThreadData;
await serveStoreActor(
  parentPort,
  data.store,
  storeModules(
    [telemetryModule, provenanceModule, securityModule, viewsModule, exportModule, otlpModule],
    data,
  ),
);
