/**
 * The store actor: the one owner of the DuckDB instance in this process. It runs on its own thread
 * (workers/store.worker.ts), opens and migrates the database, starts the domains' store modules,
 * answers their queries by kind with serialized JSON bytes, and closes cleanly on request.
 */
import { existsSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from './duckdb-api.js';
import { isDiskFull, ProvdError, toErrorData, type ErrorData } from '../shared/errors.js';
import { log, logNow } from '../shared/log.js';
import type { StoreInbound, StoreOpenState, StoreOutbound, StoreRequest } from '../shared/store-protocol.js';
import { jsonText } from './json-text.js';
import { connectTo } from './database-of.js';
import { checkStoreHealth, unreadStoreReport, type StoreHealthReport } from './store-health.js';
import { applyMigrations, loadMigrations, type Migration } from './migrations.sql.js';
import { classifyStoreError, isInvalidated } from './store-error.js';
import type { HealthFacts, QueryHandler, StoreModule, StoreModuleFactory } from './store-module.js';
import { inspectFormat, listTables } from './store-format.js';
import { announceThreadsSince, listThreadIds } from '../shared/thread-id.js';
import { WriteQueue } from './write-queue.js';
import { blockThread } from '../shared/block-thread.js';

/** What the store thread is given when it starts. */
export interface StoreInit {
  dbPath: string;
  /** Fault injection for tests: block the store thread this long inside every readiness check. */
  healthStallMs: number;
}

interface OpenDatabase {
  instance: DuckDBInstance;
  /** Migrations and every write. */
  writer: DuckDBConnection;
  /** Readiness checks, so they never queue behind a write. */
  health: DuckDBConnection;
  /** Queries, taken in turn; they run on DuckDB's threads while writes go on. */
  readers: DuckDBConnection[];
  readOnly: boolean;
}

const encoder = new TextEncoder();

/** Least time between two attempts to reopen a database DuckDB gave up on. */
const reopenIntervalMs = 2000;

/**
 * DuckDB's memory limit (buffer cache, query memory; it spills to disk past it). At 512MB a flood of
 * 4 MiB ingest bodies peaked near 1 GB of RSS, most of it DuckDB's (`npm run bench:memory`); at 256MB
 * the peak is ~150 MB lower for the same commit rate.
 */
const storeMemoryLimit = '256MB';

/** Owns the database for the life of the store thread. */
export class StoreActor {
  private readonly migrations: Migration[] = loadMigrations();
  private database: OpenDatabase | undefined;
  private modules: StoreModule[] = [];
  private readonly handlers = new Map<string, QueryHandler<never, unknown>>();
  private readonly writes = new WriteQueue();
  /** Requests running now, by id: closing a connection under a running query deadlocks its thread. */
  private readonly running = new Map<number, { answer: Promise<string>; abort: AbortController }>();
  private nextReader = 0;
  private state: StoreOpenState = {
    status: 'failed',
    error: { code: 'PROVD_ERR_STORE_STOPPED', message: 'not opened yet' },
  };
  /** Set when DuckDB gave up on the open database (a full disk, an I/O error): why, until it reopens. */
  private lost: ErrorData | undefined;
  private reopening: Promise<void> | undefined;
  private nextReopenAt = 0;

  constructor(
    private readonly init: StoreInit,
    private readonly startModules: StoreModuleFactory,
  ) {
    this.handlers.set('health', async () => jsonText(await this.checkHealth()));
  }

  /**
   * Opens the database. An existing file is first probed read-only, so that a newer or foreign
   * store is never written to: it stays open read-only and health reports it.
   */
  async open(): Promise<StoreOpenState> {
    try {
      if (existsSync(this.init.dbPath)) {
        const probe = await openDatabase(this.init.dbPath, true);
        const verdict = await inspectFormat(probe.writer, this.migrations, await listTables(probe.writer));
        if (verdict.kind === 'incompatible') {
          this.database = probe;
          return this.incompatible(verdict.version, verdict.reason);
        }
        closeDatabase(probe);
      }
      this.database = await openDatabase(this.init.dbPath, false);
      const { writer } = this.database;
      const verdict = await inspectFormat(writer, this.migrations, await listTables(writer));
      if (verdict.kind === 'incompatible') return this.incompatible(verdict.version, verdict.reason);
      const pending = verdict.kind === 'empty' ? this.migrations : verdict.pending;
      // some migrations copy a table (013: the events): say why an upgraded store takes longer to open
      if (verdict.kind !== 'empty' && pending.length > 0)
        log('info', 'upgrading the store', {
          db: this.init.dbPath,
          migrations: pending.map((migration) => migration.version),
        });
      await applyMigrations(writer, pending);
      await this.startDomains(this.database);
      return (this.state = {
        status: 'ready',
        formatVersion: this.migrations.length,
        appliedMigrations: pending.map((migration) => migration.version),
      });
    } catch (error) {
      return (this.state = { status: 'failed', error: classifyOpenError(error) });
    }
  }

  private incompatible(version: number | null, reason: string): StoreOpenState {
    const message = `${this.init.dbPath}: ${reason}`;
    return (this.state = {
      status: 'incompatible',
      formatVersion: version,
      error: { code: 'PROVD_ERR_STORE_FORMAT', message },
    });
  }

  /** Starts the domains' modules and registers their queries; a kind declared twice is a bug. */
  private async startDomains(database: OpenDatabase): Promise<void> {
    this.modules = await this.startModules({
      writer: database.writer,
      writes: this.writes,
      reader: () => database.readers[this.nextReader++ % database.readers.length]!,
      snapshot: (body) => inSnapshot(database.instance, body),
      formatVersion: this.migrations.length,
      activeQueries: () => this.running.size,
    });
    for (const module of this.modules) {
      for (const [kind, handler] of Object.entries(module.queries)) {
        if (this.handlers.has(kind))
          throw new Error(`failed to register ${module.name}: query "${kind}" is taken`);
        this.handlers.set(kind, handler);
      }
    }
  }

  /** Answers one query with its serialized JSON result. */
  async handle(request: StoreRequest): Promise<Uint8Array> {
    const handler = this.handlers.get(request.kind);
    if (handler === undefined) throw this.unknownKind(request.kind);
    const abort = new AbortController();
    const answer = handler(request.params as never, { signal: abort.signal });
    this.running.set(request.id, { answer, abort });
    try {
      return encoder.encode(await answer);
    } catch (error) {
      this.noticeLoss(error);
      throw error;
    } finally {
      this.running.delete(request.id);
    }
  }

  /** After DuckDB invalidated the database, the store reopens it in the background, as soon as it can. */
  private noticeLoss(error: unknown): void {
    const data = classifyStoreError(error);
    if (!isInvalidated(data.message)) return;
    this.lost ??= data;
    void this.reopen();
  }

  /**
   * Closes the database DuckDB gave up on and opens it again: once space is back (or the device
   * answers), it replays its WAL and the store serves again, without a restart. At most one attempt
   * every `reopenIntervalMs`; until one succeeds, every query fails with the loss's code.
   */
  private reopen(): Promise<void> {
    if (this.lost === undefined || Date.now() < this.nextReopenAt) return this.reopening ?? Promise.resolve();
    this.reopening ??= (async () => {
      const database = await this.detach();
      if (database !== undefined) closeQuietly(database);
      const state = await this.open();
      this.nextReopenAt = Date.now() + reopenIntervalMs;
      if (state.status === 'ready') {
        log('info', 'store reopened after a storage failure', { db: this.init.dbPath, lost: this.lost });
        this.lost = undefined;
      } else if (state.status === 'failed') {
        this.lost = state.error;
      }
    })().finally(() => (this.reopening = undefined));
    return this.reopening;
  }

  /** The caller's deadline passed: writes that can still be rolled back are. */
  cancel(id: number): void {
    this.running.get(id)?.abort.abort();
  }

  private unknownKind(kind: string): ProvdError {
    if (this.lost !== undefined) {
      void this.reopen();
      return new ProvdError(this.lost.code, this.lost.message);
    }
    if (this.state.status !== 'ready') {
      return new ProvdError(
        'PROVD_ERR_STORE_STOPPED',
        `the store cannot answer: ${this.state.error.message}`,
      );
    }
    if (this.database === undefined) return new ProvdError('PROVD_ERR_STORE_STOPPED', 'the store is closed');
    return new ProvdError('PROVD_ERR_STORE_QUERY', `no query kind "${kind}"`);
  }

  /**
   * One readiness pass. A database DuckDB gave up on is reopened in the background (this check is
   * itself a running request the reopening waits for), so a later check sees it come back.
   */
  private async checkHealth(): Promise<StoreHealthReport> {
    if (this.init.healthStallMs > 0) {
      // tests wait on these lines, never on a guess of how long the stall takes to begin or end
      logNow('info', 'fault: the readiness check stalls', { ms: this.init.healthStallMs });
      blockThread(this.init.healthStallMs);
      logNow('info', 'fault: the readiness check resumes');
    }
    if (this.lost !== undefined) void this.reopen();
    const report = await this.inspectHealth();
    const error = report.database.error;
    if (this.lost === undefined && error !== undefined && isInvalidated(error.message)) {
      this.lost = error;
      void this.reopen();
    }
    return report;
  }

  private async inspectHealth(): Promise<StoreHealthReport> {
    if (this.database === undefined) {
      const error = this.lost ?? (this.state.status === 'ready' ? undefined : this.state.error);
      return unreadStoreReport({ ok: false, latency_ms: 0, ...(error && { error }) }, this.migrations.length);
    }
    return checkStoreHealth(this.database.health, this.migrations, (connection) =>
      this.healthFacts(connection),
    );
  }

  private async healthFacts(connection: DuckDBConnection): Promise<Partial<HealthFacts>> {
    const facts: Partial<HealthFacts> = {};
    for (const module of this.modules) Object.assign(facts, await module.healthFacts?.(connection));
    return facts;
  }

  /** Stops the modules and lets running work end; returns the database, no longer used. */
  private async detach(): Promise<OpenDatabase | undefined> {
    const database = this.database;
    this.database = undefined;
    for (const module of this.modules) module.stop?.();
    for (const kind of [...this.handlers.keys()]) if (kind !== 'health') this.handlers.delete(kind);
    this.modules = [];
    await Promise.allSettled([...this.running.values()].map((running) => running.answer));
    await this.writes.run(() => Promise.resolve()); // let a running write finish before the checkpoint
    return database;
  }

  /** Checkpoints (when writable) and closes; the actor answers nothing afterwards. */
  async close(): Promise<void> {
    await this.reopening;
    this.lost = undefined; // no more reopening
    for (const module of this.modules)
      await module.flush?.().catch((error: unknown) =>
        log('warn', `${module.name}: writing what it owed the store at close failed`, {
          error: classifyStoreError(error),
        }),
      );
    const database = await this.detach();
    if (database === undefined) return;
    try {
      if (!database.readOnly) await database.writer.run('CHECKPOINT');
    } finally {
      closeDatabase(database);
    }
  }
}

/** Serves the actor over a message port: the body of the store thread. */
export async function serveStoreActor(
  port: MessagePort,
  init: StoreInit,
  startModules: StoreModuleFactory,
): Promise<void> {
  const actor = new StoreActor(init, startModules);
  const post = (message: StoreOutbound, transfer: ArrayBuffer[] = []): void =>
    port.postMessage(message, transfer);
  const threadsBefore = listThreadIds();
  const state = await actor.open();
  announceThreadsSince(threadsBefore, 'duckdb');
  post({ type: 'opened', state });
  port.on('message', (message: StoreInbound) => {
    if (message.type === 'cancel') return actor.cancel(message.id);
    if (message.type === 'close') {
      actor
        .close()
        .then(
          () => post({ type: 'closed' }),
          (error: unknown) => post({ type: 'closed', error: toErrorData(error, 'PROVD_ERR_STORE_QUERY') }),
        )
        .finally(() => port.close());
      return;
    }
    actor.handle(message).then(
      (body) => post({ type: 'reply', id: message.id, ok: true, body }, [body.buffer as ArrayBuffer]),
      (error: unknown) =>
        post({ type: 'reply', id: message.id, ok: false, error: classifyStoreError(error) }),
    );
  });
}

async function openDatabase(path: string, readOnly: boolean): Promise<OpenDatabase> {
  // DuckDB's buffer cache defaults to 80% of RAM; the daemon's whole budget is 1 GiB.
  // Background threads let DuckDB's allocator (jemalloc) return freed memory to the system when idle.
  // Late materialization turns a small ORDER BY ... LIMIT into a second scan of the whole table for
  // the rows found (10 ms at 10M events, where one scan with the filters takes 2): explain reads that way.
  // One thread: DuckDB's second one cost ingest a third more CPU (an INSERT of CSV rows, 5.5 µs a row
  // with two threads, 3.7 with one, in the same wall time) and the other core is the workers' anyway.
  // A 64 MB WAL before a checkpoint: at 16 MB, every commit of ~25,000 rows checkpointed, rewriting
  // the table's last row group each time (insert and commit 4.8 µs a row, 3.7 at 64 MB). 256 MB
  // measured cheaper on a 1M-event ingest (12.2-12.5 µs of daemon CPU an event against 13.2-13.6),
  // but growing a store to 10M events through HTTP it cost more (15.3 against 14.5 µs an event), its
  // longer checkpoints held commits up to 6.7 s (p99 of requests, against 2.5) and 4x more requests
  // met 429: 64 MB stays.
  const options: Record<string, string> = {
    memory_limit: storeMemoryLimit,
    allocator_background_threads: 'true',
    late_materialization_max_rows: '0',
    threads: '1',
    wal_autocheckpoint: '64MB',
  };
  if (readOnly) options['access_mode'] = 'READ_ONLY';
  const instance = await DuckDBInstance.create(path, options);
  try {
    const readers = [await connectTo(instance), await connectTo(instance)];
    return {
      instance,
      writer: await connectTo(instance),
      health: await connectTo(instance),
      readers,
      readOnly,
    };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

/**
 * Runs `body` on a connection of its own inside one read transaction: every statement sees the
 * same snapshot, and the shared readers never carry a transaction another query could land in.
 */
async function inSnapshot<T>(
  instance: DuckDBInstance,
  body: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const connection = await connectTo(instance);
  try {
    await connection.run('BEGIN TRANSACTION');
    try {
      return await body(connection);
    } finally {
      await connection.run('ROLLBACK').catch(() => undefined);
    }
  } finally {
    connection.closeSync();
  }
}

/** Closes a database DuckDB gave up on: it may refuse, and nothing of it is used again anyway. */
function closeQuietly(database: OpenDatabase): void {
  try {
    closeDatabase(database);
  } catch (error) {
    log('warn', 'closing an invalidated database failed', {
      error: toErrorData(error, 'PROVD_ERR_STORE_IO'),
    });
  }
}

function closeDatabase(database: OpenDatabase): void {
  for (const reader of database.readers) reader.closeSync();
  database.health.closeSync();
  database.writer.closeSync();
  database.instance.closeSync();
}

function classifyOpenError(error: unknown): ErrorData {
  if (error instanceof ProvdError) return error.toData();
  const message = error instanceof Error ? error.message : String(error);
  if (isDiskFull(message))
    return { code: 'PROVD_ERR_STORE_DISK_FULL', message: `failed to open the database: ${message}` };
  // DuckDB's cross-process file lock: "Could not set lock on file ... Conflicting lock is held in ... (PID n)".
  if (/lock/i.test(message))
    return { code: 'PROVD_ERR_STORE_LOCKED', message: `failed to lock the database: ${message}` };
  return { code: 'PROVD_ERR_STORE_OPEN', message: `failed to open the database: ${message}` };
}
