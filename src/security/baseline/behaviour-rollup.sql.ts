/**
 * Each run's behaviour (sql/011_baselines.sql), folded in with the process rollup
 * (telemetry/process-rollup.sql.ts), behind the commits, a chunk of positions at a time: in
 * run_behaviour, per run, measure and value, how many events showed it, how many of them the policy
 * flagged, and the first few by position; in run_rates, per run, window length and event type, its
 * busiest window. Learning a baseline and listing deviations read these rows, one per distinct value
 * or type, never a run's events or windows: at 10,000,000 events a run's scan takes seconds, and
 * even its windows take milliseconds. A row merges across chunks (sums; the first events by
 * position; the busier window), so it is the same however its events were chunked; events a binding
 * claims from the spool later get later positions and fold in then.
 *
 * What an event shows, by type:
 * - `execve`: `binary`, its path as recorded;
 * - `file_read`, and `file_open` / `secret_path` whose flags name no write: `read_prefix`;
 * - `file_write`, `file_rename` (its new path), `file_unlink`, and opens with write flags: `write_prefix`;
 * - `network_connect`, `metadata_ip`, `private_cidr`: `destination`, `ip:port` (`[v6]:port`);
 * - `dns_query`: `dns_name`, lower case, without a trailing dot.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { execute, join, raw, sql, type RawSql } from '../../store/sql.js';
import { typeCode } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';
import type { FoldChunk, RollupFold } from '../../telemetry/process-rollup.sql.js';
import { windowLengths } from '../../telemetry/window-facts.js';
import { maxBasisEvents, measureCode, pathDepth, type SetMeasure } from './baseline-measures.js';

const codes = (...types: EventType[]): string => types.map(typeCode).join(', ');
const code = (measure: SetMeasure): string => String(measureCode(measure));

// open flags that make an open a write; must match ingest/falco-syscall.ts openWriteFlags. As an
// integer (native lines may send one): O_WRONLY 1, O_RDWR 2, O_CREAT 0o100, O_TRUNC 0o1000, O_APPEND 0o2000
const writeFlagNames = 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND';
const writeFlagBits = 1 | 2 | 0o100 | 0o1000 | 0o2000;

/** The attrs an event's value is read from (extracted once per fold for every fold: FoldChunk). */
const attrPaths = ['$.path', '$.new_path', '$.flags', '$.dst_ip', '$.dst_port', '$.query'];
const writesFlags = `(CASE WHEN regexp_full_match(flags, '[0-9]+') THEN (TRY_CAST(flags AS UBIGINT) & ${writeFlagBits}) <> 0
  ELSE regexp_matches(coalesce(flags, ''), '(^|[^A-Z_])(${writeFlagNames})($|[^A-Z_])') END)`;
const measure = `CASE
  WHEN type = ${typeCode('execve')} THEN ${code('binary')}
  WHEN type IN (${codes('file_write', 'file_rename', 'file_unlink')}) THEN ${code('write_prefix')}
  WHEN type IN (${codes('file_open', 'secret_path')}) AND ${writesFlags} THEN ${code('write_prefix')}
  WHEN type IN (${codes('file_open', 'secret_path', 'file_read')}) THEN ${code('read_prefix')}
  WHEN type IN (${codes('network_connect', 'metadata_ip', 'private_cidr')}) THEN ${code('destination')}
  ELSE ${code('dns_name')} END`;
const folded = codes(
  'execve',
  'file_open',
  'file_read',
  'secret_path',
  'file_write',
  'file_rename',
  'file_unlink',
  'network_connect',
  'metadata_ip',
  'private_cidr',
  'dns_query',
);

/**
 * The segments of path `p` with `.` and empty ones dropped and `..` resolved (never above its
 * start), only where it has one: a prefix is cut from the resolved path, so
 * `/work/a/../../root/.ssh/x` is under `/root/.ssh`. An absolute path's first segment is ''.
 */
const segments = (p: string): string => `string_split(CASE WHEN regexp_matches(${p}, '(^|/)\\.\\.?(/|$)|//')
  THEN (CASE WHEN starts_with(${p}, '/') THEN '/' ELSE '' END) || ltrim(list_reduce(list_prepend('', string_split(${p}, '/')),
    (acc, s) -> CASE WHEN s = '..' THEN regexp_replace(acc, '/[^/]*$', '') WHEN s IN ('', '.') THEN acc
      ELSE acc || '/' || s END), '/')
  ELSE ${p} END, '/')`;
/** From a path `p` and its segments `s`: the first pathDepth directories of the directory holding it (`/` or `.` when it has none). */
const prefix = (p: string, s: string): string => `coalesce(nullif(array_to_string(list_slice(${s}, 1,
  least(len(${s}) - 1, CASE WHEN starts_with(${p}, '/') THEN ${pathDepth + 1} ELSE ${pathDepth} END)), '/'), ''),
  CASE WHEN starts_with(${p}, '/') THEN '/' ELSE '.' END)`;
// what an event shows, from its measure m, its attrs, its path p (a rename's new path) and that path's segments s
const value = `CASE m
  WHEN ${code('binary')} THEN p
  WHEN ${code('dns_name')} THEN nullif(lower(rtrim(query, '.')), '')
  WHEN ${code('destination')} THEN CASE WHEN contains(dst_ip, ':') THEN '[' || dst_ip || ']' ELSE dst_ip END || coalesce(':' || dst_port, '')
  WHEN ${code('read_prefix')} THEN ${prefix('p', 's')}
  WHEN ${code('write_prefix')} THEN ${prefix('p', 's')} END`;
