/**
 * Group commit of ingest requests, in the store actor. Requests that arrive while a commit runs
 * wait and go into the next one together: one INSERT over all their row files (DuckDB reads them on
 * its own threads), one windows merge, one transaction. Bigger commits under load are what keep the
 * rate up: measured here, 10k-row commits load at ~140k rows/s, 200k-row commits at ~370k.
 *
 * A request is the unit: all of its slices commit in one transaction or none do. When a group fails,
 * its requests are retried one by one, so one request's failure never fails another. A request whose
 * caller gave up (its signal aborts) is rolled back before COMMIT, never left to land behind a 503.
 */
import { rmSync } from 'node:fs';
import type { StoreConnection } from '../store/store-connection.js';
import { BIGINT, VARCHAR } from '../store/duckdb-api.js';
import { ProvdError } from '../shared/errors.js';
import { log } from '../shared/log.js';
import { classifyStoreError } from '../store/store-error.js';
import { execute, inTransaction, list, raw, sql, type Statement } from '../store/sql.js';
import type { WriteQueue } from '../store/write-queue.js';
import type { EventVerdict } from '../shared/event-verdict.js';
import type { BatchCommit, IngestAnswer, IngestCommit, IngestCommitResult } from './batch-commit.js';
import { csvSource } from '../store/csv-rows.sql.js';
import { eventRowColumns } from './event-row.js';
import { loaderOrLocaleOpen } from './loader-opens.sql.js';
import type { IngestLedger, LedgerEntry } from './ingest-ledger.sql.js';
import { insertDigests } from '../provenance/seal-batches.sql.js';
import { addCounters } from './producer-counters.sql.js';
import { recordReportedGaps } from './reported-gaps.sql.js';
import { countWindows } from './window-upsert.sql.js';
import { StepTrace } from '../store/step-trace.js';

/** The read_csv call for row files (event-row.ts), as a table source. */
export function eventRowsSource(files: readonly string[]): Statement {
  return csvSource(files, eventRowColumns);
}

/** One request waiting for, or in, a commit. */
interface Unit {
  commit: IngestCommit;
  signal: AbortSignal;
  rows: number;
  /** When it arrived (performance.now()). */
  arrivedMs: number;
  /** Set after its group failed: it is retried in a transaction of its own. */
  alone: boolean;
  resolve: (result: IngestCommitResult) => void;
  reject: (error: unknown) => void;
}

/** What one unit of a group came to. */
type Outcome = { ok: IngestCommitResult } | { error: unknown };

/** What the committer calls into around a commit (the bindings and the spool). */
export interface CommitHooks {
  /**
   * Inside the transaction, after the rows are in (at `fromSeq` and later): settles what lagging
   * replicas left pending; returns how many rows of each batch.
   */
  settleLagging(batches: readonly BatchCommit[], fromSeq: bigint): Promise<Map<string, number>>;
  /** After COMMIT: the batches and what stays pending of each. */
  committed(batches: readonly BatchCommit[], settled: ReadonlyMap<string, number>): Promise<void>;
  /**
   * Inside the transaction: stores the policy's decisions on the batches' events (the security
   * domain), each with its event's position (`seqs[i]` is `verdicts[i]`'s).
   */
  recordVerdicts(verdicts: readonly EventVerdict[], seqs: readonly bigint[]): Promise<void>;
  /**
   * After COMMIT, in the same turn of the write queue (nothing reads or folds them in between): ties
   * the events the commit put at [fromSeq, toSeq) (the batches' and what settled) to the hook tool
   * calls of their runs (tool-call-tie.sql.ts), in a transaction of its own, so that a failed tie
   * never costs a commit its events. Never rejects: a failure is logged, the events keep their binding.
   */
  tieToolCalls?(
    batches: readonly BatchCommit[],
    settled: boolean,
    fromSeq: bigint,
    toSeq: bigint,
  ): Promise<void>;
  /** Inside the transaction: the events of batch `batchId` were put at seq [seqFrom, seqTo) (explain's batch places). */
  placed?(batchId: string, seqFrom: bigint, seqTo: bigint): void;
}

/** Fault injection for tests (PROVD_FAULT_*): a slow commit, and a crash between COMMIT and the answer. */
export interface CommitFaults {
  stallMs: number;
  killAfterCommit: boolean;
}

