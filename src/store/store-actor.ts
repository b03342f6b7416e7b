/**
 * The store actor: the one owner of the DuckDB instance in this process. It runs on its own thread
 * (workers/store.worker.ts), answers queries with serialized JSON bytes, and closes cleanly on request.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ProvdError, toErrorData, type ErrorData } from '../shared/errors.js';
import type {
  StoreInbound,
  StoreInit,
  StoreOpenState,
  StoreOutbound,
  StoreQueries,
  StoreRequest,
} from '../shared/store-messages.js';
import { BindingStore } from './binding-store.js';
import { EventCommitter } from './event-commit.js';
import { explainCorrelations } from '../telemetry/correlations.query.js';
import { listEvents } from '../telemetry/events.query.js';
import { producerHealth } from '../telemetry/producer-health.query.js';
import { listWindows } from '../telemetry/windows.query.js';
import { checkStoreHealth } from './health.query.js';
import { applyMigrations, loadMigrations, type Migration } from './migrations.js';
import { Spool } from './spool.js';
import { inspectFormat, listTables } from './store-format.js';
import { WriteQueue } from './write-queue.js';

interface OpenDatabase {
  instance: DuckDBInstance;
  /** Migrations and, later, appends. */
  writer: DuckDBConnection;
  /** Readiness checks, so they never queue behind a write. */
  health: DuckDBConnection;
  /** Queries, taken in turn; they run on DuckDB's threads while writes go on. */
  readers: DuckDBConnection[];
  readOnly: boolean;
}

const encoder = new TextEncoder();

/** DuckDB's memory limit (buffer cache, query memory; it spills to disk past it). */
const storeMemoryLimit = '512MB';

/** Owns the database for the life of the store thread. */
export class StoreActor {
  private readonly migrations: Migration[] = loadMigrations();
  private database: OpenDatabase | undefined;
  private committer: EventCommitter | undefined;
  private bindings: BindingStore | undefined;
  private spool: Spool | undefined;
  private readonly writes = new WriteQueue();
  /** Queries running now. Closing a connection under a running query deadlocks its thread. */
  private readonly inFlight = new Set<Promise<string>>();
  private state: StoreOpenState = {
    status: 'failed',
    error: { code: 'PROVD_ERR_STORE_STOPPED', message: 'not opened yet' },
  };

