/**
 * The `run_id` of host verification's VerifyResult: host events belong to no run. Without SQL, so
 * the route (on the main thread, and in every CLI process through the endpoint list) loads no DuckDB.
 */
export const hostScope = 'host';
