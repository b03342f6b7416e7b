/**
 * What an attestation states of a run, read in the store actor within one snapshot: its latest
 * checkpoint, its execs, network destinations, DNS names and file accesses from its events, and the
 * files its recorded commands left with a content hash (`file_effect` objects). Each list is
 * bounded; what a bound cut is counted in `omitted`, never dropped silently.
 */
import { isAbsolute, join as joinPath } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoreConnection } from '../../store/store-connection.js';
import type { EventType } from '../../model/event.js';
import { evidenceName, sourceName, typeCode, typeName } from '../../model/codes.js';
import { ProvdError } from '../../shared/errors.js';
import {
  connectTypes as signalConnectTypes,
  fileTypes as signalFileTypes,
} from '../../security/signals/signal-values.sql.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { join, readRows, sql, type Statement } from '../../store/sql.js';
import { hiddenLoaderOpen, shownByDefault } from '../../telemetry/loader-opens.sql.js';
import { runCoverage } from '../../telemetry/run-coverage.sql.js';
import type {
  ResourceDescriptor,
  RunFacts,
  TraceNetwork,
  TraceProcess,
  WrittenFile,
} from './runtime-trace.js';

/** Entries one list of an attestation holds at most (processes, network, file accesses, written files). */
export const attestListMax = 1000;
/**
 * Characters of a path, a name or an exec's arguments an entry carries at most (PATH_MAX): ingest
 * takes lines of 1 MiB, and 1000 such entries would make a statement no verifier wants to read.
 */
export const attestTextMax = 4096;

const ofTypes = (types: readonly EventType[]): Statement =>
  sql`type IN (${join(
    types.map((type) => sql`${typeCode(type)}`),
    ', ',
  )})`;

// the event types whose dst_ip/dst_port and path the signals read as destinations and files
const connectTypes = ofTypes(signalConnectTypes);
const fileTypes = ofTypes(signalFileTypes);
const nsText = (ns: bigint | null): string | null => (ns === null ? null : formatRfc3339Nanos(ns));
const intOrNull = (value: number | bigint | null): number | null => (value === null ? null : Number(value));

/** The facts of `run` for its statement; 404 when the run is unknown or has no checkpoint yet. */
export async function readRunFacts(
  connection: StoreConnection,
  run: string,
  host: string,
): Promise<RunFacts> {
  await requireRun(connection, run);
  const [checkpoint] = await readRows<{ hash: string; chain_index: bigint }>(
    connection,
    sql`SELECT hash, chain_index FROM checkpoints WHERE run_id = ${run} ORDER BY chain_index DESC LIMIT 1`,
  );
  if (checkpoint === undefined)
    throw new ProvdError('not_found', `run "${run}" has no checkpoint yet: nothing signed to attest`);
  // from its first event or recorded command to its last (a run of recorded commands alone has no events)
  const [span] = await readRows<{ first: bigint | null; last: bigint | null; loader: bigint }>(
    connection,
    sql`SELECT least(e.first, t.first) AS first, greatest(e.last, t.last) AS last, e.loader FROM
          (SELECT min(time_ns) AS first, max(time_ns) AS last, count(*) FILTER (WHERE ${hiddenLoaderOpen}) AS loader
           FROM events WHERE run_id = ${run}) e,
          (SELECT min(started_ns) AS first, max(coalesce(ended_ns, started_ns)) AS last
           FROM tool_calls WHERE run_id = ${run}) t`,
  );
  const processes = await readProcesses(connection, run);
  const network = await readNetwork(connection, run);
  const files = await readFileAccess(connection, run);
  const written = await readWrittenFiles(connection, run);
  const coverage = await runCoverage(connection, run, span?.first ?? null, span?.last ?? null);
  return {
    runId: run,
    host,
    checkpoint: { hash: checkpoint.hash, index: Number(checkpoint.chain_index) },
    startedOn: nsText(span?.first ?? null),
    finishedOn: nsText(span?.last ?? null),
    processes: processes.items,
    network: network.items,
    fileAccess: [...written.items.map(writtenAccess), ...files.items],
    written: written.items,
    omitted: {
      process: processes.omitted,
      network: network.omitted,
      fileAccess: files.omitted,
      fileSubjects: written.omitted,
      loaderOpens: Number(span?.loader ?? 0n),
      writtenWithoutDigest: await countWrittenWithoutDigest(connection, run),
    },
    coverage: { runGaps: coverage.run_gaps, hostGapsInSpan: coverage.host_gaps_in_span },
  };
}

interface Bounded<T> {
  items: T[];
  omitted: number;
}

/**
 * The rows' items, and how many the query's window total counted that are not among them: past its
 * LIMIT, or refused by `item` (undefined: a value too long to state whole).
 */
