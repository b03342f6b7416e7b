/**
 * The ingest benchmark's baselines, in this process, on the rows the daemon would store for the same
 * NDJSON: (a) DuckDB's row-wise Appender into a fresh events table, flushing every ~10,000 rows;
 * (b) DuckDB's CSV reader loading the same rows from row files (src/telemetry/event-row.ts), in
 * INSERTs of up to a million rows, as the store's group commit does.
 *
 * The rows are built untimed, slice by slice, with the functions the normalize task uses (parse,
 * classify, canonical attrs, hash, correlate), and only the loading is timed: these rates are what
 * DuckDB can take, not what producing the rows costs.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { sliceAtLines } from '../../src/ingest/ingest-router.js';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { applyMigrations, loadMigrations } from '../../src/store/migrations.sql.js';
import { execute, inTransaction } from '../../src/store/sql.js';
import { parseBindRequest, type Binding } from '../../src/telemetry/binding.js';
import { BindingIndex } from '../../src/telemetry/binding-index.js';
import { evidenceCode, methodCode, sourceCode, spoolCode, typeCode } from '../../src/model/codes.js';
import { insertEvents } from '../../src/telemetry/event-commit.sql.js';
import { hashEvent } from '../../src/telemetry/event-hash.js';
import { encodeEventRow } from '../../src/telemetry/event-row.js';
import type { ParsedEvent } from '../../src/model/event.js';
import type { Correlation } from '../../src/telemetry/binding-index.js';
import { eventBytes, isRisky } from '../../src/telemetry/window-facts.js';
import type { WorkloadRun } from './ingest-workload.js';

/** One baseline's measurement. */
export interface BaselineRun {
  events: number;
  /** Time spent loading, rows already built. */
  elapsedMs: number;
  /** CPU time of this process (every thread, DuckDB's included) while loading. */
  cpuMs: number;
  /** Loads (appender flushes or INSERT statements) it took. */
  loads: number;
}

/** How the baselines cut their work; the defaults follow the brief and the daemon. */
export interface BaselinePlan {
  /** Rows between appender flushes. */
  flushRows: number;
  /** The router's slice size: one row file per slice, as the normalize pool writes them. */
  sliceBytes: number;
  /** Most rows per CSV INSERT (the committer's maxRowsPerCommit). */
  maxRowsPerLoad: number;
}

export const defaultBaselinePlan: BaselinePlan = {
  flushRows: 10_000,
  sliceBytes: 1024 * 1024,
  maxRowsPerLoad: 1_000_000,
};

/** The events table's columns in table order (sql/ migrations); the appender fills them in this order. */
const tableColumns = [
  ...['id', 'seq', 'run_id', 'type', 'source', 'time', 'time_ns', 'ingested_ns', 'pid', 'tgid', 'ppid'],
  ...['uid', 'comm', 'cgroup_id', 'container_id', 'tool_call_id', 'binding_id', 'corr_method'],
  ...['corr_confidence', 'evidence_level', 'spool_state', 'attrs', 'hash', 'risky', 'bytes', 'judged'],
  'loader_locale',
  'login_uid',
];

/** One built row: what encodeEventRow takes, and the id the commit gives it. */
interface BuiltRow {
  id: string;
  event: ParsedEvent;
  attrsJson: string;
  hashHex: string;
  match: Correlation | undefined;
}

/** A BindingIndex holding the bindings the daemon would get for the bound runs. */
export function bindingIndexFor(runs: readonly WorkloadRun[]): BindingIndex {
  const index = new BindingIndex();
  const createdNs = BigInt(Date.now()) * 1_000_000n;
  for (const run of runs.filter((candidate) => candidate.bound)) {
    const binding = parseBindRequest(
      { run_id: run.runId, tool_call_id: run.toolCallId, cgroup_id: run.cgroupId },
      createdNs,
    );
    if (!('binding_id' in binding)) throw new Error(`bench binding refused: ${binding.message}`);
    index.add(binding satisfies Binding);
  }
  return index;
}

/** The rows the normalize task would build for one slice (same steps as src/ingest/normalize.ts). */
function buildRows(slice: Uint8Array, index: BindingIndex, batchId: string): BuiltRow[] {
  const { events, rejected } = parseNdjson(slice, 'native', 1);
  if (rejected > 0) throw new Error(`bench workload: ${rejected} lines rejected in ${batchId}`);
  return events.map((event, i) => {
    const attrsJson = canonicalJson(event.attrs);
    const hashHex = hashEvent(event, attrsJson).slice('sha256:'.length);
    return { id: `${batchId}.${i}`, event, attrsJson, hashHex, match: index.correlate(event) };
  });
}

/** A fresh DuckDB file in `dir` with the daemon's schema (every migration in sql/). */
async function openFreshStore(
  path: string,
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await applyMigrations(connection, loadMigrations());
  const reader = await connection.runAndReadAll(
    "SELECT column_name FROM duckdb_columns() WHERE table_name = 'events' ORDER BY column_index",
  );
  const names = reader.getRowObjectsJS().map((row) => row['column_name'] as string);
  if (names.join(',') !== tableColumns.join(','))
    throw new Error(`the events table changed: ${names.join(',')}; update bench/support/ingest-baselines.ts`);
  return { instance, connection };
}

function appendText(appender: DuckDBAppender, value: string | null): void {
  if (value === null) appender.appendNull();
  else appender.appendVarchar(value);
}

function appendUInt(appender: DuckDBAppender, value: number | null): void {
  if (value === null) appender.appendNull();
  else appender.appendUInteger(value);
}

