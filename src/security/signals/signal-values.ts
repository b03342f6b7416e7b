/**
 * The distinct values of a run's events that its signals count (sql/012_signal_values.sql): the
 * binaries it executed, the files, destinations and DNS names it touched, its exit codes and
 * signals, and the severities, decisions and rules of the policy's decisions on its events. Folded
 * in with the process rollup (telemetry/timeline/process-rollup.ts), a chunk of positions at a
 * time, so a signals request reads a row per value, never the run's events.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, raw, sql, type Statement } from '../../store/sql.js';
import { typeCode } from '../../telemetry/codes.js';
import type { EventType } from '../../telemetry/event.js';
import type { RollupFold } from '../../telemetry/timeline/process-rollup.js';

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

// each event's values, from one parse of its attrs: j = [path, dst_ip, dst_port, query, exit_code, signal]
const eventValues = raw(`CASE
    WHEN type = ${typeCode('execve')} THEN [${pair('binary', 'j[1]')}]
    WHEN type IN (${codes(fileTypes)}) THEN [${pair('file', 'j[1]')}]
    WHEN type IN (${codes(connectTypes)}) THEN [${pair('destination', "j[2] || ':' || coalesce(j[3], '')")}]
    WHEN type = ${typeCode('dns_query')} THEN [${pair('dns_name', 'j[4]')}]
    ELSE [${pair('exit_code', 'j[5]')}, ${pair('exit_signal', 'j[6]')}]
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
async function foldValues(connection: DuckDBConnection, where: Statement): Promise<void> {
  await execute(
    connection,
    sql`INSERT INTO run_signal_values
        WITH judged AS MATERIALIZED (SELECT run_id, seq, id FROM events WHERE run_id IS NOT NULL AND judged AND ${where})
        SELECT run_id, kv.k, md5_number(kv.v), any_value(kv.v), count(*), min(struct_pack(seq, id))
        FROM (
          SELECT run_id, seq, id, unnest(${eventValues}) AS kv FROM (
            SELECT run_id, seq, id, type, json_extract_string(attrs,
              ['$.path', '$.dst_ip', '$.dst_port', '$.query', '$.exit_code', '$.signal']) AS j
            FROM events WHERE run_id IS NOT NULL AND type IN (${valueTypes}) AND ${where})
          UNION ALL
          SELECT e.run_id, e.seq, e.id, unnest(${decisionValues}) AS kv
          FROM judged e JOIN policy_decisions d ON d.seq = e.seq AND d.event_id = e.id
          WHERE d.seq BETWEEN (SELECT min(seq) FROM judged) AND (SELECT max(seq) FROM judged))
        WHERE kv.v IS NOT NULL AND NOT (${noSignal})
        GROUP BY run_id, kv.k, md5_number(kv.v)
        ON CONFLICT (run_id, kind, value_key) DO UPDATE SET
          events = events + excluded.events, first_event = least(first_event, excluded.first_event)`,
  );
}

/** The fold of run_signal_values, for the process rollup. */
export const signalValuesFold: RollupFold = {
  name: 'signal_values',
  fold: foldValues,
  async clear(connection) {
    await execute(connection, sql`DELETE FROM run_signal_values`);
  },
};
