/**
 * The fields of rows files (csv-rows.sql.ts reads them with DuckDB's CSV reader): strings quoted
 * with U+001E, nulls empty and unquoted. Pure, so the normalize workers that write the files do not
 * load DuckDB.
 */
/** The quote of every string field. */
export const csvQuote = '\u001e';

/**
 * A quoted CSV string that DuckDB reads back byte for byte (newlines included). Its reader drops
 * one U+FEFF (a BOM) at the start of any value, so a value starting with one gets a second in front
 * to be dropped. Tests (test/telemetry/event-row.test.ts, test/security/decisions.test.ts) hold
 * hostile strings to this through the real reader.
 */
export function csvText(value: string | null): string {
  if (value === null) return '';
  const quoted = value.includes(csvQuote)
    ? `${csvQuote}${value.replaceAll(csvQuote, csvQuote + csvQuote)}${csvQuote}`
    : `${csvQuote}${value}${csvQuote}`;
  return value.charCodeAt(0) === 0xfeff ? `${csvQuote}\ufeff${quoted.slice(1)}` : quoted;
}

/** An integer field, empty for null. */
export function csvInt(value: number | bigint | null): string {
  return value === null ? '' : String(value);
}