/** Most rows one group takes; the rest wait for the next. A bigger request still goes, alone. */
const maxRowsPerCommit = 1_000_000;
/**
 * How long commits nobody waits on (IngestCommit.linger: the sensor's batches) wait for others to
 * join them, and how many rows make them go at once. Each commit costs DuckDB ~10 ms of CPU whatever
 * its size: a sensor batch every 100 ms committed alone cost a daemon beside a shell loop of
 * `/bin/true; sleep 0.05` 9% of a core; lingering 1 s, a watched loop's daemon still spent 5.1-6.5%
 * (bench capture-cpu), 4.4-4.9% at 3 s, and 3.43% (2.93-3.83) at 3 s against 2.90% (2.80-2.93) at
 * 5 s once the sensor folded locale opens. A commit anyone waits on takes every lingering one along
 * (a watch's end: Sensor.storePending), and a flood reaches lingerRows long before: only ordinary
 * rates wait the whole time. What a kill leaves lingering is a coverage gap at the next start
 * (unclean-stop.sql.ts).
 */
const lingerMs = 5000;
const lingerRows = 10_000;
/**
 * How long a unit whose events all wait in the spool lingers (a host's own activity, nobody's run
 * yet): no run shows them before a binding claims them, and a binding that comes meanwhile settles
 * them in their commit (CommitHooks.settleLagging). At a quiet host's rates the commit, not the
 * events, is the cost.
 */
const spooledLingerMs = 5000;

/** Serializes commits of ingest requests and assigns `seq` in commit order. */
export class EventCommitter {
  private readonly waiting: Unit[] = [];
  private running = false;
  private draining: Promise<void> = Promise.resolve();
  private lingering: NodeJS.Timeout | undefined;
  /** Set by flush: nothing lingers any more. */
  private flushing = false;
  private readonly trace = new StepTrace('commit');

  constructor(
    private readonly connection: StoreConnection,
    private readonly writes: WriteQueue,
    private nextSeq: bigint,
    private readonly ledger: IngestLedger,
    private readonly hooks: CommitHooks,
    private readonly faults: CommitFaults = { stallMs: 0, killAfterCommit: false },
  ) {}

  /** Resolves once the request is committed (or replayed); rejects when it was not stored at all. */
  commit(commit: IngestCommit, signal: AbortSignal): Promise<IngestCommitResult> {
    return new Promise((resolve, reject) => {
      const rows = commit.batches.reduce((sum, batch) => sum + batch.accepted, 0);
      this.waiting.push({
        commit,
        signal,
        rows,
        arrivedMs: performance.now(),
        alone: false,
        resolve,
        reject,
      });
      if (!this.running) this.startDrain();
    });
  }

  /** Commits what waits, lingering or not, and resolves once nothing waits (the store is closing). */
  async flush(): Promise<void> {
    this.flushing = true;
    while (this.waiting.length > 0 || this.running) {
      if (!this.running) this.startDrain();
      await this.draining;
    }
  }

  /** The next position to be handed out: nothing is stored at or beyond it. */
  get endSeq(): bigint {
    return this.nextSeq;
  }

  /** Allocates `count` positions, for events that join a run outside a batch commit. */
  allocateSeq(count: number): bigint {
    const first = this.nextSeq;
    this.nextSeq += BigInt(count);
    return first;
  }

