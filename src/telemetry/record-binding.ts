/**
 * The binding POST /v1/record makes for a command it runs: `control_plane`, from the moment the
 * command starts, keyed by the command's own cgroup (or, without one, its root pid). It goes
 * through the same validation and store path as POST /v1/telemetry/bind.
 */
import type { RecordBinder } from '../provenance/record/record.route.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { storeBinding } from './bind.route.js';
import { isBindRequestError, parseBindRequest } from './binding.js';
import type { BindingLog } from './binding-log.js';
import type { TelemetryKinds } from './telemetry-kinds.js';

/** Binds recorded commands through the store and the workers' binding log. */
export function recordBinder(store: QueryClient<TelemetryKinds>, bindingLog: BindingLog): RecordBinder {
  return async ({ runId, toolCallId, cgroupId, rootPid, startedNs }) => {
    const binding = parseBindRequest(
      {
        run_id: runId,
        tool_call_id: toolCallId,
        cgroup_id: cgroupId,
        root_pid: rootPid,
        started_at: formatRfc3339Nanos(startedNs),
        binding_source: 'control_plane',
      },
      BigInt(Date.now()) * 1_000_000n,
    );
    if (isBindRequestError(binding)) throw new Error(`record binding refused: ${binding.message}`);
    await storeBinding(store, bindingLog, binding);
    return binding.binding_id;
  };
}
