/** Times as a person reads them: UTC, a space for the `T`, milliseconds, no zone letter. */

// RFC 3339 in UTC as the daemon writes it (any fraction, or none)
const utcInstant = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/;

/**
 * `2026-06-29T10:00:05.123456789Z` as `2026-06-29 10:00:05.123` (the column header says UTC);
 * another offset is converted to UTC; null is `-`; a text that is no time is shown as sent.
 */
export function utcTime(time: string | null | undefined): string {
  if (time === null || time === undefined) return '-';
  const match = utcInstant.exec(time);
  if (match !== null) return `${match[1]} ${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}`;
  const instant = new Date(time);
  if (Number.isNaN(instant.getTime())) return time;
  return instant.toISOString().replace('T', ' ').replace(/Z$/, '');
}
