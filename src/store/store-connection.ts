/**
 * A connection to the store's one DuckDB instance, as the domains' store code is handed it. Only
 * src/store names DuckDB's own types (test/shared/thread-roles.test.ts): a domain's *.sql.ts file
 * takes this, so which thread owns the database reads in its imports.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** A connection of the store thread's DuckDB instance. */
export type StoreConnection = DuckDBConnection;
