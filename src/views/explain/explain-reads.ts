/**
 * The reads explain is built from, on a read connection: one event, a process's exec, the sealing
 * batches of a path's rows, a binding, a tool call, a run; and the nodes made of what they return.
 * explain runs one small query after another, and each costs DuckDB a fixed planning and scheduling
 * price: the reads fold together what one round trip can answer.
 */
import { BIGINT, type DuckDBConnection } from '@duckdb/node-api';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { join, list, raw, readRows, sql, type Statement } from '../../store/sql.js';
import { evidenceName, methodName, typeCode } from '../../model/codes.js';
import {
  eventJson,
  eventJsonColumns,
  type EventJsonRow,
  type TelemetryEvent,
} from '../../telemetry/event-json.js';
import type { ExplainBasis, ExplainNode } from './explain-result.js';
import type { BatchPlace, BatchPlaces } from '../../telemetry/batch-places.js';

/** An event row with its keyset position. */
export type EventRow = EventJsonRow & { seq: bigint };

/**
 * The fields of an event a process step uses: its identity, exec, attribution and position. Half
 * of an event's columns: a statement's price grows with the columns DuckDB plans for and returns
 * (an exec lookup of two processes: 3.5 ms instead of 4.9 at 10M).
 */
export type ProcessRow = Pick<
  EventRow,
  | 'id'
  | 'run_id'
  | 'type'
  | 'time_ns'
  | 'pid'
  | 'tgid'
  | 'ppid'
  | 'comm'
  | 'tool_call_id'
  | 'binding_id'
  | 'corr_method'
  | 'corr_confidence'
  | 'evidence_level'
  | 'attrs'
  | 'seq'
>;

/** A row with the event_batch object that seals it (null: none). */
export type Sealed<Row> = Row & { sealed_by: string | null };

const eventRowColumns = raw(`${eventJsonColumns}, seq`);
const processRowColumns = raw(
  'id, run_id, type, time_ns, pid, tgid, ppid, comm, tool_call_id, binding_id, corr_method, corr_confidence, ' +
    'evidence_level, attrs, seq',
);

/**
 * The rows with the event_batch that seals each, looked up for all of them in one read, once a
 * path's rows are known (explain reads them on its side connection, beside the path's next read).
 * As a correlated subquery in a row's read, DuckDB joins it before the row is found; one filter
 * naming each row's range costs DuckDB less than joining the rows as a list (0.9 ms vs 1.6 for 3).
 */
export async function sealRows<Row extends Pick<EventRow, 'run_id' | 'seq'>>(
  connection: DuckDBConnection,
  rows: readonly Row[],
): Promise<Sealed<Row>[]> {
  const inRuns = rows.filter((row) => row.run_id !== null);
  const batches =
    inRuns.length === 0
      ? []
      : await readRows<{ run_id: string; seq_from: bigint; seq_to: bigint; object_hash: string }>(
          connection,
          sql`SELECT run_id, seq_from, seq_to, object_hash FROM event_batches WHERE ${join(
            inRuns.map(
              (row) => sql`(run_id = ${row.run_id} AND seq_from <= ${row.seq} AND seq_to > ${row.seq})`,
            ),
            ' OR ',
          )}`,
        );
  const sealedBy = (row: Row): string | null =>
    batches.find(
      (batch) => batch.run_id === row.run_id && batch.seq_from <= row.seq && batch.seq_to > row.seq,
    )?.object_hash ?? null;
  return rows.map((row) => ({ ...row, sealed_by: sealedBy(row) }));
}

/** How far back the exec of a process is looked for first: most processes act right after their exec. */
const recentExecNs = 60_000_000_000n;
/** Outside a run, how far back next (then without a bound). */
const olderExecNs = 3_600_000_000_000n;

const execve = typeCode('execve');

