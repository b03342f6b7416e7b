/**
 * At start, before this daemon's sensor runs: a sensor mark left by the daemon before
 * (src/sensor/sensor-mark.ts) says it was killed while its sensor ran, and what that sensor had read
 * and not committed is recorded as a coverage gap (telemetry/unclean-stop.sql.ts); then the mark goes.
 */
import { log } from '../shared/log.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { readLeftSensorMark, removeSensorMark, type SensorMark } from '../sensor/sensor-mark.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';

/**
 * Records the gap a left mark says. Never throws: a start goes on when the mark cannot be read or the
 * gap stored, and says so in the log (this daemon's sensor then writes its own mark over it).
 */
export async function reportUncleanStop(store: QueryClient<TelemetryKinds>, dataDir: string): Promise<void> {
  let mark: SensorMark | null;
  let gap: { start_ns: string; end_ns: string };
  try {
    mark = readLeftSensorMark(dataDir);
    if (mark === null) return;
    const foundNs = (BigInt(Date.now()) * 1_000_000n).toString();
    gap = await store.queryJson('uncleanStop', { ...mark, found_ns: foundNs }, { deadlineMs: 60_000 });
  } catch (error) {
    log('error', 'the sensor mark of the daemon before could not be read or its gap stored', {
      error: error instanceof Error ? error.message : String(error),
    });
    return;
  }
  log(
    'warn',
    'the daemon before was killed while its sensor ran: what it had read and not stored is a coverage gap',
    {
      pid: mark.pid,
      kind: 'sensor_unclean_stop',
      ...gap,
    },
  );
  removeSensorMark(dataDir);
}
