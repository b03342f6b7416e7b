/**
 * The values of @duckdb/node-api (its classes, type constants and value constructors), loaded with
 * `require`. Imported as an ES module, Node 20 first lexes each of the package's CommonJS files for
 * its export names (cjs-module-lexer, every re-export followed): 280 ms of CPU on the store thread
 * of every daemon start against 120 ms for `require`. Its types still come from the package
 * (`import type`); only the store thread loads this file (test/shared/worker-imports.test.ts).
 */
import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';

const require = createRequire(import.meta.url);
const duckdb = require('@duckdb/node-api') as typeof DuckDB;

export const DuckDBInstance = duckdb.DuckDBInstance;
export type DuckDBInstance = DuckDB.DuckDBInstance;
/** A value DuckDB binds or reads, and a column's type: for the domains, which import no DuckDB type of their own. */
export type DuckDBValue = DuckDB.DuckDBValue;
export type DuckDBType = DuckDB.DuckDBType;
export const { JSDuckDBValueConverter, LIST, listValue, blobValue } = duckdb;
export const { BIGINT, BLOB, BOOLEAN, DOUBLE, INTEGER, UTINYINT, VARCHAR } = duckdb;
