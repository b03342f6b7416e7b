/**
 * Where an export puts its files: `host=<host>/date=<YYYY-MM-DD>/run=<run>/<table>.parquet`, the
 * Hive layout Spark, Trino, ClickHouse and DuckDB read as partition columns. Values are
 * percent-encoded as Spark escapes partition paths, so no run id can climb out of its directory.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/** The partition value of events tied to no run (a real run named `_none` is written `%5Fnone`). */
export const noRunPartition = '_none';

/** The bundle's file names: one Parquet file per stored table, and the JSON beside them. */
export const bundleFiles = {
  events: 'events.parquet',
  objects: 'objects.parquet',
  heads: 'heads.parquet',
  checkpoints: 'checkpoints.parquet',
  artifacts: 'artifacts.parquet',
  keys: 'keys.json',
  manifest: 'manifest.json',
} as const;

/** The DSSE envelope of manifest.json, signed by the daemon (export-manifest.ts); no manifest lists it. */
export const manifestEnvelopeFile = 'manifest.dsse.json';

/**
 * The longest encoded partition value kept whole: with `host=` or `run=` in front, a segment stays
 * under the 255 bytes a file name may have (a 256-character run id made the export fail with
 * ENAMETOOLONG).
 */
export const maxPartitionValueBytes = 200;

/**
 * A partition value as a path segment: letters, digits, `.`, `-` and a `_` that does not lead stay;
 * every other byte is %XX (UTF-8). `.` alone cannot climb: the segment is always `name=value`. A value
 * whose encoding passes maxPartitionValueBytes is cut (never inside a %XX) and ends with `~` and 32
 * hex digits of the SHA-256 of the whole value: `~` is always encoded, so no other value's segment
 * looks like it, and two long values part in their digests.
 */
export function partitionValue(value: string): string {
  let encoded = '';
  const ends: number[] = [];
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    const kept = /[A-Za-z0-9.-]/.test(char) || (char === '_' && encoded !== '');
    encoded += kept ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    ends.push(encoded.length);
  }
  if (encoded === '') return '%00';
  if (encoded.length <= maxPartitionValueBytes) return encoded;
  const digest = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32);
  const room = maxPartitionValueBytes - digest.length - 1;
  const cut = ends.filter((end) => end <= room).pop() ?? 0;
  return `${encoded.slice(0, cut)}~${digest}`;
}

/** The directory (relative, `/`-separated) of one run's, or the unbound events', files of a day. */
export function partitionDir(host: string, date: string, run: string | null): string {
  const runValue = run === null ? noRunPartition : partitionValue(run);
  return `host=${partitionValue(host)}/date=${date}/run=${runValue}`;
}

/**
 * The host name an export is partitioned by: `--host-name`, else the machine's, lower-cased and
 * cut to letters, digits, `.`, `-` and `_` (the rest become `_`), at most 253 characters.
 */
export function exportHostName(flag: string | undefined): string {
  const name = (flag ?? hostname())
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '_')
    .slice(0, 253);
  return name === '' || /^\.+$/.test(name) ? 'unknown-host' : name;
}
