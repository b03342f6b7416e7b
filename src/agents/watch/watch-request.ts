/**
 * The bodies of POST /v1/watch (start watching a stub's agent) and POST /v1/watch/end (it exited),
 * as TS types: typia makes them the OpenAPI schemas and their checks (unknown fields refused).
 */
import typia, { type tags } from 'typia';
import { SchemaContract } from '../../shared/schema/schema-contract.js';
import type { CleanText, Identifier, IntegerIn } from '../../shared/schema/wire-types.js';

/** The agents provd knows (src/agents/<name>/): what `--agent` accepts. */
export type WatchedAgent = 'claude' | 'codex' | 'gemini';

/** The nonce the stub holds in its environment: 64 hex digits. */
export type WatchNonce = string & tags.Pattern<'^[0-9a-f]{64}$'>;

/** Start watching: the run to create, the agent, the waiting stub and its nonce. */
export interface WatchRequest {
  /** A run no record, binding or object has named yet. */
  run_id: Identifier;
  /** Which agent runs (its hooks file the session under the same run); null: a command provd has no hooks for. */
  agent?: WatchedAgent | null;
  /** The pid of the waiting `provd watch` stub (watch-stub.ts). */
  pid: IntegerIn<1, 2147483647>;
  nonce: WatchNonce;
}

/** The agent exited: how, as the `provd watch` that started it saw it. */
export interface WatchEndRequest {
  run_id: Identifier;
  /** The same nonce as the start's: only the client that started the watch may end it. */
  nonce: WatchNonce;
  /** Its exit status, when it exited. */
  exit_code?: IntegerIn<0, 255> | null;
  /** The signal that ended it, by name (SIGTERM), when one did. */
  signal?: CleanText<1, 32> | null;
}

export const watchRequest = new SchemaContract<WatchRequest>(
  typia.json.schema<WatchRequest, '3.1'>(),
  typia.createValidateEquals<WatchRequest>(),
  'watch body',
);

export const watchEndRequest = new SchemaContract<WatchEndRequest>(
  typia.json.schema<WatchEndRequest, '3.1'>(),
  typia.createValidateEquals<WatchEndRequest>(),
  'watch end body',
);
