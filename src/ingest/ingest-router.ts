/**
 * The ingest router, on the main thread: bounds what is in flight (a full router answers 429),
 * cuts a body into slices at line ends, hands them to the normalize pool with their buffers
 * transferred, then asks the store actor to commit the whole request as one unit, and answers only
 * after the commit. Per-event work never happens here.
 */
import { webcrypto } from 'node:crypto';
import { join } from 'node:path';
import type { Piscina } from 'piscina';
import { rmSync } from 'node:fs';
import { isDiskFull, ProvdError } from '../shared/errors.js';
import { ByteBudget } from '../shared/http/body-budget.js';
import type { QueryClient } from '../shared/store-protocol.js';
import {
  maxIngestErrors,
  type BatchCommit,
  type IdempotencyClaim,
  type IngestAnswer,
  type IngestCommitResult,
} from '../telemetry/batch-commit.js';
import type { IngestFormat, LineError } from '../model/event.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import type { KillVerdict } from '../shared/event-verdict.js';
import type { NormalizeResult, NormalizeTask, TaskFormat } from './normalize.js';

/** Takes the kill decisions of normalized slices, before their commit (the security domain enforces them). */
export type KillListener = (kills: readonly KillVerdict[]) => void;

export interface IngestLimits {
  /** Bytes of request bodies in memory, from their first byte until answered; past it, 429. */
  maxInFlightBytes: number;
  /** The daemon's resident memory past which new body bytes are refused (429). */
  maxResidentBytes: number;
  /** Target slice size; slices end at a line end, so a slice may be longer by one line. */
  sliceBytes: number;
  /** How long a request may wait for its commit; past it the commit is rolled back and answered 503. */
  commitDeadlineMs: number;
}

export const defaultIngestLimits: IngestLimits = {
  maxInFlightBytes: 256 * 1024 * 1024,
  maxResidentBytes: 1024 * 1024 * 1024,
  sliceBytes: 1024 * 1024,
  commitDeadlineMs: 120_000,
};

/** After the deadline, how long to wait for the store's word that the commit was rolled back. */
const rollbackVerdictMs = 30_000;

/** Routes ingest bodies through the pool into the store. */
export class IngestRouter {
  private nextBatch = 0;
  private readonly batchPrefix = 'b' + Date.now().toString(36);
  /**
   * Ingest bodies in memory, from their first byte until they are answered: the HTTP server
   * reserves from it as a body arrives and answers 429 when it is full.
   */
  readonly budget: ByteBudget;

  constructor(
    private readonly pool: Piscina,
    private readonly store: QueryClient<TelemetryKinds>,
    private readonly spoolDir: string,
    private readonly limits: IngestLimits = defaultIngestLimits,
    private readonly onKills: KillListener = () => undefined,
  ) {
    this.budget = new ByteBudget({
      heldBytes: limits.maxInFlightBytes,
      residentBytes: limits.maxResidentBytes,
    });
  }

  /** Requests answered 429 since the daemon started (their lines were never read). */
  get refusedRequests(): number {
    return this.budget.refusedRequests;
  }

  /** Bytes of ingest bodies received or being normalized or committed, not yet answered. */
  get queuedBytes(): number {
    return this.budget.heldBytes;
  }

  /**
   * Normalizes and commits one NDJSON body, all of it or none. The body's bytes were reserved in
   * `budget` by the HTTP server as they arrived. With an idempotency key, a body sent before under
   * the same key is answered as it was then and stored once.
   */
  async ingest(
    body: Uint8Array,
    format: IngestFormat,
    idempotencyKey: string | null,
  ): Promise<IngestCommitResult> {
    // before the body's buffer moves to the workers
    const idempotency = idempotencyKey === null ? null : await claim(idempotencyKey, format, body);
    return this.normalizeAndCommit(sliceAtLines(body, this.limits.sliceBytes), format, idempotency, false);
  }

  /**
   * Normalizes and commits one batch of raw sensor records (src/sensor/records.ts), as one slice:
   * the ring reader bounds a batch's size already. Its commit may `linger` for others to join it
   * (event-commit.sql.ts; a function is asked once the batch is normalized); one that does not takes
   * every lingering one along.
   */
  ingestSensorBatch(
    batch: Uint8Array,
    linger: boolean | (() => boolean) = true,
  ): Promise<IngestCommitResult> {
    return this.normalizeAndCommit([batch], 'sensor', null, linger);
  }

