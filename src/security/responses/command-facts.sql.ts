/**
 * What provd knows of the tool calls it ran (POST /v1/record): when each ended, and the kill it
 * carried out on it (`enforcements`). Read as a part of the statement that reads a page's decisions
 * (judged-events.sql.ts), so a risks page pays no statement more for it.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import { mayHoldCommands } from '../../provenance/record/command-runs.sql.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { list, readRows, sql, type Statement } from '../../store/sql.js';
import type { CommandFacts, EnforcementRow } from './response.js';

/** A row of commandFactsRows: a tool call provd ran, or a kill it carried out. */
export type CommandFactsRow =
  | (EnforcementRow & { tool_call_id: string; part: 'kill' })
  | { tool_call_id: string; part: 'tool_call'; ended_ns: bigint | null };

/**
 * The rows of the tool calls provd ran among `toolCalls` of `run` and of their kills, with a `part`
 * column (`tool_call`, `kill`): to be read alone, or joined BY NAME to another part.
 */
export function commandFactsRows(run: string, toolCalls: readonly string[]): Statement {
  const ids = list(toolCalls, VARCHAR);
  return sql`SELECT 'tool_call' AS part, tool_call_id, ended_ns FROM tool_calls WHERE run_id = ${run}
        AND tool_call_id IN (SELECT unnest(${ids})) AND json_extract(record, '$.executed')::BOOLEAN
      UNION ALL BY NAME
      SELECT 'kill' AS part, tool_call_id, event_id, outcome, target_kind, target_id, processes_killed,
        message, enforced_ns
      FROM enforcements WHERE run_id = ${run} AND tool_call_id IN (SELECT unnest(${ids}))`;
}

/** The facts of each tool call the rows name: how it ended, and its first kill. */
export function commandFactsOf(rows: readonly CommandFactsRow[]): Map<string, CommandFacts> {
  const facts = new Map<string, CommandFacts>();
  for (const row of rows) {
    if (row.part !== 'tool_call') continue;
    const ended = row.ended_ns;
    facts.set(row.tool_call_id, {
      endedAt: ended === null ? null : formatRfc3339Nanos(ended),
      endedNs: ended,
      kill: null,
    });
  }
  const kills = rows.filter((row) => row.part === 'kill');
  kills.sort((a, b) => (a.enforced_ns < b.enforced_ns ? -1 : a.enforced_ns > b.enforced_ns ? 1 : 0));
  for (const { tool_call_id: id, part: _part, ...kill } of kills) {
    // a command still running has no tool_calls row yet, but its kill is already recorded
    const known = facts.get(id) ?? { endedAt: null, endedNs: null, kill: null };
    facts.set(id, { ...known, kill: known.kill ?? kill });
  }
  return facts;
}

/** The facts of the tool calls provd ran among `toolCalls` of `run`, read alone. */
export async function commandFacts(
  connection: StoreConnection,
  run: string,
  toolCalls: readonly string[],
): Promise<Map<string, CommandFacts>> {
  if (toolCalls.length === 0 || !(await mayHoldCommands(connection, run))) return new Map();
  return commandFactsOf(await readRows<CommandFactsRow>(connection, commandFactsRows(run, toolCalls)));
}