const isFile = `m IN (${code('read_prefix')}, ${code('write_prefix')})`;

/**
 * Folds the run events selected by `where` (over `events`) into run_behaviour. The chunk is
 * aggregated once into a temporary table (events that show no value make rows of value null, left
 * out at the end: a filter on the value is pushed below the aggregate and computed it twice). Then
 * the counts of the rows a run already has are added (updating a list column rewrites it: an upsert
 * of whole rows took 10x longer), the first events of rows holding fewer than they keep are
 * extended (folds go in position order, so a chunk's events come after what a row holds), and the
 * new rows are inserted.
 */
async function foldBehaviour(connection: StoreConnection, chunk: FoldChunk): Promise<void> {
  const attr = (path: string): RawSql => chunk.attr(path);
  const same = raw('r.run_id = c.run_id AND r.measure = c.measure AND r.value = c.value');
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE behaviour_chunk AS
        SELECT run_id, m AS measure, v AS value, count(*) AS events, count(*) FILTER (WHERE judged) AS flagged,
          min_by(id, seq, ${raw(String(maxBasisEvents))}) AS first_ids
        FROM (SELECT run_id, m, seq, id, judged, ${raw(value)} AS v
              FROM (SELECT *, CASE WHEN ${raw(isFile)} THEN ${raw(segments('p'))} END AS s
                    FROM (SELECT *, ${raw(measure)} AS m,
                            nullif(CASE WHEN type = ${typeCode('file_rename')} THEN coalesce(new_path, path) ELSE path END, '') AS p
                          FROM (SELECT run_id, type, seq, id, judged, ${attr('$.path')} AS path,
                                  ${attr('$.new_path')} AS new_path, ${attr('$.flags')} AS flags,
                                  ${attr('$.dst_ip')} AS dst_ip, ${attr('$.dst_port')} AS dst_port,
                                  ${attr('$.query')} AS query
                                FROM ${chunk.table} WHERE type IN (${raw(folded)})))))
        GROUP BY ALL`,
  );
  await execute(
    connection,
    sql`UPDATE run_behaviour r SET events = r.events + c.events, flagged = r.flagged + c.flagged
        FROM behaviour_chunk c WHERE ${same}`,
  );
  await execute(
    connection,
    sql`UPDATE run_behaviour r
        SET first_ids = list_slice(list_concat(r.first_ids, c.first_ids), 1, ${raw(String(maxBasisEvents))})
        FROM behaviour_chunk c WHERE ${same} AND len(r.first_ids) < ${raw(String(maxBasisEvents))}`,
  );
  await execute(
    connection,
    sql`INSERT INTO run_behaviour SELECT c.* FROM behaviour_chunk c ANTI JOIN run_behaviour r ON ${same}
        WHERE c.value IS NOT NULL`,
  );
  await execute(connection, sql`DROP TABLE behaviour_chunk`);
}

/**
 * Folds the busiest windows of the runs and types of the events selected by `where` into run_rates:
 * the windows those events fall in are read as they are now (with every event counted so far), and
 * a run's row moves to one that holds more (or as many, earlier).
 */
async function foldRates(connection: StoreConnection, chunk: FoldChunk): Promise<void> {
  const same = raw('r.run_id = c.run_id AND r.window_s = c.window_s AND r.type = c.type');
  // the start of the window of each length an event falls in, as window-deltas.ts counts it
  const touched = windowLengths.map((windowS) => {
    const ns = raw(String(BigInt(windowS) * 1_000_000_000n));
    return sql`SELECT DISTINCT run_id, type, ${windowS} AS window_s, time_ns - ((time_ns % ${ns}) + ${ns}) % ${ns}
                 AS bucket_ns FROM ${chunk.table}`;
  });
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE rates_chunk AS
        SELECT w.run_id, w.window_s, w.type, max(w.events) AS peak,
          arg_min(w.bucket_ns, struct_pack(n := -w.events, b := w.bucket_ns)) AS peak_ns
        FROM windows w SEMI JOIN (${join(touched, ' UNION ALL ')}) t
          ON w.run_id = t.run_id AND w.window_s = t.window_s AND w.type = t.type AND w.bucket_ns = t.bucket_ns
        GROUP BY ALL`,
  );
  await execute(
    connection,
    sql`UPDATE run_rates r SET peak = c.peak, peak_ns = c.peak_ns FROM rates_chunk c
        WHERE ${same} AND (c.peak > r.peak OR (c.peak = r.peak AND c.peak_ns < r.peak_ns))`,
  );
  await execute(
    connection,
    sql`INSERT INTO run_rates SELECT c.* FROM rates_chunk c ANTI JOIN run_rates r ON ${same}`,
  );
  await execute(connection, sql`DROP TABLE rates_chunk`);
}

/** The fold of run_behaviour and run_rates, for the process rollup. */
export const behaviourFold: RollupFold = {
  name: 'behaviour',
  attrs: attrPaths,
  async fold(connection, chunk) {
    await foldBehaviour(connection, chunk);
    await foldRates(connection, chunk);
  },
  async clear(connection) {
    await execute(connection, sql`DELETE FROM run_behaviour`);
    await execute(connection, sql`DELETE FROM run_rates`);
  },
};
