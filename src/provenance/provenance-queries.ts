/**
 * The store query kinds of the provenance domain, with their params and results: the main thread
 * sends them through its StoreClient, provenance-store.ts answers them on the store thread.
 */
import type { QuerySpec } from '../shared/store-protocol.js';
import type { CheckpointParams } from './checkpoint.query.js';
import type { RecordWrite, RecordWritten, ToolCallKey } from './record/record-store.js';
import type { VerifyParams } from './verify.query.js';

export type ProvenanceQueries = {
  // These reply with their finished response bodies.
  verify: QuerySpec<VerifyParams, unknown>;
  keys: QuerySpec<Record<string, never>, unknown>;
  checkpoint: QuerySpec<CheckpointParams, unknown>;
  // POST /v1/record: the check before a command runs, and the write after
  recordFree: QuerySpec<ToolCallKey, Record<string, never>>;
  record: QuerySpec<RecordWrite, RecordWritten>;
};