/**
 * The event with this id, if stored. An id is `<batch>.<index>`: a batch's digests record the seq
 * range its events got at commit, and settled_ranges the time span of those the spool settled
 * later (settling rewrites seq). Looking there first lets DuckDB's zone maps skip every other row
 * group; the whole table is the fallback. A commit gives its batch's events consecutive positions
 * in index order, so an event still where its commit put it is read at its very position first
 * (half the time of the range at 10M events: 0.9 ms vs 2.0); one the spool settled is not there.
 * `places` (the store thread's memory of both tables) spares the read of where to look: a round
 * trip on explain's path. Wherever it says to look, the last read is of the whole table, and an
 * id names one event: a place decides how soon the event is found, never which.
 */
export async function readEvent(
  connection: DuckDBConnection,
  id: string,
  places: BatchPlaces | null = null,
): Promise<EventRow | undefined> {
  const dot = id.lastIndexOf('.');
  const batch = id.slice(0, Math.max(0, dot));
  const index = /^\d{1,9}$/.test(id.slice(dot + 1)) ? BigInt(id.slice(dot + 1)) : null;
  const where =
    places?.placesOf(batch) ??
    (await readRows<BatchPlace>(
      connection,
      sql`SELECT true AS committed, seq_from AS "from", seq_to - 1 AS "to" FROM event_batches
            WHERE batch_id = ${batch} AND seq_from IS NOT NULL
          UNION ALL SELECT false, time_from_ns, time_to_ns FROM settled_ranges WHERE batch_id = ${batch}`,
    ));
  const read = async (range: Statement): Promise<EventRow | undefined> =>
    (
      await readRows<EventRow>(
        connection,
        sql`SELECT ${eventRowColumns} FROM events WHERE ${range} AND id = ${id} LIMIT 1`,
      )
    )[0];
  // a batch has one digest row per run, all with its range: each range once
  const ranges = where.filter(
    (range, k) =>
      where.findIndex(
        (other) => other.committed === range.committed && other.from === range.from && other.to === range.to,
      ) === k,
  );
  // where its commit put it; where the spool's settling moved it; its commit's whole range (a store
  // written otherwise, e.g. by SQL); then anywhere
  const reads = [
    ...ranges.flatMap(({ committed, from, to }) =>
      committed && index !== null && from + index <= to ? [sql`seq = ${from + index}`] : [],
    ),
    ...ranges.flatMap(({ committed, from, to }) =>
      committed ? [] : [sql`time_ns BETWEEN ${from} AND ${to}`],
    ),
    ...ranges.flatMap(({ committed, from, to }) => (committed ? [sql`seq BETWEEN ${from} AND ${to}`] : [])),
    sql`true`,
  ];
  for (const range of reads) {
    const row = await read(range);
    if (row !== undefined) return row;
  }
  return undefined;
}

/**
 * A process to find: its tgid, and the time its exec is looked for at or before. A `guess` is
 * looked for in the last minute only: it is kept only when that finds its exec, so it never costs
 * the reads further back.
 */
export interface ProcessLookup {
  tgid: number;
  beforeNs: bigint;
  guess?: boolean;
}

/**
 * Whether the process rollup (timeline/process-rollup.ts) holds a process of the run, by tgid, as
 * far as one explain has read it: a process the run never saw has no exec to look for.
 */
export type SeenProcesses = Map<number, boolean>;

/**
 * For each lookup, the exec that started process `tgid` of the run (the latest at or before
 * `beforeNs`), else its latest event, each with the event_batch that seals it (as sealRows finds
 * it). The last minute is searched first, so zone maps on time_ns
 * skip the rest of a long run; the same read looks at the events not folded into the process
 * rollup yet (from `unfoldedFrom`; null: none). All lookups share that round trip, and it also asks
 * the rollup which of their tgids, and of the parent the rollup names for the last of them, the run
 * ever saw (into `seen`): the parent the lineage reaches next is most often one the run never saw
 * (its agent's harness), and then no read looks for it. A process with no exec in the last minute
 * that the run saw costs one more, for all of them: the rollup says when the run saw it, and a read
 * of its own finds the exec. Outside a run: the last minute, the last hour, then the whole store,
 * one lookup after the other (a row of no run is sealed by no batch).
 *
 * Each row found is joined to its run's batches in the read that finds it: a read of its own for the
 * seals, after the rows are known, put one more round trip on explain's path (0.8 ms at 10M events,
 * where the join adds 0.5 to the read).
 */
