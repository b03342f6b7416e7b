/**
 * The longest row DuckDB's reader takes from our files, in bytes. Its default (2,000,000) is less
 * than a row some 1 MiB lines make (a Tetragon exec keeps its arguments both as text and split), and
 * a row over the limit fails the whole commit; what writes rows keeps them under it (ingest refuses
 * a line whose event would not fit: parse-ndjson.ts). A larger limit costs nothing measurable on
 * rows of ordinary size (CPU and RSS of a 1,000,000-row load unchanged).
 */
export const maxCsvRowBytes = 5 * 1024 * 1024;