  private startDrain(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.draining = this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const wait = this.lingerFor();
      if (wait > 0) {
        this.lingering = setTimeout(() => {
          if (!this.running) this.startDrain();
        }, wait);
        break;
      }
      const group = this.takeGroup();
      if (group.length === 0) continue;
      // commitGroup answers every unit itself; anything escaping it is answered here, so no caller hangs
      await this.writes
        .run(() => this.commitGroup(group), { leftWork: (sealable) => sealable })
        .catch((error: unknown) => {
          for (const unit of group) this.finish(unit, { error });
        });
    }
    this.running = false;
  }

  /** How long the waiting units may still linger (0: a group goes now). */
  private lingerFor(): number {
    let rows = 0;
    let dueMs = Infinity;
    for (const unit of this.waiting) {
      if (!unit.commit.linger || unit.alone || unit.signal.aborted || this.flushing) return 0;
      rows += unit.rows;
      dueMs = Math.min(dueMs, unit.arrivedMs + (isSpooledOnly(unit.commit) ? spooledLingerMs : lingerMs));
    }
    if (rows >= lingerRows) return 0;
    return Math.max(0, Math.ceil(dueMs - performance.now()));
  }

  /** The next group: a unit marked `alone` by itself, else units up to the row bound; cancelled ones are answered. */
  private takeGroup(): Unit[] {
    const group: Unit[] = [];
    let rows = 0;
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (next.signal.aborted) {
        this.finish(this.waiting.shift()!, { error: notStored() });
        continue;
      }
      if (group.length > 0 && (next.alone || rows + next.rows > maxRowsPerCommit)) break;
      group.push(this.waiting.shift()!);
      rows += next.rows;
      if (next.alone) break;
    }
    return group;
  }

  /**
   * Commits a group and answers its units; when it fails, answers the cancelled ones and requeues the
   * rest. Resolves whether it may have left the seal rounds work: digests of a run, or settled rows
   * (a group of spooled host activity alone leaves none).
   */
  private async commitGroup(group: Unit[]): Promise<boolean> {
    const phase = { statements: false };
    // a long statement is interrupted when a caller gives up; COMMIT and ROLLBACK never are
    const onAbort = (): void => {
      if (phase.statements) this.connection.interrupt();
    };
    for (const unit of group) unit.signal.addEventListener('abort', onAbort);
    try {
      const { outcomes, deferred, sealable } = await this.runGroup(group, phase);
      group.forEach((unit, i) => {
        const outcome = outcomes[i];
        if (outcome !== undefined) this.finish(unit, outcome);
      });
      this.waiting.unshift(...deferred);
      if (this.faults.killAfterCommit) process.kill(process.pid, 'SIGKILL');
      return sealable;
    } catch (error) {
      const cancelled = group.filter((unit) => unit.signal.aborted);
      for (const unit of cancelled) this.finish(unit, { error: notStored() });
      const rest = group.filter((unit) => !unit.signal.aborted);
      if (cancelled.length === 0 && group.length === 1) {
        this.finish(group[0]!, { error });
        return true;
      }
      // nothing of the group was stored: retry the others, one by one unless only a cancellation failed it
      if (cancelled.length === 0) {
        log('warn', 'a group commit failed: its requests are retried one by one', {
          requests: group.length,
          error: classifyStoreError(error),
        });
        for (const unit of rest) unit.alone = true;
      }
      this.waiting.unshift(...rest);
      return true;
    } finally {
      for (const unit of group) unit.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * One transaction over the group. Resolves once committed with each unit's outcome (undefined for
   * units deferred to the next group), or throws with nothing stored.
   */
  private async runGroup(
    group: readonly Unit[],
    phase: { statements: boolean },
  ): Promise<{ outcomes: (Outcome | undefined)[]; deferred: Unit[]; sealable: boolean }> {
    const seqBase = this.nextSeq;
    this.trace.begin();
    let done: Awaited<ReturnType<EventCommitter['writeGroup']>>;
    try {
      done = await inTransaction(this.connection, async () => {
        phase.statements = true;
        try {
          return await this.writeGroup(group, seqBase);
        } finally {
          phase.statements = false;
        }
      });
    } catch (error) {
      this.nextSeq = seqBase; // nothing of this group, nor any settlement in it, was committed
      throw error;
    }
    // committed: what follows only updates totals in memory, and must never pass for a rollback
    await this.trace
      .time('spool_totals', () => this.hooks.committed(done.batches, done.settled))
      .catch((error: unknown) =>
        log('warn', 'after a commit, the spool totals could not be updated', {
          error: classifyStoreError(error),
        }),
      );
    const settledAny = [...done.settled.values()].some((count) => count > 0);
    if (this.hooks.tieToolCalls !== undefined && (done.batches.some(holdsRunEvents) || settledAny)) {
      const toSeq = this.nextSeq;
      await this.trace.time('tool_calls', () =>
        this.hooks.tieToolCalls!(done.batches, settledAny, seqBase, toSeq),
      );
    }
    this.trace.end({
      rows: done.batches.reduce((sum, batch) => sum + batch.accepted, 0),
      requests: group.length,
    });
    const deferred = group.filter((_unit, i) => done.outcomes[i] === undefined);
    const sealable =
      done.batches.some((batch) => batch.digests.some((digest) => digest.runId !== null)) ||
      [...done.settled.values()].some((count) => count > 0);
    return { outcomes: done.outcomes, deferred, sealable };
  }

  /** The statements of one group's transaction; throws when a unit was cancelled, so the caller rolls back. */
  private async writeGroup(group: readonly Unit[], seqBase: bigint) {
    const trace = this.trace;
    const { outcomes, fresh } = await trace.time('idempotency', () => this.claimKeys(group));
    const batches = fresh.flatMap((unit) => unit.commit.batches);
    const loads = batches.filter((batch) => batch.file !== null);
    if (loads.length > 0)
      await trace.time('insert', () => execute(this.connection, insertEvents(loads, seqBase)));
    // advance now: settling spooled rows later in this transaction takes positions after these
    this.nextSeq = seqBase + BigInt(loads.reduce((sum, batch) => sum + batch.accepted, 0));
    // only run events are counted in windows: a commit of spooled rows alone (a host's own activity)
    // skips the statement, about 3 ms of a small commit even with nothing to count
    if (loads.some(holdsRunEvents))
      await trace.time('windows', () => countWindows(this.connection, seqBase, this.nextSeq));
    // a batch's loaded rows sit at [base, base + accepted), in row order, as insertEvents placed them
    const loadBases = batchBases(loads, seqBase);
    const bases = new Map(loads.map((batch, i) => [batch, loadBases[i]!]));
    const digests = batches.flatMap((batch) => {
      const seqFrom = bases.get(batch) ?? seqBase;
      const seqTo = seqFrom + BigInt(batch.file === null ? 0 : batch.accepted);
      return batch.digests.map((digest) => ({ ...digest, batchId: batch.batchId, seqFrom, seqTo }));
    });
    await trace.time('digests', () => insertDigests(this.connection, digests));
    for (const { batchId, seqFrom, seqTo } of digests) this.hooks.placed?.(batchId, seqFrom, seqTo);
    await trace.time('counters', () =>
      addCounters(
        this.connection,
        batches.flatMap((batch) => batch.counters),
      ),
    );
    await trace.time('gaps', () =>
      recordReportedGaps(
        this.connection,
        batches.flatMap((batch) => batch.gaps),
      ),
    );
    // an event's id is `<batch id>.<index in batch>`, and its row sits at the batch's base + index
    const judged = loads.flatMap((batch) =>
      batch.verdicts.map((verdict) => ({ verdict, base: bases.get(batch)! })),
    );
    await trace.time('decisions', () =>
      this.hooks.recordVerdicts(
        judged.map(({ verdict }) => verdict),
        judged.map(
          ({ verdict, base }) => base + BigInt(verdict.eventId.slice(verdict.eventId.lastIndexOf('.') + 1)),
        ),
      ),
    );
    const settled = await trace.time('settle_lagging', () => this.hooks.settleLagging(batches, seqBase));
    const claims: LedgerEntry[] = [];
    for (const unit of fresh) {
      const answer = settledAnswer(unit.commit, settled);
      outcomes[group.indexOf(unit)] = { ok: { answer, replayed: false } };
      if (unit.commit.idempotency !== null) claims.push({ ...unit.commit.idempotency, answer });
    }
    await trace.time('idempotency', () => this.ledger.record(claims));
    if (this.faults.stallMs > 0) {
      log('info', 'fault: a commit stalls', { ms: this.faults.stallMs });
      await new Promise((resolve) => setTimeout(resolve, this.faults.stallMs));
    }
    if (group.some((unit) => unit.signal.aborted)) throw notStored();
    return { outcomes, batches, settled };
  }

  /**
   * Idempotency, per unit of the group: a key stored before replays its answer when the body is the
   * same and is refused when it is not; a key claimed earlier in this group defers the unit to the
   * next group, where it replays; the rest commit (`fresh`). Outcomes of fresh units come later.
   */
  private async claimKeys(
    group: readonly Unit[],
  ): Promise<{ outcomes: (Outcome | undefined)[]; fresh: Unit[] }> {
    const keys = group.flatMap((unit) =>
      unit.commit.idempotency === null ? [] : [unit.commit.idempotency.key],
    );
    const stored = await this.ledger.lookup(keys);
    const claimedHere = new Set<string>();
    const fresh: Unit[] = [];
    const outcomes: (Outcome | undefined)[] = [];
    for (const unit of group) {
      const claim = unit.commit.idempotency;
      const first = claim === null ? undefined : stored.get(claim.key);
      if (claim !== null && first !== undefined) {
        outcomes.push(
          first.digest === claim.digest
            ? { ok: { answer: first.answer, replayed: true } }
            : { error: keyReused(claim.key) },
        );
      } else if (claim !== null && claimedHere.has(claim.key)) {
        outcomes.push(undefined);
      } else {
        if (claim !== null) claimedHere.add(claim.key);
        fresh.push(unit);
        outcomes.push(undefined);
      }
    }
    return { outcomes, fresh };
  }

  /** Answers a unit and removes its rows files: it is done, stored or not. */
  private finish(unit: Unit, outcome: Outcome): void {
    for (const batch of unit.commit.batches) if (batch.file !== null) rmSync(batch.file, { force: true });
    if ('ok' in outcome) unit.resolve(outcome.ok);
    else unit.reject(outcome.error);
  }
}