export async function readProcessEvents(
  connection: DuckDBConnection,
  runId: string | null,
  lookups: readonly ProcessLookup[],
  unfoldedFrom: bigint | null,
  seen: SeenProcesses,
): Promise<(Sealed<ProcessRow> | undefined)[]> {
  const latest = ({ tgid, beforeNs }: ProcessLookup, where: Statement): Statement =>
    sql`(SELECT ${processRowColumns} FROM events
         WHERE run_id IS NOT DISTINCT FROM ${runId} AND tgid = ${tgid} AND time_ns <= ${beforeNs} AND ${where}
         ORDER BY (type = ${execve}) DESC, time_ns DESC LIMIT 1)`;
  // every batch of the run that holds the row: the first in table order seals it, as in sealRows
  const candidate = (lookup: ProcessLookup, where: Statement): Statement =>
    sql`(SELECT c.*, b.object_hash AS sealed_by, b.rowid AS sealing_row FROM ${latest(lookup, where)} c
         LEFT JOIN (SELECT rowid, seq_from, seq_to, object_hash FROM event_batches WHERE run_id = ${runId}) b
           ON b.seq_from <= c.seq AND b.seq_to > c.seq)`;
  const read = async (lookup: ProcessLookup, where: Statement): Promise<Sealed<ProcessRow> | undefined> =>
    runId === null
      ? unsealed((await readRows<ProcessRow>(connection, latest(lookup, where)))[0])
      : sealedOnce<ProcessRow>(
          await readRows<SealingRow<ProcessRow>>(connection, candidate(lookup, where)),
        )[0];
  const recent = ({ beforeNs }: ProcessLookup): Statement => sql`time_ns >= ${beforeNs - recentExecNs}`;
  if (runId === null) {
    const found: (Sealed<ProcessRow> | undefined)[] = [];
    for (const lookup of lookups) {
      const latest = await read(lookup, recent(lookup));
      if (lookup.guess === true) {
        found.push(latest);
        continue;
      }
      const older =
        latest?.type === execve
          ? latest
          : await read(lookup, sql`time_ns >= ${lookup.beforeNs - olderExecNs}`);
      found.push(older?.type === execve ? older : ((await read(lookup, sql`true`)) ?? older ?? latest));
    }
    return found;
  }
  const perLookup = lookups.flatMap((lookup, k) => {
    const reads = [candidate(lookup, recent(lookup))];
    if (unfoldedFrom !== null) reads.push(candidate(lookup, sql`seq >= ${unfoldedFrom}`));
    return reads.map((read) => sql`SELECT ${k}::INTEGER AS lookup, * FROM ${read}`);
  });
  const last = lookups[lookups.length - 1]!.tgid;
  // as rows of their own (lookup -1): the rollup's rows of the lookups' tgids and of the parent it names for the last
  const inRollup = sql`SELECT -1 AS lookup, CAST(tgid AS UINTEGER) AS tgid, ppid.ppid AS rollup_ppid FROM timeline_processes
    WHERE run_id = ${runId} AND tgid IN (${join(
      lookups.map(({ tgid }) => sql`${tgid}`),
      ', ',
    )}, (SELECT ppid.ppid FROM timeline_processes WHERE run_id = ${runId} AND tgid = ${last} LIMIT 1))`;
  const rows = await readRows<SealingRow<ProcessRow> & { lookup: number; rollup_ppid: number | null }>(
    connection,
    sql`${join(perLookup, ' UNION ALL ')} UNION ALL BY NAME ${inRollup}`,
  );
  noteSeen(
    seen,
    lookups.map(({ tgid }) => tgid),
    rows.filter((row) => row.lookup === -1),
  );
  const found = lookups.map((_lookup, k) =>
    latestExecFirst(
      sealedOnce<ProcessRow>(
        rows.filter((row) => row.lookup === k).map(({ lookup: _k, rollup_ppid: _p, ...row }) => row),
      ),
    ),
  );
  // no exec in the last minute: the rollup says when the run saw the process, if it ever did
  const older = [...lookups.keys()].filter(
    (k) => found[k]?.type !== execve && lookups[k]!.guess !== true && seen.get(lookups[k]!.tgid) !== false,
  );
  if (older.length === 0) return found;
  const tgids = list(
    older.map((k) => BigInt(lookups[k]!.tgid)),
    BIGINT,
  );
  const spans = await readRows<{
    tgid: bigint;
    first_ns: bigint;
    last_ns: bigint;
    execs: { time_ns: bigint; seq: bigint }[];
    exec_count: bigint;
  }>(
    connection,
    sql`WITH s AS (
          SELECT tgid, min(first_ns) AS first_ns, max(last_ns) AS last_ns,
            coalesce(list(struct_pack(time_ns := exec.time_ns, seq := exec.seq)) FILTER (WHERE exec IS NOT NULL), [])
              AS execs
          FROM timeline_processes WHERE run_id = ${runId} AND tgid IN (SELECT unnest(${tgids})) GROUP BY tgid),
        x AS (
          SELECT tgid, sum(events) AS exec_count FROM timeline_process_types
          WHERE run_id = ${runId} AND type = ${execve} AND tgid IN (SELECT unnest(${tgids})) GROUP BY tgid)
        SELECT s.*, coalesce(x.exec_count, 0)::BIGINT AS exec_count FROM s LEFT JOIN x USING (tgid)`,
  );
  for (const k of older) {
    const lookup = lookups[k]!;
    const span = spans.find((row) => row.tgid === BigInt(lookup.tgid));
    if (span === undefined || span.first_ns > lookup.beforeNs) continue;
    // each rollup row keeps its earliest exec: when those are all the process's execs, the latest
    // of them at or before the bound is its exec, read by position instead of over its whole life
    const every = BigInt(span.execs.length) === span.exec_count;
    const exec = span.execs
      .filter((candidate) => candidate.time_ns <= lookup.beforeNs)
      .sort((a, b) => (b.time_ns > a.time_ns ? 1 : b.time_ns < a.time_ns ? -1 : 0))[0];
    const where =
      every && exec !== undefined
        ? sql`seq = ${exec.seq}`
        : sql`time_ns BETWEEN ${span.first_ns} AND ${span.last_ns}`;
    found[k] = latestExecFirst([found[k], await read(lookup, where)]);
  }
  return found;
}

