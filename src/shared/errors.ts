/**
 * The one error registry: every failure provd raises or answers carries one of these stable codes.
 * `src/shared/errors.md` documents each code; a test keeps the two in step.
 */

/** Codes of local failures (logs, exit messages). Each names the area and what went wrong. */
export const localErrorCodes = {
  PROVD_ERR_CONFIG_INVALID: 'a command-line option or environment variable has a value provd cannot use',
  PROVD_ERR_UWS_NATIVE_MISSING:
    'the uWebSockets.js native binary did not load; provd refuses its JS fallback',
  PROVD_ERR_HTTP_LISTEN: 'the HTTP server could not listen on the requested address',
  PROVD_ERR_STORE_OPEN: 'the DuckDB database file could not be opened',
  PROVD_ERR_STORE_LOCKED: 'another process holds the database file',
  PROVD_ERR_STORE_FORMAT:
    'the database was written by a newer or incompatible store format; it is left untouched',
  PROVD_ERR_STORE_MIGRATE: 'a schema migration failed and was rolled back',
  PROVD_ERR_STORE_QUERY: 'a query in the store actor failed: a bug in provd, answered 500',
  PROVD_ERR_STORE_IO: 'the storage under the database failed (I/O, memory); answered 503',
  PROVD_ERR_STORE_DISK_FULL:
    'the disk under the data dir is full; answered 503 with Retry-After, and the store reopens once space returns',
  PROVD_ERR_STORE_TIMEOUT: 'the store actor did not answer within the deadline',
  PROVD_ERR_STORE_STOPPED: 'the store actor is closed or its thread exited',
  PROVD_ERR_CLI_UNREACHABLE: 'the CLI could not reach the daemon over HTTP',
  PROVD_ERR_CLI_TOO_LARGE:
    "the daemon's answer was larger than the CLI reads (an export over the daemon's own cap, a JSON answer over 256 MiB)",
  PROVD_ERR_CLI_USAGE:
    'a command was given an argument it cannot use (an unknown AI tool, an --input that is not a JSON object)',
  PROVD_ERR_NORMALIZE_POOL: 'the normalize worker threads failed or did not stop cleanly',
  PROVD_ERR_EXPORT_ARCHIVE:
    'an export archive is malformed or holds an entry provd refuses to extract (absolute path, "..", link)',
  PROVD_ERR_EXPORT_EXISTS: 'provd export refused to overwrite a file that already exists under --out',
  PROVD_ERR_EXPORT_LINK:
    'provd export refused to write through a link (or a non-directory) it found under --out',
  PROVD_ERR_HOOKS_SETTINGS:
    "provd hooks refused an agent's settings file it cannot read as JSON or TOML (the file is left untouched)",
  PROVD_ERR_HOOK_SOCKET:
    'the hook socket could not be made at <data dir>/hooks.sock (a file that is not a socket is there, or the native addon that reads peer credentials is missing)',
  PROVD_ERR_HOST_CHAIN_DIVERGED:
    'the stored host digests differ from those the host chain signed: the host round signs and removes nothing (logged)',
} as const;

/** Codes carried in HTTP error bodies, with the status each one answers. */
export const wireErrorCodes = {
  invalid_argument: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  run_not_found: 404,
  method_not_allowed: 405,
  tool_call_exists: 409,
  run_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  backpressure: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type LocalErrorCode = keyof typeof localErrorCodes;
export type WireErrorCode = keyof typeof wireErrorCodes;

/** An error as it crosses threads or the wire: plain data, compared by `code`, never by `instanceof`. */
export interface ErrorData {
  code: LocalErrorCode | WireErrorCode;
  message: string;
}

/** A provd failure with a stable code, a message naming the failed step, and the underlying cause. */
export class ProvdError extends Error {
  readonly code: LocalErrorCode | WireErrorCode;

  constructor(code: LocalErrorCode | WireErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProvdError';
    this.code = code;
  }

  toData(): ErrorData {
    return { code: this.code, message: this.message };
  }
}

/** Local codes that mean the store cannot serve now (503), as opposed to a bug in provd (500). */
const unavailableCodes: ReadonlySet<LocalErrorCode | WireErrorCode> = new Set<LocalErrorCode>([
  'PROVD_ERR_STORE_OPEN',
  'PROVD_ERR_STORE_LOCKED',
  'PROVD_ERR_STORE_FORMAT',
  'PROVD_ERR_STORE_IO',
  'PROVD_ERR_STORE_DISK_FULL',
  'PROVD_ERR_STORE_TIMEOUT',
  'PROVD_ERR_STORE_STOPPED',
]);

/** True when a local failure means "the store is unavailable" (answered 503), not a bug. */
export function isUnavailable(code: LocalErrorCode | WireErrorCode): boolean {
  return unavailableCodes.has(code);
}

/** True when a failure's message says the disk is full (ENOSPC from Node, DuckDB's "No space left on device"). */
export function isDiskFull(message: string): boolean {
  return /ENOSPC|No space left on device|disk is full/i.test(message);
}

/** True for codes that may appear in an HTTP error body. */
export function isWireErrorCode(code: string): code is WireErrorCode {
  return Object.hasOwn(wireErrorCodes, code);
}

/** Turns any thrown value into error data, keeping a ProvdError's code and mapping the rest to `fallback`. */
export function toErrorData(error: unknown, fallback: LocalErrorCode | WireErrorCode): ErrorData {
  if (error instanceof ProvdError) return error.toData();
  const message = error instanceof Error ? error.message : String(error);
  return { code: fallback, message };
}