/** Appends one row in table column order, with the values the events table gets. */
function appendRow(appender: DuckDBAppender, row: BuiltRow, seq: bigint, ingestedNs: bigint): void {
  const { event, match } = row;
  appender.appendVarchar(row.id);
  appender.appendBigInt(seq);
  appendText(appender, match?.binding.run_id ?? null);
  appender.appendUTinyInt(typeCode(event.type));
  appender.appendUTinyInt(sourceCode(event.source));
  appender.appendVarchar(event.time);
  appender.appendBigInt(event.timeNs);
  appender.appendBigInt(ingestedNs);
  appendUInt(appender, event.pid);
  appendUInt(appender, event.tgid);
  appendUInt(appender, event.ppid);
  if (event.uid === null) appender.appendNull();
  else appender.appendBigInt(BigInt(event.uid));
  appendText(appender, event.comm);
  appendText(appender, event.cgroupId);
  appendText(appender, event.containerId);
  appendText(appender, match?.binding.tool_call_id ?? null);
  appendText(appender, match?.binding.binding_id ?? null);
  appender.appendUTinyInt(methodCode(match?.method ?? 'none'));
  if (match === undefined) appender.appendNull();
  else appender.appendDouble(match.confidence);
  appender.appendUTinyInt(evidenceCode(match?.evidenceLevel ?? 'uncorrelated'));
  appender.appendUTinyInt(spoolCode(match === undefined ? 'pending' : 'settled'));
  appender.appendVarchar(row.attrsJson);
  appender.appendVarchar(`sha256:${row.hashHex}`);
  appender.appendBoolean(isRisky(event.type, event.attrs));
  appender.appendBigInt(BigInt(eventBytes(event.attrs)));
  appender.appendBoolean(false); // judged
  appender.appendBoolean(false); // loader_locale: the workload holds no loader or locale opens
  appendUInt(appender, event.loginUid);
  appender.endRow();
}

/** A row file written for the CSV baseline. */
interface RowFile {
  path: string;
  rows: number;
  batchId: string;
}

/** Both baselines' results. */
export interface Baselines {
  appender: BaselineRun;
  csv: BaselineRun;
}

/**
 * Builds the rows of `chunks` slice by slice, appends them (timed) into one fresh store while writing
 * them as row files, then loads the row files (timed) into a second fresh store. Files live in `dir`.
 */
export async function measureBaselines(
  chunks: readonly Uint8Array[],
  runs: readonly WorkloadRun[],
  dir: string,
  plan: BaselinePlan = defaultBaselinePlan,
): Promise<Baselines> {
  const index = bindingIndexFor(runs);
  const ingestedNs = BigInt(Date.now()) * 1_000_000n;
  const files: RowFile[] = [];
  const appended: BaselineRun = { events: 0, elapsedMs: 0, cpuMs: 0, loads: 0 };

  const store = await openFreshStore(join(dir, 'appender.duckdb'));
  try {
    const appender = await store.connection.createAppender('events');
    let seq = 0n;
    let unflushed = 0;
    for (const [c, chunk] of chunks.entries()) {
      for (const [s, slice] of sliceAtLines(chunk, plan.sliceBytes).entries()) {
        const batchId = `bench-${c}-${s}`;
        const built = buildRows(slice, index, batchId);
        const started = performance.now();
        const cpu = process.cpuUsage();
        for (const row of built) {
          appendRow(appender, row, seq++, ingestedNs);
          if (++unflushed >= plan.flushRows) {
            appender.flushSync();
            appended.loads++;
            unflushed = 0;
          }
        }
        appended.elapsedMs += performance.now() - started;
        appended.cpuMs += cpuMsSince(cpu);
        appended.events += built.length;
        const path = join(dir, `${batchId}.csv`);
        writeFileSync(
          path,
          built
            .map((row, i) => encodeEventRow(i, row.event, row.attrsJson, row.hashHex, false, row.match))
            .join(''),
        );
        files.push({ path, rows: built.length, batchId });
      }
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    appender.closeSync(); // flushes the rest
    appended.elapsedMs += performance.now() - started;
    appended.cpuMs += cpuMsSince(cpu);
    appended.loads++;
  } finally {
    store.connection.closeSync();
    store.instance.closeSync();
  }

  const csv = await loadRowFiles(files, join(dir, 'csv.duckdb'), plan.maxRowsPerLoad);
  for (const { path } of files) rmSync(path, { force: true });
  return { appender: appended, csv };
}

/** Loads row files into a fresh store, a group of up to `maxRows` rows per INSERT, as the committer does. */
async function loadRowFiles(
  files: readonly RowFile[],
  storePath: string,
  maxRows: number,
): Promise<BaselineRun> {
  const run: BaselineRun = { events: 0, elapsedMs: 0, cpuMs: 0, loads: 0 };
  const store = await openFreshStore(storePath);
  try {
    let seqBase = 0n;
    for (let first = 0; first < files.length;) {
      let last = first;
      let rows = 0;
      while (last < files.length && (last === first || rows + files[last]!.rows <= maxRows))
        rows += files[last++]!.rows;
      const group = files.slice(first, last);
      const insert = insertEvents(
        group.map(({ path, rows, batchId }) => ({ file: path, accepted: rows, batchId, ingestedNs: 0n })),
        seqBase,
      );
      const started = performance.now();
      const cpu = process.cpuUsage();
      await inTransaction(store.connection, () => execute(store.connection, insert));
      run.elapsedMs += performance.now() - started;
      run.cpuMs += cpuMsSince(cpu);
      run.loads++;
      run.events += rows;
      seqBase += BigInt(rows);
      first = last;
    }
  } finally {
    store.connection.closeSync();
    store.instance.closeSync();
  }
  return run;
}

/** CPU milliseconds this process used since `start` (a process.cpuUsage() reading). */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
