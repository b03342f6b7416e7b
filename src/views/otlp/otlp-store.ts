/**
 * The OTLP export's part of the store thread: it answers which runs wait, a run's next page as
 * JSON text (the exporter thread parses it; the main thread only passes it on), and moves the
 * cursor once a page was acknowledged. It reads sealed evidence and writes only its own cursor
 * and the `otlp` producer counters (GET /metrics, producer health).
 */
import { jsonText } from '../../store/json-text.js';
import type { KindsOf, NoParams, StoreContext } from '../../store/store-module.js';
import type { StartedModule, StoreModuleSpec } from '../../store/store-modules.js';
import type { OtlpAck } from './otlp-page.js';
import { ackOtlpPage, countOtlpFailure, pendingOtlpRuns, readOtlpPage } from './otlp-page.sql.js';

/** What the module needs: the telemetry module's fold, which reads token usage from TLS bodies. */
export interface OtlpNeeds {
  catchUpRollup: () => Promise<void>;
}

function otlpHandlers(context: StoreContext, { catchUpRollup }: OtlpNeeds) {
  return {
    otlpPending: async (params: { limit: number }) =>
      jsonText(await pendingOtlpRuns(context.reader(), params.limit)),
    otlpPage: async (params: { run: string }) => {
      await catchUpRollup(); // the run's token usage is read with it, behind the commits
      return jsonText(await context.snapshot((connection) => readOtlpPage(connection, params.run)));
    },
    // housekeeping: the cursor is no evidence, so its writes start no sealing round
    otlpAck: async (ack: OtlpAck) => {
      await context.writes.run(() => ackOtlpPage(context.writer, ack), { housekeeping: true });
      return jsonText({});
    },
    otlpFailed: async (_: NoParams) => {
      await context.writes.run(() => countOtlpFailure(context.writer), { housekeeping: true });
      return jsonText({});
    },
  };
}

/** The OTLP export's kinds. */
export type OtlpKinds = KindsOf<ReturnType<typeof otlpHandlers>>;

/** The OTLP export's store module: it needs the telemetry module's fold, gives and lends nothing. */
export const otlpModule = {
  name: 'otlp',
  participants: {},
  start: (context: StoreContext, needs: OtlpNeeds): StartedModule<Record<string, never>> => ({
    queries: otlpHandlers(context, needs),
    lends: {},
  }),
} satisfies StoreModuleSpec<OtlpNeeds, Record<string, never>, Record<string, never>>;
