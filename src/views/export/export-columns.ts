/**
 * The events columns an export writes: every stored column as stored (so a bundle's events can be
 * rehashed and sealed again exactly as verify does), then the codes' names and a timestamp, so a
 * fleet engine can group by type or evidence level without provd's code tables.
 */
import { correlationMethods, evidenceLevels } from '../../model/codes.js';
import { eventSources, eventTypes } from '../../model/event.js';

/** `[names][code + 1]`: the name of a stored code, from code constants only. */
const named = (column: string, names: readonly string[]): string =>
  `[${names.map((name) => `'${name}'`).join(', ')}][${column} + 1]`;

/** SELECT list over `events` (code constants only, never input). */
export const exportedEventColumns = [
  '*',
  `${named('type', eventTypes)} AS type_name`,
  `${named('source', eventSources)} AS source_name`,
  `${named('evidence_level', evidenceLevels)} AS evidence_level_name`,
  `${named('corr_method', correlationMethods)} AS correlation_method`,
  // microseconds: the precision every Parquet reader maps to its timestamp type
  'make_timestamp(time_ns // 1000) AS event_time',
].join(', ');

/** The UTC day of an events row's capture time, as a partition value (YYYY-MM-DD). */
export const eventDateSql = `strftime(make_timestamp(time_ns // 1000), '%Y-%m-%d')`;

/** A path as a SQL string literal (paths here are the daemon's own, under its data dir). */
export function pathLiteral(path: string): string {
  return `'${path.replaceAll("'", "''")}'`;
}
