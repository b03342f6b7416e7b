/**
 * The store query kinds of the provenance domain: the main thread sends them through its
 * StoreClient; their kind map, ProvenanceKinds, is read from these handlers' types.
 */
import { log } from '../shared/log.js';
import { jsonText } from '../store/json-text.js';
import { classifyStoreError } from '../store/store-error.js';
import type { NoParams, KindsOf, StoreContext } from '../store/store-module.js';
import { latestCheckpoint, type CheckpointParams } from './checkpoint.sql.js';
import type { Checkpointer } from './checkpoints.sql.js';
import { listKeys } from './keys.sql.js';
import {
  assertToolCallFree,
  writeRecord,
  type RecordWrite,
  type ToolCallKey,
} from './record/record-store.sql.js';
import type { HookWrite } from './hooks/hook-store.sql.js';
import { HookBatcher } from './hooks/hook-batcher.js';
import {
  writeWatchEnd,
  writeWatchStart,
  type WatchEndWrite,
  type WatchStartWrite,
} from './watch/watch-store.sql.js';
import type { SigningKey } from './signing-key.js';
import { VerifyLog } from './verify-log.js';
import { keepVerifyResult, type VerifyParams } from './verify.sql.js';
import { RunVerifier } from './run-verifier.js';
import type { HostVerifier } from './host/host-verifier.js';
import type { EventRecheck } from './verify-events.sql.js';
import type { RunCheck } from './verify.sql.js';
import type { RecordToolCallDecision } from './hooks/tool-call-decision.js';

/** What the provenance handlers answer with, made by the module at start. */
export interface ProvenanceParts {
  key: SigningKey;
  /** The key attestations are signed with: `key`, or a P-256 key of their own. */
  attestationKey: SigningKey;
  checkpointer: Checkpointer;
  /** False only under PROVD_FAULT_NO_SEALING. */
  sealing: boolean;
  hostVerifier: HostVerifier;
}

/** The params of the `verifyHost` store query: `full` checks every host event again. */
export interface VerifyHostParams {
  full?: boolean;
}

/** What other domains give the provenance module: how to recheck their parts of a run. */
export interface ProvenanceDeps {
  /** Recomputes an event's hash from its stored row (the telemetry domain owns the event format). */
  eventRecheck: EventRecheck;
  /** Checks of what other domains tie to the run's events (the policy's decisions and kills). */
  runChecks: readonly RunCheck[];
  /**
   * Ties the run's events since `sinceNs` to its hook tool calls, after one was stored (the telemetry
   * domain's events); in the write queue.
   */
  tieHookToolCalls: (runId: string, sinceNs: bigint) => Promise<void>;
  /** Stores a PreToolUse's decision where the policy's decisions are read (the security domain's), in the hook's transaction. */
  recordToolCallDecision: RecordToolCallDecision;
}

/** The provenance domain's handlers, by kind. */
export function provenanceHandlers(context: StoreContext, parts: ProvenanceParts, deps: ProvenanceDeps) {
  const { writer, writes } = context;
  /** Waits for the sealing round, so what is read next covers everything committed before; writes nothing itself. */
  const sealedFirst = (): Promise<void> => (parts.sealing ? parts.checkpointer.sealed() : Promise.resolve());
  const verifyLog = new VerifyLog();
  // a batch's tool calls tie the events committed before them (the commits tie those that come after)
  const hookBatcher = new HookBatcher(writer, writes, deps.tieHookToolCalls, deps.recordToolCallDecision);
  const runVerifier = new RunVerifier({
    snapshot: (body) => context.snapshot(body),
    changes: () => writes.changes,
    sealedFirst,
    recheck: deps.eventRecheck,
    runChecks: deps.runChecks,
  });
  return {
    // sealed first and in one snapshot, kept while nothing changed, one run at a time (run-verifier.ts)
    verify: async (params: VerifyParams) => {
      const result = await runVerifier.verify(params.run);
      // kept for the summary (a log of the read, never evidence: nothing to seal, so it does not
      // count as a write the sealing round follows), at most once a second a run for the same
      // outcome; failing to keep it does not fail the verify
      if (verifyLog.due(result))
        await writes
          .run(() => keepVerifyResult(writer, result), { housekeeping: true })
          .catch((error: unknown) =>
            log('warn', 'keeping a verify result failed', { error: classifyStoreError(error) }),
          );
      return jsonText(result);
    },
    // in one snapshot (a host round, a commit or a binding between two of its reads made verify-host
    // report tampering on a store nobody touched), and only what changed since the last call
    verifyHost: async (params: VerifyHostParams) =>
      jsonText(await parts.hostVerifier.verify(params.full === true)),
    keys: (_: NoParams) => listKeys(context.reader(), parts.key, parts.attestationKey),
    checkpoint: async (params: CheckpointParams) => {
      await sealedFirst();
      return latestCheckpoint(context.reader(), params);
    },
    // POST /v1/record: the check before a command runs, and the write after
    recordFree: async (params: ToolCallKey) => {
      await assertToolCallFree(context.reader(), params);
      return jsonText<NoParams>({});
    },
    record: async (params: RecordWrite) => jsonText(await writes.run(() => writeRecord(writer, params))),
    // POST /v1/hooks/{agent}: one hook event; a SessionEnd seals its run with a checkpoint
    // (grouped with the hook events queued beside it into one transaction: hook-batcher.ts)
    hook: async (params: HookWrite) => {
      const written = await hookBatcher.store(params);
      if (params.kind === 'session_end' && parts.sealing)
        await writes.run(() => parts.checkpointer.writeDue([params.run_id]));
      return jsonText(written);
    },
    // provd watch (src/agents/watch/): the start claims the run; the end seals it with a checkpoint
    watchStart: async (params: WatchStartWrite) =>
      jsonText({ object_hash: await writes.run(() => writeWatchStart(writer, params)) }),
    watchEnd: async (params: WatchEndWrite) => {
      const objectHash = await writes.run(() => writeWatchEnd(writer, params));
      if (parts.sealing) await writes.run(() => parts.checkpointer.writeDue([params.run_id]));
      return jsonText({ object_hash: objectHash });
    },
  };
}

/** The provenance domain's kinds: params and result of each, from its handler. */
export type ProvenanceKinds = KindsOf<ReturnType<typeof provenanceHandlers>>;