  constructor(private readonly init: StoreInit) {}

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
          const message = `${this.init.dbPath}: ${verdict.reason}`;
          return (this.state = {
            status: 'incompatible',
            formatVersion: verdict.version,
            error: { code: 'PROVD_ERR_STORE_FORMAT', message },
          });
        }
        closeDatabase(probe);
      }
      this.database = await openDatabase(this.init.dbPath, false);
      const verdict = await inspectFormat(
        this.database.writer,
        this.migrations,
        await listTables(this.database.writer),
      );
      if (verdict.kind === 'incompatible') {
        const message = `${this.init.dbPath}: ${verdict.reason}`;
        return (this.state = {
          status: 'incompatible',
          formatVersion: verdict.version,
          error: { code: 'PROVD_ERR_STORE_FORMAT', message },
        });
      }
      const pending = verdict.kind === 'empty' ? this.migrations : verdict.pending;
      await applyMigrations(this.database.writer, pending);
      await this.startTelemetry(this.database.writer);
      return (this.state = {
        status: 'ready',
        formatVersion: this.migrations.length,
        appliedMigrations: pending.map((migration) => migration.version),
      });
    } catch (error) {
      return (this.state = { status: 'failed', error: classifyOpenError(error) });
    }
  }

  /** Readies the write path: an empty spool dir and the next sequence position. */
  private async startTelemetry(writer: DuckDBConnection): Promise<void> {
    // row files left by a crash belong to requests that were never answered: nothing to recover
    mkdirSync(this.init.spoolDir, { recursive: true, mode: 0o700 });
    for (const file of readdirSync(this.init.spoolDir))
      rmSync(join(this.init.spoolDir, file), { force: true });
    const reader = await writer.runAndReadAll('SELECT coalesce(max(seq) + 1, 0) AS next FROM events');
    const nextSeq = BigInt(reader.getRowObjectsJS()[0]?.['next'] as bigint);
    const committer: EventCommitter = new EventCommitter(writer, this.writes, nextSeq, (batches) =>
      bindings.settleLagging(batches),
    );
    const bindings: BindingStore = new BindingStore(writer, (count: number): bigint =>
      committer.allocateSeq(count),
    );
    await bindings.load();
    this.committer = committer;
    this.bindings = bindings;
    this.spool = new Spool(writer, this.writes, this.init.spool);
    await this.spool.start();
  }

  /** Answers one query with its serialized JSON result. */
  async handle(request: StoreRequest): Promise<Uint8Array> {
    const answer = this.answer(request);
    this.inFlight.add(answer);
    try {
      return encoder.encode(await answer);
    } finally {
      this.inFlight.delete(answer);
    }
  }

  private async answer(request: StoreRequest): Promise<string> {
    const params: unknown = request.params;
    switch (request.kind) {
      case 'health':
        return JSON.stringify(await this.checkHealth());
      case 'commit':
        return JSON.stringify(await this.commit(params as StoreQueries['commit']['params']));
      case 'bind':
        return JSON.stringify(await this.bind(params as StoreQueries['bind']['params']));
      case 'bindings':
        if (this.bindings === undefined) throw this.cannotWrite();
        return JSON.stringify({ records: this.bindings.records() });
      case 'events':
        return listEvents(
          this.reader(),
          params as StoreQueries['events']['params'],
          this.migrations.length,
          this.requireCommitter().endSeq,
        );
      case 'windows':
        return listWindows(
          this.reader(),
          params as StoreQueries['windows']['params'],
          this.migrations.length,
        );
      case 'correlations':
        return explainCorrelations(this.reader(), params as StoreQueries['correlations']['params']);
      case 'producer_health':
        return producerHealth(
          this.reader(),
          params as StoreQueries['producer_health']['params'],
          this.init.spool,
          this.requireSpool().stats,
        );
    }
  }

  private nextReader = 0;

  /** A reader connection, in turn. */
  private reader(): DuckDBConnection {
    const readers = this.database?.readers;
    if (readers === undefined || this.committer === undefined) throw this.cannotWrite();
    return readers[this.nextReader++ % readers.length]!;
  }

  private async commit({
    batches,
  }: StoreQueries['commit']['params']): Promise<StoreQueries['commit']['result']> {
    const committer = this.requireCommitter();
    const settled = await Promise.all(batches.map((batch) => committer.commit(batch)));
    batches.forEach((batch, i) => {
      const stillPending = batch.pending - settled[i]!;
      this.spool?.added(
        stillPending,
        (batch.pendingBytes * stillPending) / Math.max(1, batch.pending),
        batch.ingestedNs,
      );
    });
    const spool = this.spool;
    if (spool !== undefined && settled.some((count) => count > 0))
      await this.writes.run(() => spool.recount());
    return {
      committed: batches.reduce((sum, batch) => sum + batch.accepted, 0),
      settled: settled.reduce((sum, count) => sum + count, 0),
    };
  }

  private async bind({ binding }: StoreQueries['bind']['params']): Promise<StoreQueries['bind']['result']> {
    const bindings = this.bindings;
    if (bindings === undefined) throw this.cannotWrite();
    const spool = this.spool;
    const recorrelated = await this.writes.run(async () => {
      const count = await bindings.bind(binding);
      if (count > 0) await spool?.recount();
      return count;
    });
    return { recorrelated };
  }

  private requireCommitter(): EventCommitter {
    if (this.committer === undefined) throw this.cannotWrite();
    return this.committer;
  }

  private requireSpool(): Spool {
    if (this.spool === undefined) throw this.cannotWrite();
    return this.spool;
  }

  private cannotWrite(): ProvdError {
    const reason = this.state.status === 'ready' ? 'closed' : this.state.error.message;
    return new ProvdError('PROVD_ERR_STORE_STOPPED', `the store cannot write: ${reason}`);
  }

  private async checkHealth(): Promise<StoreQueries['health']['result']> {
    if (this.init.healthStallMs > 0) blockThread(this.init.healthStallMs);
    if (this.database === undefined) {
      const error = this.state.status === 'ready' ? undefined : this.state.error;
      return {
        database: { ok: false, latency_ms: 0, ...(error && { error }) },
        format: { found: null, supported: this.migrations.length, compatible: false },
        missing_tables: [],
        coverage_gaps: null,
        spool: null,
        events_seen: null,
      };
    }
    return checkStoreHealth(this.database.health, this.migrations, this.spool?.stats ?? null);
  }

  /** Checkpoints (when writable) and closes; the actor answers nothing afterwards. */
  async close(): Promise<void> {
    const database = this.database;
    this.database = undefined;
    this.committer = undefined;
    this.bindings = undefined;
    this.spool?.stop();
    this.spool = undefined;
    await Promise.allSettled([...this.inFlight]);
    await this.writes.run(() => Promise.resolve()); // let a running write finish before the checkpoint
    if (database === undefined) return;
    try {
      if (!database.readOnly) await database.writer.run('CHECKPOINT');
    } finally {
      closeDatabase(database);
    }
  }
}

/** Serves the actor over a message port: the body of the store thread. */
export async function serveStoreActor(port: MessagePort, init: StoreInit): Promise<void> {
  const actor = new StoreActor(init);
  const post = (message: StoreOutbound, transfer: ArrayBuffer[] = []): void =>
    port.postMessage(message, transfer);
  post({ type: 'opened', state: await actor.open() });
  port.on('message', (message: StoreInbound) => {
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
        post({
          type: 'reply',
          id: message.id,
          ok: false,
          error: toErrorData(error, 'PROVD_ERR_STORE_QUERY'),
        }),
    );
  });
}

async function openDatabase(path: string, readOnly: boolean): Promise<OpenDatabase> {
  // DuckDB's buffer cache defaults to 80% of RAM; the daemon's whole budget is 1 GiB.
  const options: Record<string, string> = { memory_limit: storeMemoryLimit };
  if (readOnly) options['access_mode'] = 'READ_ONLY';
  const instance = await DuckDBInstance.create(path, options);
  try {
    const readers = [await instance.connect(), await instance.connect()];
    return {
      instance,
      writer: await instance.connect(),
      health: await instance.connect(),
      readers,
      readOnly,
    };
  } catch (error) {
    instance.closeSync();
    throw error;
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
  // DuckDB's cross-process file lock: "Could not set lock on file ... Conflicting lock is held in ... (PID n)".
  if (/lock/i.test(message))
    return { code: 'PROVD_ERR_STORE_LOCKED', message: `failed to lock the database: ${message}` };
  return { code: 'PROVD_ERR_STORE_OPEN', message: `failed to open the database: ${message}` };
}

/** Blocks this thread, as a stuck disk or a runaway query would (test fault injection only). */
function blockThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
