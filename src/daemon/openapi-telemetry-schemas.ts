/**
 * Exact schemas of the telemetry bodies (ingest, events, windows, producer health), read from the
 * code that builds each one (named beside each schema). Enums come from the code's own constants, so
 * a new event type or tier reaches the document without an edit here.
 */
import { correlationMethods, evidenceLevels, spoolStates } from '../telemetry/codes.js';
import { eventSources, eventTypes, rejectionCodes } from '../telemetry/event.js';
import type { JsonObject } from './openapi-schemas.js';
import {
  body,
  closed,
  count,
  countsBy,
  enumOf,
  enumOrNull,
  instant,
  instantOrNull,
  integerOrNull,
  nextCursor,
  pageLimit,
  ratioOrNull,
  ref,
  text,
  textOrNull,
} from './openapi-schema-parts.js';

/** `provenance.ingest/v1`: IngestSummary in ingest/ingest-router.ts. */
export const ingestSchema: JsonObject = body('ingest', {
  batch_id: text,
  accepted: count,
  rejected: count,
  pending: { ...count, description: 'accepted events that found no binding yet and wait in the spool' },
  errors: {
    type: 'array',
    maxItems: 100, // must match ingest-router.ts: maxErrors
    items: closed({ line: { type: 'integer', minimum: 1 }, code: enumOf(rejectionCodes), message: text }),
  },
  errors_truncated: { type: 'boolean', description: 'more lines were rejected than `errors` lists' },
});

/** One runtime event record, as telemetry/event-json.ts writes it. */
export const telemetryEventSchema: JsonObject = closed({
  id: text,
  run_id: textOrNull,
  type: enumOf(eventTypes),
  source: enumOf(eventSources),
  time: { ...instant, description: 'capture instant, UTC with nanoseconds' },
  time_received: { ...instant, description: 'capture time as the producer sent it' },
  ingested_at: instant,
  pid: integerOrNull,
  tgid: integerOrNull,
  ppid: integerOrNull,
  uid: integerOrNull,
  comm: textOrNull,
  cgroup_id: textOrNull,
  container_id: textOrNull,
  tool_call_id: textOrNull,
  binding_id: textOrNull,
  correlation: closed({
    method: enumOf(correlationMethods),
    confidence: ratioOrNull,
    evidence_level: enumOf(evidenceLevels),
  }),
  attrs: { type: 'object', description: 'type-specific: path, flags, argv, dst_ip, dst_port, query, ...' },
  hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
});

/** `provenance.telemetry_events/v1`: one page, per telemetry/events.query.ts. */
export const telemetryEventsSchema: JsonObject = body('telemetry_events', {
  run_id: text,
  type: enumOrNull(eventTypes),
  limit: pageLimit,
  count,
  has_more: { type: 'boolean' },
  next_cursor: nextCursor,
  events: { type: 'array', items: ref('TelemetryEvent') },
});

/** `provenance.telemetry_event_windows/v1`: one page of windows, per telemetry/windows.query.ts. */
export const telemetryEventWindowsSchema: JsonObject = body('telemetry_event_windows', {
  run_id: text,
  window_s: enumOf([10, 60]), // WindowsParams['window'] in telemetry/windows.query.ts
  type: enumOrNull(eventTypes),
  from: instantOrNull,
  to: instantOrNull,
  limit: pageLimit,
  count,
  has_more: { type: 'boolean' },
  next_cursor: nextCursor,
  windows: {
    type: 'array',
    items: closed({
      start: instant,
      end: instant,
      type: enumOf(eventTypes),
      events: count,
      correlated: count,
      risky: count,
      bytes: count,
    }),
  },
});

/** `provenance.producer_health/v1`, per telemetry/producer-health.query.ts. */
export const producerHealthSchema: JsonObject = body('producer_health', {
  run_id: textOrNull,
  sources: {
    type: 'object',
    description: 'per source: accepted, spooled, no_capture_time, ...',
    propertyNames: { enum: [...eventSources] },
    additionalProperties: countsBy(),
  },
  drops: closed({
    invalid: count,
    invalid_by_reason: countsBy(rejectionCodes),
    spool_expired: count,
    spool_overflowed: count,
  }),
  disk_buffering: closed({
    spool_events: count,
    spool_bytes: count,
    spool_ttl_s: { type: 'number', minimum: 0 },
    spool_max_events: count,
    spool_max_bytes: count,
    spool_settled_late: count,
    ingest_in_flight_bytes: count,
    ingest_refused_requests: count,
  }),
  correlation_coverage: {
    oneOf: [
      closed(
        {
          scope: { type: 'string', const: 'run' },
          events: count,
          by_evidence_level: countsBy(evidenceLevels),
          by_method: countsBy(correlationMethods),
        },
        'the events of `run_id`',
      ),
      closed(
        {
          scope: { type: 'string', const: 'all' },
          events: count,
          attributed: count,
          attributed_ratio: ratioOrNull,
          by_spool_state: countsBy(spoolStates),
        },
        'every event, when no run is given',
      ),
    ],
  },
  coverage_gaps: {
    type: 'object',
    description: 'by gap kind (kernel_loss, spool_expiry, ...)',
    additionalProperties: closed({ gaps: count, lost_events: count }),
  },
});

/** The telemetry schemas by their `components.schemas` name. */
export const telemetrySchemas: Record<string, JsonObject> = {
  Ingest: ingestSchema,
  TelemetryEvent: telemetryEventSchema,
  TelemetryEvents: telemetryEventsSchema,
  TelemetryEventWindows: telemetryEventWindowsSchema,
  ProducerHealth: producerHealthSchema,
};
