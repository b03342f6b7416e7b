/**
 * What a failed store query means for its caller. DuckDB reports every failure as an Error whose
 * message starts with its kind: storage trouble (I/O, memory, an invalidated database) makes the
 * store unavailable (503), anything else is a bug in provd (500), never the client's fault.
 */
import { isDiskFull, ProvdError, type ErrorData } from '../shared/errors.js';

// DuckDB's error kinds that mean the storage itself failed, not the statement
const storageFailure = /^(IO|Out of Memory|FATAL|Permission) Error\b|database has been invalidated/i;

/** Error data for a failure inside the store actor, classified by what the caller should do. */
export function classifyStoreError(error: unknown): ErrorData {
  if (error instanceof ProvdError) return error.toData();
  const message = error instanceof Error ? error.message : String(error);
  if (isDiskFull(message))
    return { code: 'PROVD_ERR_STORE_DISK_FULL', message: `the disk is full: ${message}` };
  if (storageFailure.test(message))
    return { code: 'PROVD_ERR_STORE_IO', message: `storage failed: ${message}` };
  return { code: 'PROVD_ERR_STORE_QUERY', message: `a store query failed: ${message}` };
}

/**
 * True when DuckDB gave up on the open database after a fatal error (a failed checkpoint or WAL
 * write, e.g. on a full disk): every later statement fails until the database is opened again.
 */
export function isInvalidated(message: string): boolean {
  return /database has been invalidated|FATAL Error/i.test(message);
}
