/**
 * GET /v1/telemetry/correlations in the store actor: the basis for tying events to ToolCallScopes.
 * With `event`: that event's binding, tier and confidence, and the keys that matched. Without: each
 * binding of the run with how many events it holds, by tier.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ProvdError } from '../shared/errors.js';
import { tierConfidence } from './binding.js';
import { bindingFromJson } from './binding-json.js';
import { evidenceName, methodName } from './codes.js';
import { formatRfc3339Nanos } from './rfc3339.js';
import { requireRun } from './run-exists.js';
import { readRows, sql } from '../store/sql.js';

export interface CorrelationsParams {
  run: string;
  event: string | null;
}

/** The `provenance.telemetry_correlations/v1` body. */
export async function explainCorrelations(
  connection: DuckDBConnection,
  params: CorrelationsParams,
): Promise<string> {
  await requireRun(connection, params.run);
  const body =
    params.event === null
      ? await bindingsOfRun(connection, params.run)
      : await basisOfEvent(connection, params.run, params.event);
  return JSON.stringify({
    schema_version: 'provenance.telemetry_correlations/v1',
    run_id: params.run,
    ...body,
  });
}

async function basisOfEvent(connection: DuckDBConnection, run: string, eventId: string): Promise<object> {
  const [row] = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT e.id, e.time_ns, e.pid, e.tgid, e.ppid, e.cgroup_id, e.container_id, e.attrs, e.corr_method,
          e.corr_confidence, e.evidence_level, b.record
        FROM events e LEFT JOIN bindings b ON b.binding_id = e.binding_id
        WHERE e.run_id = ${run} AND e.id = ${eventId}`,
  );
  if (row === undefined) throw new ProvdError('run_not_found', `no event "${eventId}" in run "${run}"`);
  // events join a run only through a binding; a missing record means the store was edited by hand
  if (row['record'] === null)
    throw new ProvdError('run_not_found', `event "${eventId}" has no binding record`);
  const binding = bindingFromJson(row['record'] as string);
  const method = methodName(row['corr_method'] as number);
  const matched: Record<string, unknown> = {};
  if (method === 'process') matched['process_id'] = binding.process_id;
  if (method === 'cgroup') matched['cgroup_id'] = row['cgroup_id'];
  if (method === 'container')
    matched['container_id'] = { event: row['container_id'], binding: binding.container_id };
  if (method === 'pid')
    matched['pid'] = {
      event: [row['pid'], row['tgid'], row['ppid']],
      binding: [binding.pid, binding.root_pid],
    };
  const correlation = {
    event_id: eventId,
    event_time: formatRfc3339Nanos(row['time_ns'] as bigint),
    binding_id: binding.binding_id,
    tool_call_id: binding.tool_call_id,
    method,
    confidence: row['corr_confidence'],
    tier_confidence: method === 'none' ? null : tierConfidence[method],
    binding_confidence: binding.confidence,
    evidence_level: evidenceName(row['evidence_level'] as number),
    matched,
    interval: { started_at: binding.started_at, ended_at: binding.ended_at },
    binding_source: binding.binding_source,
  };
  return { event_id: eventId, correlations: [correlation] };
}

async function bindingsOfRun(connection: DuckDBConnection, run: string): Promise<object> {
  const bindings = await readRows<{ record: string }>(
    connection,
    sql`SELECT record FROM bindings WHERE run_id = ${run} ORDER BY created_ns`,
  );
  const counts = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT binding_id, corr_method, count(*) AS n FROM events WHERE run_id = ${run} GROUP BY ALL`,
  );
  const byBinding = new Map<string, Record<string, number>>();
  for (const row of counts) {
    const tiers = byBinding.get(row['binding_id'] as string) ?? {};
    tiers[methodName(row['corr_method'] as number)] = Number(row['n']);
    byBinding.set(row['binding_id'] as string, tiers);
  }
  const correlations = bindings.map((row) => {
    const binding = bindingFromJson(row.record);
    const byMethod = byBinding.get(binding.binding_id) ?? {};
    return {
      binding_id: binding.binding_id,
      tool_call_id: binding.tool_call_id,
      binding_source: binding.binding_source,
      confidence: binding.confidence,
      keys: {
        process_id: binding.process_id,
        cgroup_id: binding.cgroup_id,
        container_id: binding.container_id,
        pid: binding.pid,
        root_pid: binding.root_pid,
      },
      interval: { started_at: binding.started_at, ended_at: binding.ended_at },
      events: Object.values(byMethod).reduce((sum, n) => sum + n, 0),
      events_by_method: byMethod,
    };
  });
  return { event_id: null, correlations };
}
