/**
 * The producer counters' source for rejected lines, which have no trustworthy source. A file of its
 * own, without SQL: the metrics text and the ingest tally read it without loading the store's code
 * (and DuckDB) into their threads.
 */
export const unknownSource = 'unparsed';