/**
 * Whether every event of `commit` waits in the spool. The sensor's loss reports do too: their gaps
 * reach the store (and health) within spooledLingerMs, however often they come.
 */
function isSpooledOnly(commit: IngestCommit): boolean {
  return !commit.batches.some(holdsRunEvents);
}

/** Whether some event of `batch` joined a run at once (the rest wait in the spool). */
function holdsRunEvents(batch: BatchCommit): boolean {
  return batch.pending < batch.accepted;
}

/** The request's answer with `pending` lowered by what lagging settlement placed at once. */
function settledAnswer(commit: IngestCommit, settled: ReadonlyMap<string, number>): IngestAnswer {
  const placed = commit.batches.reduce((sum, batch) => sum + (settled.get(batch.batchId) ?? 0), 0);
  return { ...commit.answer, pending: commit.answer.pending - placed };
}

/** What the INSERT needs of a loaded batch: its rows file, how many rows, its id and when it came. */
export interface RowsLoad {
  file: string | null;
  accepted: number;
  batchId: string;
  ingestedNs: bigint;
}

// the row file's columns that go into events as they are (idx and hash are rewritten)
const copied = eventRowColumns.map(([name]) => name).filter((name) => name !== 'idx' && name !== 'hash');

/**
 * One INSERT over every rows file: each row's id is `<batch id>.<idx>`, its position the batch's
 * base plus idx, its hash the row's hex digest as `sha256:<hex>`, and whether it is a loader or
 * locale open judged over the row's type, attrs and judged (the views hide those by default).
 */