/** One lookup of readProcessEvents. */
export async function readProcessEvent(
  connection: DuckDBConnection,
  runId: string | null,
  tgid: number,
  beforeNs: bigint,
  unfoldedFrom: bigint | null,
  seen: SeenProcesses,
): Promise<Sealed<ProcessRow> | undefined> {
  return (await readProcessEvents(connection, runId, [{ tgid, beforeNs }], unfoldedFrom, seen))[0];
}

/**
 * Notes in `seen` which of `asked` the rollup holds (it returned `rows` for them), and whether it
 * holds the parent it names for the last of them: that parent was asked for too, when the rollup's
 * rows of the last agree on it (a tgid reused under several tool calls may name several).
 */
function noteSeen(
  seen: SeenProcesses,
  asked: readonly number[],
  rows: readonly { tgid: number | null; rollup_ppid: number | null }[],
): void {
  const held = new Set(rows.map((row) => row.tgid));
  for (const tgid of asked) seen.set(tgid, held.has(tgid));
  const last = asked[asked.length - 1]!;
  const parents = new Set(rows.filter((row) => row.tgid === last).map((row) => row.rollup_ppid));
  if (parents.size !== 1) return;
  const [parent] = parents;
  if (parent !== null && parent !== undefined) seen.set(parent, held.has(parent));
}

