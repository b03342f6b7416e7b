/**
 * Exact schemas of the binding bodies: the POST /v1/telemetry/bind request and answer, and the
 * correlation basis built from stored bindings. Read from telemetry/binding.ts, bind.route.ts and
 * correlations.query.ts; enums come from their constants.
 */
import { bindingSources } from '../telemetry/binding.js';
import { correlationMethods, evidenceLevels } from '../telemetry/codes.js';
import type { JsonObject } from './openapi-schemas.js';
import {
  bindingConfidence,
  bindingId,
  body,
  closed,
  count,
  countsBy,
  enumOf,
  enumOrNull,
  instant,
  instantOrNull,
  integerOrNull,
  ratioOrNull,
  ref,
  text,
  textOrNull,
} from './openapi-schema-parts.js';

// limits of parseBindRequest; must match telemetry/binding.ts: maxIdLength, maxCgroupLength, maxPid
const maxIdLength = 256;
const maxCgroupLength = 4096;
const maxPid = 2 ** 31 - 1;
// isCleanText refuses C0 and C1 control characters (and unpaired surrogates, which a pattern cannot say)
const cleanText = (max: number): JsonObject => ({
  minLength: 1,
  maxLength: max,
  pattern: '^[^\\x00-\\x1f\\x7f-\\x9f]*$',
  description: `1..${max} UTF-16 units, no control characters`,
});
const pidOrNull: JsonObject = { type: ['integer', 'null'], minimum: 1, maximum: maxPid };
const interval = closed({ started_at: instantOrNull, ended_at: instantOrNull }, 'the binding interval');
// fields that tie a binding to system-side identities; parseBindRequest needs at least one
const bindingKeys = ['process_id', 'container_id', 'cgroup_id', 'pid', 'root_pid'] as const;

/** The body of POST /v1/telemetry/bind, per parseBindRequest in telemetry/binding.ts; null means absent. */
export const bindRequestSchema: JsonObject = {
  type: 'object',
  description:
    'at least one of process_id, container_id, cgroup_id, pid, root_pid; ended_at not before started_at',
  required: ['run_id', 'tool_call_id'],
  properties: {
    run_id: { type: 'string', ...cleanText(maxIdLength) },
    tool_call_id: { type: 'string', ...cleanText(maxIdLength) },
    session_id: { type: ['string', 'null'], ...cleanText(maxIdLength) },
    process_id: { type: ['string', 'null'], ...cleanText(maxIdLength) },
    container_id: { type: ['string', 'null'], ...cleanText(maxIdLength) },
    cgroup_id: {
      description: 'a cgroup v2 id (an integer below 2^53, or its decimal string) or a cgroup path',
      anyOf: [
        { type: 'string', ...cleanText(maxCgroupLength) },
        { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        { type: 'null' },
      ],
    },
    pid: pidOrNull,
    root_pid: pidOrNull,
    started_at: instantOrNull,
    ended_at: {
      ...instantOrNull,
      description: 'inclusive; a whole-second time covers its whole second',
    },
    binding_source: { ...enumOrNull(bindingSources), default: 'control_plane' },
    confidence: {
      type: ['number', 'null'],
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'default by source: ai_asserted 0.5, k8s_cgroup 0.8, otherwise 1.0',
    },
  },
  anyOf: bindingKeys.map((key) => ({ required: [key], properties: { [key]: { not: { type: 'null' } } } })),
  additionalProperties: false,
};

/** `provenance.binding/v1`: the stored Binding (telemetry/binding.ts) as bind.route.ts answers it. */
export const bindingSchema: JsonObject = body('binding', {
  binding_id: bindingId,
  run_id: text,
  tool_call_id: text,
  session_id: textOrNull,
  process_id: textOrNull,
  container_id: textOrNull,
  cgroup_id: { ...textOrNull, description: 'a cgroup v2 id as a decimal string, or a cgroup path' },
  pid: pidOrNull,
  root_pid: pidOrNull,
  started_at: { ...instantOrNull, description: 'as received' },
  ended_at: { ...instantOrNull, description: 'as received' },
  binding_source: enumOf(bindingSources),
  confidence: bindingConfidence,
  created_at: instant,
  recorrelated: { ...count, description: 'spooled events this binding settled' },
});

/** The basis of one event's correlation (basisOfEvent in telemetry/correlations.query.ts). */
export const eventCorrelationSchema: JsonObject = closed({
  event_id: text,
  event_time: instant,
  binding_id: bindingId,
  tool_call_id: text,
  method: enumOf(correlationMethods),
  confidence: ratioOrNull,
  tier_confidence: ratioOrNull,
  binding_confidence: bindingConfidence,
  evidence_level: enumOf(evidenceLevels),
  matched: {
    type: 'object',
    description: 'the key the tier matched on: at most one of these',
    maxProperties: 1,
    properties: {
      process_id: textOrNull,
      cgroup_id: textOrNull,
      container_id: closed({ event: textOrNull, binding: textOrNull }),
      pid: closed({
        event: {
          type: 'array',
          items: integerOrNull,
          minItems: 3,
          maxItems: 3,
          description: 'pid, tgid, ppid',
        },
        binding: { type: 'array', items: pidOrNull, minItems: 2, maxItems: 2, description: 'pid, root_pid' },
      }),
    },
    additionalProperties: false,
  },
  interval,
  binding_source: enumOf(bindingSources),
});

/** One binding of a run with the events it holds (bindingsOfRun in telemetry/correlations.query.ts). */
export const bindingCorrelationSchema: JsonObject = closed({
  binding_id: bindingId,
  tool_call_id: text,
  binding_source: enumOf(bindingSources),
  confidence: bindingConfidence,
  keys: closed({
    process_id: textOrNull,
    cgroup_id: textOrNull,
    container_id: textOrNull,
    pid: pidOrNull,
    root_pid: pidOrNull,
  }),
  interval,
  events: count,
  events_by_method: countsBy(correlationMethods),
});

/** `provenance.telemetry_correlations/v1`: one event's basis (`event_id` set) or every binding of the run. */
export const telemetryCorrelationsSchema: JsonObject = body('telemetry_correlations', {
  run_id: text,
  event_id: textOrNull,
  correlations: {
    type: 'array',
    items: { oneOf: [ref('EventCorrelation'), ref('BindingCorrelation')] },
  },
});

/** The binding schemas by their `components.schemas` name. */
export const bindingSchemas: Record<string, JsonObject> = {
  BindRequest: bindRequestSchema,
  Binding: bindingSchema,
  EventCorrelation: eventCorrelationSchema,
  BindingCorrelation: bindingCorrelationSchema,
  TelemetryCorrelations: telemetryCorrelationsSchema,
};
