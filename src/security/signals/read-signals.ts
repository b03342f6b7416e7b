/**
 * GET /v1/signals in the store actor: a run's behaviour, cost, quality and security signals, each
 * with its basis. Everything is read from tables the size of the run's distinct values, not of its
 * events: the windows, the process rollup and the values folded in with it (signal-values.sql.ts,
 * llm-usage-values.sql.ts), tool calls, decisions' counts and gaps. The rollup is caught up first.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { readBehaviour } from './behaviour-signals.sql.js';
import { readCost } from './cost-signals.sql.js';
import { readQuality } from './quality-signals.sql.js';
import { readRunSpan, spanSignal } from './run-span.sql.js';
import { readSecurity } from './security-signals.sql.js';
import { signalBounds } from './signal-basis.js';
import type { Signals } from './signals.js';
import { readValueTotals } from './value-counts.sql.js';
import { readWindowCounts } from './window-counts.sql.js';
import { jsonText, type JsonText } from '../../store/json-text.js';

/** The params of the `signals` store query. */
export interface SignalsParams {
  run: string;
}

/** What the query needs of the store thread. */
export interface SignalsStore {
  /** Two read connections: the groups are read on both at once. */
  readers: readonly [StoreConnection, StoreConnection];
  /** Folds every committed event into the rollup the signals read. */
  catchUpRollup(): Promise<void>;
}

/** The Signals body of a run, as JSON text. */
export async function readSignals(store: SignalsStore, params: SignalsParams): Promise<JsonText<Signals>> {
  const { run } = params;
  const [one, two] = store.readers;
  await requireRun(one, run);
  await store.catchUpRollup();
  const [[span, windows], totals] = await Promise.all([
    Promise.resolve().then(
      async () => [await readRunSpan(one, run), await readWindowCounts(one, run)] as const,
    ),
    readValueTotals(two, run, ['file', 'destination', 'dns_name']),
  ]);
  const exits = windows.types.find((row) => row.type === 'process_exit')?.events ?? 0;
  // each connection answers one statement at a time: the groups go two by two
  const [[behaviour, security], [cost, quality]] = await Promise.all([
    Promise.resolve().then(async () => {
      const behaviour = await readBehaviour(one, run, { span, windows, totals });
      return [behaviour, await readSecurity(one, run, span)] as const;
    }),
    Promise.resolve().then(async () => {
      const cost = await readCost(two, run);
      return [cost, await readQuality(two, run, exits)] as const;
    }),
  ]);
  const answer: Signals = {
    schema_version: 'provenance.signals/v1',
    run_id: run,
    span: spanSignal(span),
    behaviour,
    cost,
    quality,
    security,
    bounds: signalBounds,
  };
  return jsonText(answer);
}