  /** Normalizes every slice in the pool, then commits them all as one unit. */
  private async normalizeAndCommit(
    slices: Uint8Array[],
    format: TaskFormat,
    idempotency: IdempotencyClaim | null,
    linger: boolean | (() => boolean),
  ): Promise<IngestCommitResult> {
    const batchId = `${this.batchPrefix}-${(this.nextBatch++).toString(36)}`;
    const ingestedNs = BigInt(Date.now()) * 1_000_000n;
    const results = await settleAll(
      slices.map((bytes, index) => {
        const sliceId = `${batchId}-${index}`;
        const task: NormalizeTask = {
          bytes,
          format,
          batchId: sliceId,
          file: join(this.spoolDir, `${sliceId}.csv`),
          ingestedNs,
        };
        return this.pool.run(task, {
          transferList: [bytes.buffer as ArrayBuffer],
        }) as Promise<NormalizeResult>;
      }),
    );
    // before the commit: a command provd runs is stopped as soon as its kill decision is known
    const kills = results.flatMap((result) => result.kills);
    if (kills.length > 0) this.onKills(kills);
    const commit = {
      batches: results.map(toBatchCommit),
      answer: summarize(batchId, results),
      idempotency,
      linger: typeof linger === 'function' ? linger() : linger,
    };
    return await this.store.queryJson('commit', commit, {
      deadlineMs: this.limits.commitDeadlineMs,
      verdictMs: rollbackVerdictMs,
    });
  }
}

/**
 * Cuts `body` into owned slices of about `sliceBytes`, each ending at a line end, so every slice's
 * buffer can be transferred on its own. A body that fits in one slice is passed through uncopied.
 */
export function sliceAtLines(body: Uint8Array, sliceBytes: number): Uint8Array[] {
  if (body.length <= sliceBytes && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength)
    return [body];
  const slices: Uint8Array[] = [];
  let start = 0;
  while (start < body.length) {
    let end = start + sliceBytes >= body.length ? body.length : body.indexOf(10, start + sliceBytes);
    end = end === -1 ? body.length : end + (end < body.length ? 1 : 0);
    slices.push(new Uint8Array(body.subarray(start, end))); // a copy: Buffer#slice would be a view
    start = end;
  }
  return slices;
}

/**
 * Every slice's result; when one failed, the rows files the others wrote are removed (nothing will
 * commit them) and the failure is thrown, a full disk as PROVD_ERR_STORE_DISK_FULL.
 */
async function settleAll(tasks: Promise<NormalizeResult>[]): Promise<NormalizeResult[]> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed === undefined)
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<NormalizeResult>).value);
  for (const outcome of settled)
    if (outcome.status === 'fulfilled' && outcome.value.file !== null)
      rmSync(outcome.value.file, { force: true });
  const reason: unknown = failed.reason;
  const message = reason instanceof Error ? reason.message : String(reason);
  if (isDiskFull(message))
    throw new ProvdError('PROVD_ERR_STORE_DISK_FULL', `failed to write rows files: ${message}`, {
      cause: reason,
    });
  throw reason;
}

/** What the store needs of a task's result (everything but what only the answer uses). */
function toBatchCommit(result: NormalizeResult): BatchCommit {
  const { lines: _lines, rejected: _rejected, errors: _errors, kills: _kills, ...batch } = result;
  return batch;
}

/** The key with the digest of what it was sent with: sha256 over the body, hashed off the main thread. */
async function claim(key: string, format: IngestFormat, body: Uint8Array): Promise<IdempotencyClaim> {
  const digest = Buffer.from(await webcrypto.subtle.digest('SHA-256', body)).toString('hex');
  return { key, digest: `${format}:sha256:${digest}` };
}

/** Adds the slices up, numbering error lines across the whole body. */
function summarize(batchId: string, results: NormalizeResult[]): IngestAnswer {
  const errors: LineError[] = [];
  let lineOffset = 0;
  let accepted = 0;
  let rejected = 0;
  let pending = 0;
  for (const result of results) {
    for (const error of result.errors) {
      if (errors.length < maxIngestErrors) errors.push({ ...error, line: error.line + lineOffset });
    }
    lineOffset += result.lines;
    accepted += result.accepted;
    rejected += result.rejected;
    pending += result.pending;
  }
  return {
    schema_version: 'provenance.ingest/v1',
    batch_id: batchId,
    accepted,
    rejected,
    pending,
    errors,
    errors_truncated: errors.length < rejected,
  };
}
