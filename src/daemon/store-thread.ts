/**
 * The store thread as the daemon starts it: what workers/store.worker.ts is given (declared there,
 * so the worker imports nothing of the daemon), and the query kinds its modules answer, so the main
 * thread's client is typed by every domain's list.
 */
import type { ProvenanceKinds } from '../provenance/provenance-kinds.js';
import type { SecurityKinds } from '../security/security-kinds.js';
import type { ProvdError } from '../shared/errors.js';
import type { StoreOpenState } from '../shared/store-protocol.js';
import type { StoreKinds } from '../store/store-health.js';
import { StoreClient } from '../store/store-client.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import type { ExportKinds } from '../views/export/export-store.js';
import type { OtlpKinds } from '../views/otlp/otlp-store.js';
import type { ViewsKinds } from '../views/views-kinds.js';
import type { StoreThreadData } from '../../workers/store.worker.js';

/** Every query kind the store thread answers. */
export type DaemonQueries = StoreKinds &
  TelemetryKinds &
  ProvenanceKinds &
  SecurityKinds &
  ViewsKinds &
  ExportKinds &
  OtlpKinds;

/** Starts the store thread; resolves once it opened (or failed to open) the database. */
export function startStoreThread(
  data: StoreThreadData,
  onUnexpectedExit: (error: ProvdError) => void,
): Promise<{ client: StoreClient<DaemonQueries>; state: StoreOpenState }> {
  return StoreClient.start<DaemonQueries>(data, onUnexpectedExit);
}
