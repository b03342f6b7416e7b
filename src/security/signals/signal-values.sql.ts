/**
 * The distinct values of a run's events that its signals count (sql/012_signal_values.sql): the
 * binaries it executed, the files, destinations and DNS names it touched, its exit codes and
 * signals, and the severities, decisions and rules of the policy's decisions on its events. Folded
 * in with the process rollup (telemetry/process-rollup.sql.ts), a chunk of positions at a
 * time, so a signals request reads a row per value, never the run's events.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { execute, raw, sql, type RawSql } from '../../store/sql.js';
import { typeCode } from '../../model/codes.js';
import type { EventType } from '../../model/event.js';
import type { FoldChunk, RollupFold } from '../../telemetry/process-rollup.sql.js';

/** What a value is; its position is the stored `kind` code (append only). */
export const signalValueKinds = [
  'binary',
  'file',
  'destination',
  'dns_name',
  'exit_code',
  'exit_signal',
  'risk_severity',
  'risk_decision',
  'risk_rule',
] as const;

/** One of signalValueKinds. */
export type SignalValueKind = (typeof signalValueKinds)[number];

/** The stored code of a kind. */
export function kindCode(kind: SignalValueKind): number {
  return signalValueKinds.indexOf(kind);
}

/** The event types whose `path` is a file they touched. */
export const fileTypes: readonly EventType[] = [
  'file_open',
  'file_read',
  'file_write',
  'file_rename',
  'file_unlink',
  'secret_path',
];
/** The event types whose `dst_ip` and `dst_port` are a destination they connected to. */
export const connectTypes: readonly EventType[] = ['network_connect', 'metadata_ip', 'private_cidr'];

const codes = (types: readonly EventType[]): string => types.map(typeCode).join(', ');
const code = (kind: SignalValueKind): string => String(kindCode(kind));
const pair = (kind: SignalValueKind, value: string): string =>
  `struct_pack(k := ${code(kind)}, v := ${value})`;

/** The attrs an event's values are read from (extracted once per fold for every fold: FoldChunk). */
const attrPaths = ['$.path', '$.dst_ip', '$.dst_port', '$.query', '$.exit_code', '$.signal'];
// each event's values, from its attrs as the fold table holds them
const eventValues = raw(`CASE
    WHEN type = ${typeCode('execve')} THEN [${pair('binary', 'path')}]
    WHEN type IN (${codes(fileTypes)}) THEN [${pair('file', 'path')}]
    WHEN type IN (${codes(connectTypes)}) THEN [${pair('destination', "dst_ip || ':' || coalesce(dst_port, '')")}]
    WHEN type = ${typeCode('dns_query')} THEN [${pair('dns_name', 'query')}]
    ELSE [${pair('exit_code', 'exit_code')}, ${pair('exit_signal', 'signal')}]
  END`);
const valueTypes = raw(
  codes(['execve', ...fileTypes, ...connectTypes, 'dns_query', 'process_exit'] as EventType[]),
);
const decisionValues = raw(
  `[${pair('risk_severity', 'd.severity')}, ${pair('risk_decision', 'd.decision')}, ${pair('risk_rule', 'd.rule_id')}]`,
);
// a signal of 0 (provd's sensor) or '' means the process was not ended by one
const noSignal = raw(`kv.k = ${code('exit_signal')} AND kv.v IN ('0', '')`);

/**
 * Folds the values of the run events `where` selects into run_signal_values. policy_decisions has
 * no index (it would cost every commit): the chunk's decisions are found by the range of its judged
 * events' positions, which zone maps narrow (a decision keeps its event's seq, and decisions are
 * stored in commit order), instead of probing every decision of the store (70-420 ms a chunk at 10M).
 */
async function foldValues(connection: StoreConnection, chunk: FoldChunk): Promise<void> {
  const attr = (path: string): RawSql => chunk.attr(path);
  // MERGE: half the cost of INSERT ... ON CONFLICT DO UPDATE on the table's key
  await execute(
    connection,
    sql`MERGE INTO run_signal_values r USING (
          WITH judged AS MATERIALIZED (SELECT run_id, seq, id FROM ${chunk.table} WHERE judged)
          SELECT run_id, kv.k AS kind, md5_number(kv.v) AS value_key, any_value(kv.v) AS value, count(*) AS events,
            min(struct_pack(seq, id)) AS first_event
          FROM (
            SELECT run_id, seq, id, unnest(${eventValues}) AS kv FROM (
              SELECT run_id, seq, id, type, ${attr('$.path')} AS path, ${attr('$.dst_ip')} AS dst_ip,
                ${attr('$.dst_port')} AS dst_port, ${attr('$.query')} AS query,
                ${attr('$.exit_code')} AS exit_code, ${attr('$.signal')} AS signal
              FROM ${chunk.table} WHERE type IN (${valueTypes}))
            UNION ALL
            SELECT e.run_id, e.seq, e.id, unnest(${decisionValues}) AS kv
            FROM judged e JOIN policy_decisions d ON d.seq = e.seq AND d.event_id = e.id
            WHERE d.seq BETWEEN (SELECT min(seq) FROM judged) AND (SELECT max(seq) FROM judged))
          WHERE kv.v IS NOT NULL AND NOT (${noSignal})
          GROUP BY run_id, kv.k, md5_number(kv.v)) c
        ON r.run_id = c.run_id AND r.kind = c.kind AND r.value_key = c.value_key
        WHEN MATCHED THEN UPDATE SET events = r.events + c.events, first_event = least(r.first_event, c.first_event)
        WHEN NOT MATCHED THEN INSERT VALUES (c.run_id, c.kind, c.value_key, c.value, c.events, c.first_event)`,
  );
}

/** The fold of run_signal_values, for the process rollup. */
export const signalValuesFold: RollupFold = {
  name: 'signal_values',
  attrs: attrPaths,
  fold: foldValues,
  async clear(connection) {
    await execute(connection, sql`DELETE FROM run_signal_values`);
  },
};
