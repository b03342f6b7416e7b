/**
 * A watched agent's start and end in its run's context chain, on the store thread: `agent_watch`
 * objects. The start claims the run: a run any record, binding, event or object already named is
 * refused (`run_exists`), so a watch never joins evidence it did not make.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { inTransaction, readRows, sql } from '../../store/sql.js';
import { appendToChains, ensureRun } from '../graph-chains.sql.js';

/** The start of a watch, as the watch route built it. */
export interface WatchStartWrite {
  run_id: string;
  agent: string | null;
  /** The agent's argv[0], and the sha256 of its arguments (kept out: a prompt may be among them). */
  command: string;
  args_hash: string;
  args_count: number;
  uid: number;
  pid: number;
  cgroup_id: string;
  cgroup_path: string;
  binding_id: string;
  started_ns: string;
}

/** The end of a watch. */
export interface WatchEndWrite {
  run_id: string;
  command: string;
  exit_code: number | null;
  signal: string | null;
  processes_left: number;
  /**
   * `client`: provd watch said how the agent exited; `cgroup`: the cgroup emptied and no client
   * said; `not_started`: the stub could not be moved into the cgroup, so the agent never ran.
   */
  reported_by: 'client' | 'cgroup' | 'not_started';
  ended_ns: string;
}

/** Claims the run and stores the start; throws run_exists when the run is known already. */
export async function writeWatchStart(connection: StoreConnection, write: WatchStartWrite): Promise<string> {
  return inTransaction(connection, async () => {
    const [known] = await readRows<{ n: bigint }>(
      connection,
      sql`SELECT count(*) AS n FROM runs WHERE run_id = ${write.run_id}`,
    );
    if (known!.n > 0n)
      throw new ProvdError(
        'run_exists',
        `run "${write.run_id}" exists already: a watch starts a run of its own`,
      );
    await ensureRun(connection, write.run_id, BigInt(write.started_ns));
    const { run_id: runId, started_ns: startedNs, ...fields } = write;
    return appendWatchObject(connection, runId, {
      event: 'started',
      ...fields,
      started_ns: startedNs,
      evidence_level: 'kernel_correlated',
    });
  });
}

/** Stores the end of a watch. */
export async function writeWatchEnd(connection: StoreConnection, write: WatchEndWrite): Promise<string> {
  return inTransaction(connection, async () => {
    const { run_id: runId, ...fields } = write;
    return appendWatchObject(connection, runId, { event: 'ended', ...fields });
  });
}

/** Appends an `agent_watch` object to the run's context chain: `payload` after its index. */
async function appendWatchObject(
  connection: StoreConnection,
  runId: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const [object] = await appendToChains(connection, [
    {
      runId,
      chain: 'context',
      build: (previous, index) => ({
        kind: 'agent_watch',
        run_id: runId,
        parents: [previous],
        payload: { index, ...payload },
      }),
    },
  ]);
  return object!.hash;
}
