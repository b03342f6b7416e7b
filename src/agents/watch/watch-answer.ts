/** The answers of POST /v1/watch and POST /v1/watch/end. */
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { WatchedAgent } from './watch-request.js';

/** `provenance.watch/v1`: the agent's stub is in its cgroup, and the cgroup is bound to the run. */
export interface WatchAnswer {
  schema_version: 'provenance.watch/v1';
  run_id: string;
  agent: WatchedAgent | null;
  /** The command the stub will exec (its argv[0]). */
  command: string;
  /** The stub's user, whom the agent runs as. */
  uid: number;
  pid: number;
  cgroup: { path: string; id: string };
  /** The binding of the cgroup to the run (tool call `agent`), and how its events correlate. */
  binding: {
    binding_id: string;
    tool_call_id: string;
    binding_source: 'control_plane';
    method: 'cgroup';
    evidence_level: 'kernel_correlated';
  };
  started_at: DateTimeText;
  /** The `agent_watch` object that records the start. */
  object_hash: string;
}

/** `provenance.watch_end/v1`: the watch is over; what is left in the cgroup is still captured. */
export interface WatchEndAnswer {
  schema_version: 'provenance.watch_end/v1';
  run_id: string;
  ended_at: DateTimeText;
  /** Processes still in the agent's cgroup when it exited: still bound to the run until they exit. */
  processes_left: Count;
  /** The `agent_watch` object that records the end; the run is sealed with a checkpoint after it. */
  object_hash: string;
}
