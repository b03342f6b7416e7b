/**
 * What normalize workers hand the store for one slice of an ingest body, and the unit the store
 * commits: one whole ingest request, all of its slices or none of them.
 */
import type { tags } from 'typia';
import type { EventVerdict } from '../shared/event-verdict.js';
import type { Count } from '../shared/schema/wire-types.js';
import type { LineError } from '../model/event.js';
import type { CounterDelta } from './counter-delta.js';
import type { ReportedGap } from './reported-gap.js';

/** Digest of the events one batch adds to a run (null: the batch's spooled events). */
export interface BatchDigest {
  runId: string | null;
  events: number;
  merkleRoot: string;
  /** The policy's decisions on those events, and the Merkle root over their leaves (decision-leaf.ts). */
  judged: number;
  judgmentRoot: string;
}

/** One normalized slice, ready to commit: its rows file and what it adds to digests, decisions and counters. */
export interface BatchCommit {
  batchId: string;
  /** Rows file to load, or null when no line of the slice was accepted. */
  file: string | null;
  accepted: number;
  pending: number;
  pendingBytes: number;
  digests: BatchDigest[];
  counters: CounterDelta[];
  /** Loss the producers reported, recorded as coverage gaps with the events. */
  gaps: ReportedGap[];
  /** The policy's decisions on events of the batch, stored with them. */
  verdicts: EventVerdict[];
  /** The worker replica's binding count; the store re-checks pending rows if it holds more. */
  bindingVersion: number;
  /** When the request was received: spooled rows are given up as unclaimed a TTL after it. */
  ingestedNs: bigint;
}

/** Most rejected lines one ingest answer lists; the rest are only counted. */
export const maxIngestErrors = 100;

/** The answer to POST /v1/telemetry/ingest once its body is committed (`provenance.ingest/v1`). */
export interface IngestAnswer {
  schema_version: 'provenance.ingest/v1';
  /** Identifier of the request's batch; event ids start with it. */
  batch_id: string;
  accepted: Count;
  rejected: Count;
  /** Accepted events that found no binding yet and wait in the spool. */
  pending: Count;
  /** The first rejected lines, by line number in the body. */
  errors: LineError[] & tags.MaxItems<typeof maxIngestErrors>;
  /** True when more lines were rejected than `errors` lists. */
  errors_truncated: boolean;
}

/** An Idempotency-Key and the digest of the request it was first sent with. */
export interface IdempotencyClaim {
  key: string;
  /** sha256 of the format and the body: the same key with another body is refused. */
  digest: string;
}

/** One ingest request for the store: every slice commits, or none does. */
export interface IngestCommit {
  batches: BatchCommit[];
  /** The answer as the slices make it; the commit lowers `pending` by what bindings settled at once. */
  answer: IngestAnswer;
  idempotency: IdempotencyClaim | null;
  /**
   * True when nobody waits on the answer (sensor batches): the commit may wait a little for others
   * to join it (event-commit.sql.ts: lingerMs), as a commit costs DuckDB ~10 ms whatever its size.
   */
  linger: boolean;
}

/** What the store answers a commit with: the answer, or the first answer given for the same key. */
export interface IngestCommitResult {
  answer: IngestAnswer;
  /** True when the key was seen before: nothing new was stored. */
  replayed: boolean;
}