export function insertEvents(loads: readonly RowsLoad[], seqBase: bigint): Statement {
  const bases = batchBases(loads, seqBase);
  const files = loads.map((batch) => batch.file!);
  return sql`INSERT INTO events (id, seq, ingested_ns, hash, loader_locale, ${raw(copied.join(', '))})
    SELECT f.batch || '.' || r.idx, f.base + r.idx, f.ingested_ns, 'sha256:' || r.hash, ${loaderOrLocaleOpen},
      ${raw(copied.map((name) => `r.${name}`).join(', '))}
    FROM ${eventRowsSource(files)} r
    JOIN (SELECT unnest(${list(files, VARCHAR)}) AS name, unnest(${list(bases, BIGINT)}) AS base,
            unnest(${list(
              loads.map((batch) => batch.batchId),
              VARCHAR,
            )}) AS batch, unnest(${list(
              loads.map((batch) => batch.ingestedNs),
              BIGINT,
            )}) AS ingested_ns) f
      ON r.filename = f.name`;
}

/** Where each loaded batch's rows start: one after another from `seqBase`, in load order. */
function batchBases(loads: readonly { accepted: number }[], seqBase: bigint): bigint[] {
  const bases: bigint[] = [];
  let base = seqBase;
  for (const batch of loads) {
    bases.push(base);
    base += BigInt(batch.accepted);
  }
  return bases;
}

function notStored(): ProvdError {
  return new ProvdError(
    'PROVD_ERR_STORE_TIMEOUT',
    'the commit did not finish before its deadline and was rolled back: nothing of the request was stored',
  );
}

function keyReused(key: string): ProvdError {
  return new ProvdError(
    'idempotency_key_reused',
    `Idempotency-Key ${JSON.stringify(key.slice(0, 64))} was first used with another body or format`,
  );
}
