/**
 * Retries of a run: tool calls that repeat the command and args of an earlier tool call of the
 * same run (recorded with POST /v1/record, executed or asserted). Each repeat counts as one retry.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import { raw, readRows, sql } from '../../store/sql.js';
import type { Retries } from './quality-signals.js';
import { basis, signalBounds } from './signal-basis.js';

interface RetryRow {
  command: string;
  args: string | null;
  attempts: bigint;
  last_status: ToolCallStatus;
  ids: string[];
  retries: bigint;
}

/** The run's retries. */
export async function retriedCommands(connection: StoreConnection, run: string): Promise<Retries> {
  const rows = await readRows<RetryRow>(
    connection,
    sql`SELECT command, args, count(*) AS attempts, arg_max(status, started_ns) AS last_status,
          min_by(tool_call_id, started_ns, ${raw(String(signalBounds.basis_ids))}) AS ids,
          sum(count(*) - 1) OVER () AS retries
        FROM (SELECT record->>'$.command' AS command, CAST(record->'$.args' AS VARCHAR) AS args,
                tool_call_id, status, started_ns FROM tool_calls WHERE run_id = ${run})
        GROUP BY command, args HAVING count(*) > 1
        ORDER BY attempts DESC, command, args LIMIT ${signalBounds.list_items}`,
  );
  const commands = rows.map((row) => ({
    command: row.command,
    args: row.args === null ? [] : (JSON.parse(row.args) as string[]),
    attempts: Number(row.attempts),
    last_status: row.last_status,
    tool_call_ids: row.ids,
  }));
  return {
    value: Number(rows[0]?.retries ?? 0),
    commands,
    basis: basis(
      ['tool_calls'],
      "the run's tool calls whose record repeats the command and args of an earlier one; tool calls: the attempts of the most repeated",
      { toolCalls: commands.flatMap((command) => command.tool_call_ids) },
    ),
  };
}
