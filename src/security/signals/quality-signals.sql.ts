/**
 * The quality signals of a run, in the store actor: how its recorded tool calls ended (tool_calls:
 * status and the exit code in the record), which it repeated, and how its processes exited (the
 * exit codes and signals of its process_exit events, folded in signal-values.sql.ts).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import { raw, readRows, sql } from '../../store/sql.js';
import type { ExitQuality, QualitySignals } from './quality-signals.js';
import { retriedCommands } from './retries.sql.js';
import { basis, signalBounds, type CountSignal } from './signal-basis.js';
import { kindCode } from './signal-values.sql.js';

const failing = raw("status IN ('failed', 'error')");
const ids = raw(String(signalBounds.basis_ids));
const listItems = raw(String(signalBounds.list_items));

/** The quality signals of the run; `exits` counts its process_exit events. */
export async function readQuality(
  connection: StoreConnection,
  run: string,
  exits: number,
): Promise<QualitySignals> {
  const [calls] = await readRows<{
    recorded: bigint;
    statuses: { status: ToolCallStatus; n: bigint }[] | null;
    failures: bigint;
    failure_ids: string[] | null;
    timeouts: bigint;
    timeout_ids: string[] | null;
    non_zero: bigint;
    non_zero_ids: string[] | null;
  }>(
    connection,
    sql`SELECT count(*) AS recorded,
          (SELECT list(struct_pack(status, n) ORDER BY n DESC, status) FROM (
            SELECT status, count(*) AS n FROM tool_calls WHERE run_id = ${run} GROUP BY status)) AS statuses,
          count(*) FILTER (WHERE ${failing}) AS failures,
          min_by(tool_call_id, started_ns, ${ids}) FILTER (WHERE ${failing}) AS failure_ids,
          count(*) FILTER (WHERE status = 'timeout') AS timeouts,
          min_by(tool_call_id, started_ns, ${ids}) FILTER (WHERE status = 'timeout') AS timeout_ids,
          count(*) FILTER (WHERE exit_code <> 0) AS non_zero,
          min_by(tool_call_id, started_ns, ${ids}) FILTER (WHERE exit_code <> 0) AS non_zero_ids
        FROM (SELECT tool_call_id, status, started_ns, TRY_CAST(record->>'$.exit_code' AS BIGINT) AS exit_code
              FROM tool_calls WHERE run_id = ${run})`,
  );
  const counted = (
    value: bigint | undefined,
    toolCalls: string[] | null | undefined,
    method: string,
  ): CountSignal => ({
    value: Number(value ?? 0),
    basis: basis(['tool_calls'], method, { toolCalls: toolCalls ?? [] }),
  });
  return {
    tool_calls: {
      recorded: Number(calls?.recorded ?? 0),
      by_status: (calls?.statuses ?? []).map((row) => ({ status: row.status, tool_calls: Number(row.n) })),
      failures: counted(
        calls?.failures,
        calls?.failure_ids,
        "the run's tool calls of status failed or error",
      ),
      timeouts: counted(calls?.timeouts, calls?.timeout_ids, "the run's tool calls of status timeout"),
      non_zero_exits: counted(
        calls?.non_zero,
        calls?.non_zero_ids,
        "the run's tool calls whose record holds an exit_code other than 0",
      ),
      retries: await retriedCommands(connection, run),
    },
    process_exits: await readExits(connection, run, exits),
  };
}

async function readExits(connection: StoreConnection, run: string, exits: number): Promise<ExitQuality> {
  const [row] = await readRows<{
    with_code: bigint | null;
    non_zero: bigint | null;
    non_zero_ids: string[] | null;
    codes: { code: string; exits: bigint; first_id: string }[] | null;
    signaled: bigint | null;
    signaled_ids: string[] | null;
  }>(
    connection,
    sql`SELECT sum(events) FILTER (WHERE kind = ${kindCode('exit_code')}) AS with_code,
          sum(events) FILTER (WHERE kind = ${kindCode('exit_code')} AND value <> '0') AS non_zero,
          max_by(first_event.id, events, ${ids}) FILTER (WHERE kind = ${kindCode('exit_code')} AND value <> '0') AS non_zero_ids,
          max_by(struct_pack(code := value, exits := events, first_id := first_event.id), events, ${listItems})
            FILTER (WHERE kind = ${kindCode('exit_code')}) AS codes,
          sum(events) FILTER (WHERE kind = ${kindCode('exit_signal')}) AS signaled,
          max_by(first_event.id, events, ${ids}) FILTER (WHERE kind = ${kindCode('exit_signal')}) AS signaled_ids
        FROM run_signal_values WHERE run_id = ${run} AND kind IN (${kindCode('exit_code')}, ${kindCode('exit_signal')})`,
  );
  const method =
    "the run's process_exit events by attrs.exit_code and attrs.signal; events: the first of each code or signal, the most frequent first";
  const codes = (row?.codes ?? [])
    .map((code) => ({
      exit_code: Number(code.code),
      exits: Number(code.exits),
      first_event_id: code.first_id,
    }))
    .filter((code) => Number.isSafeInteger(code.exit_code))
    .sort((a, b) => b.exits - a.exits || a.exit_code - b.exit_code);
  return {
    exits,
    non_zero: {
      value: Number(row?.non_zero ?? 0),
      basis: basis(['run_signal_values'], method, { events: row?.non_zero_ids ?? [] }),
    },
    signaled: {
      value: Number(row?.signaled ?? 0),
      basis: basis(['run_signal_values'], method, { events: row?.signaled_ids ?? [] }),
    },
    without_code: Math.max(0, exits - Number(row?.with_code ?? 0)),
    by_code: codes,
    basis: basis(['windows', 'run_signal_values'], `exits: the run's process_exit events; ${method}`),
  };
}