function bounded<Row extends { total: bigint }, T>(
  rows: Row[],
  item: (row: Row) => T | undefined,
): Bounded<T> {
  const total = rows.length === 0 ? 0 : Number(rows[0]!.total);
  const items = rows.map(item).filter((entry): entry is T => entry !== undefined);
  return { items, omitted: total - items.length };
}

/** A value too long to name a path or a host whole: left out (and counted), never cut into another name. */
const tooLong = (value: string): boolean => value.length > attestTextMax;

/** An exec's arguments, the first attestTextMax characters of them, and whether that cut any. */
function cappedArguments(argv: string[]): { args: string[]; cut: boolean } {
  const args: string[] = [];
  let left = attestTextMax;
  for (const arg of argv) {
    if (arg.length > left) return { args: [...args, arg.slice(0, left)], cut: true };
    args.push(arg);
    left -= arg.length;
  }
  return { args, cut: false };
}

interface ProcessRow {
  id: string;
  hash: string;
  time_ns: bigint;
  pid: number | null;
  ppid: number | null;
  uid: bigint | null;
  comm: string | null;
  source: number;
  evidence_level: number;
  path: string | null;
  argv: string | null;
  total: bigint;
}

/** The run's execs in the order they were stored. */
async function readProcesses(connection: StoreConnection, run: string): Promise<Bounded<TraceProcess>> {
  const rows = await readRows<ProcessRow>(
    connection,
    sql`SELECT id, hash, time_ns, coalesce(tgid, pid) AS pid, ppid, uid, comm, source, evidence_level,
          json_extract_string(attrs, '$.path') AS path, json_extract(attrs, '$.argv')::VARCHAR AS argv,
          count(*) OVER () AS total
        FROM events WHERE run_id = ${run} AND type = ${typeCode('execve')}
        ORDER BY seq LIMIT ${attestListMax}`,
  );
  return bounded(rows, (row) => {
    const { args, cut } = cappedArguments(argvOf(row.argv));
    const binaryCut = row.path !== null && tooLong(row.path);
    return {
      eventType: 'process',
      processBinary: binaryCut ? row.path!.slice(0, attestTextMax) : row.path,
      arguments: args,
      ...(cut || binaryCut ? { truncated: true as const } : {}),
      pid: intOrNull(row.pid),
      ppid: intOrNull(row.ppid),
      uid: intOrNull(row.uid),
      comm: row.comm,
      time: formatRfc3339Nanos(row.time_ns),
      source: sourceName(row.source),
      evidenceLevel: evidenceName(row.evidence_level),
      eventId: row.id,
      eventHash: row.hash,
    };
  });
}

