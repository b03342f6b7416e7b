/** explain's reads of processes: the exec events that start them, and how each was attributed. */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT } from '../../store/duckdb-api.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { readRows, sql, join, list, raw, type Statement } from '../../store/sql.js';
import { evidenceName, typeCode, methodName } from '../../model/codes.js';
import type { ExplainBasis, ExplainNode } from './explain-result.js';
import {
  type EventRow,
  type Sealed,
  type SealingRow,
  sealedOnce,
  textOf,
  unsealed,
} from './explain-reads.sql.js';
import { type ToolCallRow, runNodeOf } from './tool-call-reads.sql.js';

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

export const processRowColumns = raw(
  'id, run_id, type, time_ns, pid, tgid, ppid, comm, tool_call_id, binding_id, corr_method, corr_confidence, ' +
    'evidence_level, attrs, seq',
);

/** How far back the exec of a process is looked for first: most processes act right after their exec. */
export const recentExecNs = 60_000_000_000n;

/** Outside a run, how far back next (then without a bound). */
export const olderExecNs = 3_600_000_000_000n;

export const execve = typeCode('execve');

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
 * Whether the process rollup (timeline/process-rollup.sql.ts) holds a process of the run, by tgid, as
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
  connection: StoreConnection,
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
  connection: StoreConnection,
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
export function noteSeen(
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
export function latestExecFirst<Row extends ProcessRow>(
  candidates: readonly (Row | undefined)[],
): Row | undefined {
  const isExec = (row: Row): number => (row.type === execve ? 1 : 0);
  return candidates
    .filter((row): row is Row => row !== undefined)
    .sort((a, b) => isExec(b) - isExec(a) || (b.time_ns > a.time_ns ? 1 : b.time_ns < a.time_ns ? -1 : 0))[0];
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
  connection: StoreConnection,
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
