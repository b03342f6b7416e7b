/**
 * The runs holding a command provd ran (an executed tool call of POST /v1/record, or a kill provd
 * carried out on one): a risks, responses or timeline page reads what provd did about its tool
 * calls (security/responses/command-facts.sql.ts) only for such a run, and a run without one, most
 * runs, pays no statement for it (the two reads cost a risks page about 40% of its time).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { RunsHolding } from '../../store/runs-holding.js';
import { sql } from '../../store/sql.js';

const commandRuns = new RunsHolding(
  sql`SELECT DISTINCT run_id FROM tool_calls WHERE json_extract(record, '$.executed')::BOOLEAN
      UNION SELECT DISTINCT run_id FROM enforcements`,
);

/** Notes that `run` holds a command provd ran; call before the write that stores it commits. */
export function noteCommandRun(connection: StoreConnection, run: string): void {
  commandRuns.note(connection, run);
}

/** Whether `run` may hold a command provd ran (false: it holds none). */
export function mayHoldCommands(connection: StoreConnection, run: string): Promise<boolean> {
  return commandRuns.mayHold(connection, run);
}