/** The candidate the reads' own order puts first: an exec before any other event, then the latest. */
function latestExecFirst<Row extends ProcessRow>(candidates: readonly (Row | undefined)[]): Row | undefined {
  const isExec = (row: Row): number => (row.type === execve ? 1 : 0);
  return candidates
    .filter((row): row is Row => row !== undefined)
    .sort((a, b) => isExec(b) - isExec(a) || (b.time_ns > a.time_ns ? 1 : b.time_ns < a.time_ns ? -1 : 0))[0];
}

/** A row found with a batch that holds it (null: none), and that batch's place in its table. */
type SealingRow<Row> = Sealed<Row> & { sealing_row: bigint | null };

/**
 * One row per event, each with its seal: of the batches a join found holding an event, the first in
 * table order, the one sealRows would name (a run's batches never overlap, so there is one at most).
 */
function sealedOnce<Row extends { id: string }>(rows: readonly SealingRow<Row>[]): Sealed<Row>[] {
  const first = new Map<string, SealingRow<Row>>();
  for (const row of rows) {
    const kept = first.get(row.id);
    const earlier =
      kept === undefined ||
      (row.sealing_row !== null && (kept.sealing_row === null || row.sealing_row < kept.sealing_row));
    if (earlier) first.set(row.id, row);
  }
  return [...first.values()].map(({ sealing_row: _r, ...row }) => row as unknown as Sealed<Row>);
}

/** A row of no run: no batch seals it. */
function unsealed<Row>(row: Row | undefined): Sealed<Row> | undefined {
  return row === undefined ? undefined : { ...row, sealed_by: null };
}

function parseEvent(row: Sealed<EventRow>): TelemetryEvent {
  return JSON.parse(eventJson(row)) as TelemetryEvent;
}

/** A string or number attribute as text; anything else is absent. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** An event as a node. */
export function eventNode(row: Sealed<EventRow>): ExplainNode {
  const event = parseEvent(row);
  const what =
    textOf(event.attrs['path']) ?? textOf(event.attrs['dst_ip']) ?? textOf(event.attrs['query']) ?? '';
  return {
    kind: 'event',
    id: row.id,
    run_id: row.run_id,
    label: `${event.type} by ${row.comm ?? '?'} (pid ${row.tgid ?? row.pid ?? '?'})${what === '' ? '' : `: ${what}`}`,
    time: event.time,
    evidence_level: evidenceName(row.evidence_level),
    object_hash: row.sealed_by,
    event,
  };
}

/** A process as a node, from its exec (or any event of it). */
export function processNode(row: Sealed<ProcessRow>): ExplainNode {
  const attrs = JSON.parse(row.attrs) as Record<string, unknown>;
  const argv = Array.isArray(attrs['argv']) ? (attrs['argv'] as unknown[]).join(' ') : null;
  const execId = typeof attrs['exec_id'] === 'string' ? attrs['exec_id'] : null;
  const started = row.type === execve ? `: ${argv ?? textOf(attrs['path']) ?? row.comm ?? ''}` : '';
  return {
    kind: 'process',
    id: execId ?? String(row.tgid),
    run_id: row.run_id,
    label: `process ${row.tgid} ${row.comm ?? '?'}${started}`,
    time: formatRfc3339Nanos(row.time_ns),
    evidence_level: evidenceName(row.evidence_level),
    object_hash: row.sealed_by,
  };
}

/** How an event or process row ties to its tool call: its binding (and its object) and correlation tier. */
export function attributionBasis(row: ProcessRow, bindingHash: string | null): ExplainBasis {
  return {
    relation: 'attributed_to',
    method: methodName(row.corr_method),
    confidence: row.corr_confidence,
    evidence_level: evidenceName(row.evidence_level),
    binding_id: row.binding_id,
    object_hash: bindingHash,
  };
}

/** What an attributed row leads to: its recorded tool call, its binding's object and its run. */
export interface Attribution {
  recorded: ToolCallRow | undefined;
  bindingHash: string | null;
  run: ExplainNode | undefined;
}

