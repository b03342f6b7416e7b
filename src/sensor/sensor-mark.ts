/**
 * The sensor's mark in the data dir (`sensor.running`): written once the sensor runs, removed after a
 * clean stop stored what it had read. A mark found at start says the daemon before was killed while
 * its sensor ran (SIGKILL, a crash), so what it had read and not committed is lost: the start records
 * that as a coverage gap (telemetry/unclean-stop.sql.ts) before this daemon's sensor writes its own.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The mark's file name in the data dir. */
export const sensorMarkFileName = 'sensor.running';

/** Whose sensor ran: the daemon's pid and when its sensor started (Unix ns, decimal). */
export interface SensorMark {
  pid: number;
  started_ns: string;
}

/**
 * The mark a daemon before this one left, or null after a clean stop. A mark that cannot be read
 * still says the daemon was killed: it is dated by its file's change time, with pid 0.
 */
export function readLeftSensorMark(dataDir: string): SensorMark | null {
  const path = join(dataDir, sensorMarkFileName);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const mark = JSON.parse(text) as Partial<SensorMark>;
    if (Number.isSafeInteger(mark.pid) && /^[0-9]{1,19}$/.test(String(mark.started_ns)))
      return { pid: mark.pid!, started_ns: String(mark.started_ns) };
  } catch {
    // a mark cut short by the kill: it still says the daemon did not stop cleanly
  }
  return { pid: 0, started_ns: statSync(path, { bigint: true }).ctimeNs.toString() };
}

/** Marks this daemon's sensor as running. */
export function writeSensorMark(dataDir: string, mark: SensorMark): void {
  writeFileSync(join(dataDir, sensorMarkFileName), JSON.stringify(mark), { mode: 0o600 });
}

/** Removes the mark: the sensor stopped, and what it read is stored (or recorded as lost). */
export function removeSensorMark(dataDir: string): void {
  rmSync(join(dataDir, sensorMarkFileName), { force: true });
}
