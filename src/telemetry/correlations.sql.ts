/**
 * GET /v1/telemetry/correlations in the store actor: the basis for tying events to ToolCallScopes.
 * With `event`: that event's binding, tier and confidence, and the keys that matched. Without: each
 * binding of the run with how many events it holds, by tier.
 */
import type { StoreConnection } from '../store/store-connection.js';
import type { tags } from 'typia';
import { ProvdError } from '../shared/errors.js';
import type { Count, DateTimeText, Integer, Ratio } from '../shared/schema/wire-types.js';
import {
  tierConfidence,
  type BindingConfidence,
  type BindingId,
  type BindingSource,
  type Pid,
} from './binding.js';
import { bindingFromJson } from './binding-json.js';
import {
  isBindingTier,
  evidenceName,
  methodName,
  type CorrelationMethod,
  type CountsByMethod,
  type EvidenceLevel,
} from '../model/codes.js';
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { requireRun } from '../store/run-exists.sql.js';
import { readRows, sql } from '../store/sql.js';
import { jsonText, type JsonText } from '../store/json-text.js';

export interface CorrelationsParams {
  run: string;
  event: string | null;
}

/** The basis for tying a run's events to ToolCallScopes (`provenance.telemetry_correlations/v1`). */
export interface TelemetryCorrelations {
  schema_version: 'provenance.telemetry_correlations/v1';
  run_id: string;
  /** The event asked about; null when `correlations` lists every binding of the run. */
  event_id: string | null;
  correlations: (EventCorrelation | BindingCorrelation)[];
}

/** A binding's interval as received. */
export interface BindingInterval {
  started_at: DateTimeText | null;
  ended_at: DateTimeText | null;
}

/** How one event was tied to its binding: tier, confidences, and the key the tier matched on. */
export interface EventCorrelation {
  event_id: string;
  event_time: DateTimeText;
  binding_id: BindingId;
  tool_call_id: string;
  method: CorrelationMethod;
  /** The lower of the tier's and the binding's confidence. */
  confidence: Ratio | null;
  tier_confidence: Ratio | null;
  binding_confidence: BindingConfidence;
  evidence_level: EvidenceLevel;
  /** The key the tier matched on: at most one of these. */
  matched: {
    process_id?: string | null;
    cgroup_id?: string | null;
    container_id?: { event: string | null; binding: string | null };
    /** The event's pid, tgid and ppid; the binding's pid and root_pid. */
    pid?: { event: [Integer | null, Integer | null, Integer | null]; binding: [Pid | null, Pid | null] };
  } & tags.JsonSchemaPlugin<{ maxProperties: 1 }>;
  interval: BindingInterval;
  binding_source: BindingSource;
}

/** One binding of a run: its keys, and how many events it holds by tier. */
export interface BindingCorrelation {
  binding_id: BindingId;
  tool_call_id: string;
  binding_source: BindingSource;
  confidence: BindingConfidence;
  keys: {
    process_id: string | null;
    cgroup_id: string | null;
    container_id: string | null;
    pid: Pid | null;
    root_pid: Pid | null;
  };
  interval: BindingInterval;
  events: Count;
  events_by_method: CountsByMethod;
}

/** The TelemetryCorrelations body, as JSON text. */
export async function explainCorrelations(
  connection: StoreConnection,
  params: CorrelationsParams,
): Promise<JsonText<TelemetryCorrelations>> {
  await requireRun(connection, params.run);
  const body: TelemetryCorrelations = {
    schema_version: 'provenance.telemetry_correlations/v1',
    run_id: params.run,
    event_id: params.event,
    correlations:
      params.event === null
        ? await bindingsOfRun(connection, params.run)
        : [await basisOfEvent(connection, params.run, params.event)],
  };
  return jsonText(body);
}

async function basisOfEvent(
  connection: StoreConnection,
  run: string,
  eventId: string,
): Promise<EventCorrelation> {
  const [row] = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT e.id, e.time_ns, e.tool_call_id, e.pid, e.tgid, e.ppid, e.cgroup_id, e.container_id, e.attrs, e.corr_method,
          e.corr_confidence, e.evidence_level, b.record
        FROM events e LEFT JOIN bindings b ON b.binding_id = e.binding_id
        WHERE e.run_id = ${run} AND e.id = ${eventId}`,
  );
  if (row === undefined) throw new ProvdError('not_found', `no event "${eventId}" in run "${run}"`);
  // events join a run only through a binding; a missing record means the store was edited by hand
  if (row['record'] === null) throw new ProvdError('not_found', `event "${eventId}" has no binding record`);
  const binding = bindingFromJson(row['record'] as string);
  const method = methodName(row['corr_method'] as number);
  const matched: EventCorrelation['matched'] = {};
  if (method === 'process') matched.process_id = binding.process_id;
  if (method === 'cgroup') matched.cgroup_id = row['cgroup_id'] as string | null;
  if (method === 'container')
    matched.container_id = { event: row['container_id'] as string | null, binding: binding.container_id };
  if (method === 'pid') {
    const id = (column: string): number | null => row[column] as number | null;
    matched.pid = { event: [id('pid'), id('tgid'), id('ppid')], binding: [binding.pid, binding.root_pid] };
  }
  return {
    event_id: eventId,
    event_time: formatRfc3339Nanos(row['time_ns'] as bigint),
    binding_id: binding.binding_id,
    // a tool call tie (docs/agents.md) moves the event from its binding's scope to a tool call
    tool_call_id: (row['tool_call_id'] as string | null) ?? binding.tool_call_id,
    method,
    confidence: row['corr_confidence'] as number | null,
    tier_confidence: isBindingTier(method) ? tierConfidence[method] : null,
    binding_confidence: binding.confidence,
    evidence_level: evidenceName(row['evidence_level'] as number),
    matched,
    interval: { started_at: binding.started_at, ended_at: binding.ended_at },
    binding_source: binding.binding_source,
  };
}

async function bindingsOfRun(connection: StoreConnection, run: string): Promise<BindingCorrelation[]> {
  const bindings = await readRows<{ record: string }>(
    connection,
    sql`SELECT record FROM bindings WHERE run_id = ${run} ORDER BY created_ns`,
  );
  const counts = await readRows<Record<string, unknown>>(
    connection,
    sql`SELECT binding_id, corr_method, count(*) AS n FROM events WHERE run_id = ${run} GROUP BY ALL`,
  );
  const byBinding = new Map<string, CountsByMethod>();
  for (const row of counts) {
    const tiers = byBinding.get(row['binding_id'] as string) ?? {};
    tiers[methodName(row['corr_method'] as number)] = Number(row['n']);
    byBinding.set(row['binding_id'] as string, tiers);
  }
  return bindings.map((row) => {
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
}