/** An argv as stored (a JSON array of strings), or none. */
function argvOf(text: string | null): string[] {
  if (text === null) return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

interface DestinationRow {
  value: string;
  port: number | null;
  type: number;
  events: bigint;
  first_ns: bigint;
  pid: number | null;
  comm: string | null;
  total: bigint;
}

/** Distinct destinations (ip and port) of the run's connects, then the names it asked DNS for. */
async function readNetwork(connection: StoreConnection, run: string): Promise<Bounded<TraceNetwork>> {
  const destinations = (value: Statement, port: Statement, types: Statement) =>
    readRows<DestinationRow>(
      connection,
      sql`SELECT *, count(*) OVER () AS total FROM (
            SELECT ${value} AS value, ${port} AS port, arg_min(type, seq) AS type, count(*) AS events,
              min(time_ns) AS first_ns, arg_min(coalesce(tgid, pid), seq) AS pid, arg_min(comm, seq) AS comm
            FROM events WHERE run_id = ${run} AND ${types} AND ${value} IS NOT NULL GROUP BY 1, 2)
          ORDER BY first_ns, value, port LIMIT ${attestListMax}`,
    );
  const entry = (row: DestinationRow, key: 'ip' | 'hostname'): TraceNetwork | undefined =>
    tooLong(row.value)
      ? undefined
      : {
          [key]: row.value,
          ...(row.port === null ? {} : { port: Number(row.port) }),
          eventType: typeName(row.type),
          events: Number(row.events),
          firstSeen: formatRfc3339Nanos(row.first_ns),
          invokingProcess: { pid: intOrNull(row.pid), comm: row.comm },
        };
  const connects = bounded(
    await destinations(
      sql`json_extract_string(attrs, '$.dst_ip')`,
      sql`TRY_CAST(json_extract_string(attrs, '$.dst_port') AS INTEGER)`,
      connectTypes,
    ),
    (row) => entry(row, 'ip'),
  );
  // a DNS question names a host, not the endpoint it was sent to (the resolver): the name alone
  const names = bounded(
    await destinations(
      sql`json_extract_string(attrs, '$.query')`,
      sql`NULL::INTEGER`,
      sql`type = ${typeCode('dns_query')}`,
    ),
    (row) => entry(row, 'hostname'),
  );
  const items = [...connects.items, ...names.items];
  const kept = items.slice(0, attestListMax);
  return { items: kept, omitted: connects.omitted + names.omitted + items.length - kept.length };
}

interface AccessRow {
  path: string;
  types: number[];
  events: bigint;
  first_ns: bigint;
  total: bigint;
}

/** Distinct paths the run's file events name, with how they were accessed; no digest (the sensor hashes nothing). */
async function readFileAccess(
  connection: StoreConnection,
  run: string,
): Promise<Bounded<ResourceDescriptor>> {
  const rows = await readRows<AccessRow>(
    connection,
    sql`SELECT *, count(*) OVER () AS total FROM (
          SELECT json_extract_string(attrs, '$.path') AS path, list_sort(list(DISTINCT type)) AS types,
            count(*) AS events, min(time_ns) AS first_ns
          FROM events WHERE run_id = ${run} AND ${fileTypes} AND ${shownByDefault}
            AND json_extract_string(attrs, '$.path') IS NOT NULL GROUP BY 1)
        ORDER BY first_ns, path LIMIT ${attestListMax}`,
  );
  return bounded(rows, (row) =>
    // a descriptor needs a uri or a digest: a path the sensor could not make absolute has neither
    tooLong(row.path) || !isAbsolute(row.path)
      ? undefined
      : {
          name: row.path,
          uri: pathToFileURL(row.path).href,
          annotations: {
            access: [...row.types].map((code) => typeName(Number(code))),
            events: Number(row.events),
            firstSeen: formatRfc3339Nanos(row.first_ns),
          },
        },
  );
}

/** A written file as a file access with its digest. */
function writtenAccess(file: WrittenFile): ResourceDescriptor {
  return {
    name: file.path,
    ...(isAbsolute(file.path) ? { uri: pathToFileURL(file.path).href } : {}),
    digest: { sha256: file.sha256.slice('sha256:'.length) },
    annotations: { access: [`recorded_${file.effect}`], toolCallId: file.toolCallId },
  };
}

/**
 * The `file_effect` objects of the run (POST /v1/record's snapshots of its cwd) of regular files
 * created or modified, with their content hash after the command: the only file digests provd has.
 * Their paths are made absolute with the tool call's cwd.
 */
const hashedEffects = (run: string): Statement =>
  sql`SELECT o.hash AS object_hash, o.created_ns,
        json_extract_string(o.body, '$.payload.path') AS path,
        json_extract_string(o.body, '$.payload.effect') AS effect,
        json_extract_string(o.body, '$.payload.hash_after') AS hash_after,
        json_extract_string(o.body, '$.payload.tool_call_id') AS tool_call_id,
        CAST(json_extract(o.body, '$.payload.index') AS BIGINT) AS effect_index,
        json_extract_string(t.record, '$.cwd') AS cwd
      FROM objects o LEFT JOIN tool_calls t
        ON t.run_id = o.run_id AND t.tool_call_id = json_extract_string(o.body, '$.payload.tool_call_id')
      WHERE o.run_id = ${run} AND o.kind = 'file_effect'
        AND json_extract_string(o.body, '$.payload.kind') = 'file'
        AND json_extract_string(o.body, '$.payload.effect') IN ('created', 'modified')
        AND json_extract_string(o.body, '$.payload.hash_after') IS NOT NULL`;

interface EffectRow {
  object_hash: string;
  path: string;
  effect: 'created' | 'modified';
  hash_after: string;
  tool_call_id: string;
  cwd: string | null;
  total: bigint;
}

async function readWrittenFiles(connection: StoreConnection, run: string): Promise<Bounded<WrittenFile>> {
  const rows = await readRows<EffectRow>(
    connection,
    sql`SELECT *, count(*) OVER () AS total FROM (${hashedEffects(run)})
        ORDER BY created_ns, effect_index, object_hash LIMIT ${attestListMax}`,
  );
  return bounded(rows, (row) => ({
    path: row.cwd === null ? row.path : joinPath(row.cwd, row.path),
    sha256: row.hash_after,
    effect: row.effect,
    toolCallId: row.tool_call_id,
    objectHash: row.object_hash,
  }));
}

/** Paths the run's events show written that no recorded snapshot hashed: stated without a digest. */
async function countWrittenWithoutDigest(connection: StoreConnection, run: string): Promise<number> {
  const [row] = await readRows<{ n: bigint }>(
    connection,
    sql`WITH hashed AS (SELECT CASE WHEN cwd IS NULL THEN path ELSE rtrim(cwd, '/') || '/' || path END AS path
                        FROM (${hashedEffects(run)}))
        SELECT count(DISTINCT json_extract_string(attrs, '$.path')) AS n FROM events
        WHERE run_id = ${run} AND type = ${typeCode('file_write')}
          AND json_extract_string(attrs, '$.path') NOT IN (SELECT path FROM hashed WHERE path IS NOT NULL)`,
  );
  return Number(row?.n ?? 0n);
}