/** The tool call, binding and run of an attributed row, in one round trip. */
export async function readAttribution(
  connection: DuckDBConnection,
  runId: string,
  toolCallId: string,
  bindingId: string | null,
): Promise<Attribution> {
  const [row] = await readRows<
    { [K in keyof ToolCallRow]: ToolCallRow[K] | null } & {
      binding_hash: string | null;
      first_seen_ns: bigint | null;
      run_hash: string | null;
    }
  >(
    connection,
    sql`SELECT t.run_id, t.tool_call_id, t.status, t.record, t.object_hash, t.started_ns,
          b.object_hash AS binding_hash, r.first_seen_ns, r.object_hash AS run_hash
        FROM (SELECT 1) one
          LEFT JOIN tool_calls t ON t.run_id = ${runId} AND t.tool_call_id = ${toolCallId}
          LEFT JOIN bindings b ON b.binding_id = ${bindingId}
          LEFT JOIN runs r ON r.run_id = ${runId}`,
  );
  const { binding_hash, first_seen_ns, run_hash, ...toolCall } = row!;
  return {
    recorded: toolCall.run_id === null ? undefined : (toolCall as ToolCallRow),
    bindingHash: binding_hash,
    run: first_seen_ns === null ? undefined : runNodeOf(runId, first_seen_ns, run_hash),
  };
}

/** A tool call as stored by POST /v1/record, if it was recorded. */
export interface ToolCallRow {
  run_id: string;
  tool_call_id: string;
  status: string;
  record: string;
  object_hash: string;
  started_ns: bigint;
}

export async function readToolCall(
  connection: DuckDBConnection,
  runId: string,
  toolCallId: string,
): Promise<ToolCallRow | undefined> {
  const [row] = await readRows<ToolCallRow>(
    connection,
    sql`SELECT run_id, tool_call_id, status, record, object_hash, started_ns FROM tool_calls
        WHERE run_id = ${runId} AND tool_call_id = ${toolCallId}`,
  );
  return row;
}

/** A tool call as a node: recorded (its tool_call object), or known only from a binding. */
export function toolCallNode(
  runId: string,
  toolCallId: string,
  recorded: ToolCallRow | undefined,
): ExplainNode {
  if (recorded === undefined)
    return {
      kind: 'tool_call',
      id: toolCallId,
      run_id: runId,
      label: `tool call ${toolCallId} (bound, not recorded)`,
      time: null,
      evidence_level: null,
      object_hash: null,
    };
  const record = JSON.parse(recorded.record) as {
    command?: string;
    args?: string[];
    evidence_level?: string;
  };
  const command = [record.command ?? '', ...(record.args ?? [])].join(' ').slice(0, 200);
  return {
    kind: 'tool_call',
    id: toolCallId,
    run_id: runId,
    label: `tool call ${toolCallId} (${recorded.status}): ${command}`,
    time: formatRfc3339Nanos(recorded.started_ns),
    evidence_level: record.evidence_level === 'self_observed' ? 'self_observed' : 'context_asserted',
    object_hash: recorded.object_hash,
  };
}

/** The run as a node, if known. */
export async function runNode(connection: DuckDBConnection, runId: string): Promise<ExplainNode | undefined> {
  const [row] = await readRows<{ first_seen_ns: bigint; object_hash: string | null }>(
    connection,
    sql`SELECT first_seen_ns, object_hash FROM runs WHERE run_id = ${runId}`,
  );
  return row === undefined ? undefined : runNodeOf(runId, row.first_seen_ns, row.object_hash);
}

function runNodeOf(runId: string, firstSeenNs: bigint, objectHash: string | null): ExplainNode {
  return {
    kind: 'run',
    id: runId,
    run_id: runId,
    label: `run ${runId}`,
    time: formatRfc3339Nanos(firstSeenNs),
    evidence_level: null,
    object_hash: objectHash,
  };
}
