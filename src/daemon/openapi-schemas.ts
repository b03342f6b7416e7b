/**
 * The `components` of the OpenAPI document: body schemas transcribed from the resource tables of
 * spec/interface.md, the exact ones of openapi-telemetry-schemas.ts and openapi-binding-schemas.ts,
 * the error responses of design/contract.md, and the bearer scheme.
 */
import { wireErrorCodes, type WireErrorCode } from '../shared/errors.js';
import type { Endpoint } from './endpoints.js';
import { bindingSchemas } from './openapi-binding-schemas.js';
import { telemetrySchemas } from './openapi-telemetry-schemas.js';

/** A JSON Schema (or any other OpenAPI object) as plain JSON data. */
export type JsonObject = { [key: string]: unknown };

/** One documented response: inline, or a `$ref` into `components.responses`. */
export type OpenApiResponse =
  | { $ref: string }
  | {
      description: string;
      headers?: Record<string, JsonObject>;
      content?: Record<string, { schema: JsonObject }>;
    };

/** One operation of a path item. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  security: Record<string, string[]>[];
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, OpenApiResponse>;
}

/** The parts of `components` that provd uses. */
export interface OpenApiComponents {
  schemas: Record<string, JsonObject>;
  responses: Record<string, OpenApiResponse>;
  headers: Record<string, JsonObject>;
  securitySchemes: Record<string, JsonObject>;
}

/** A `$ref` to a schema in `components.schemas`. */
export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** A `$ref` to a response in `components.responses`. */
export const responseRef = (name: keyof typeof errorResponses): OpenApiResponse => ({
  $ref: `#/components/responses/${name}`,
});

/** Headers sent on every response (`X-Request-Id`), to spread into each response's `headers`. */
export const commonHeaders = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } };

/** Names in `components.schemas` of the bodies the spec defines field by field. */
const namedSchemas: Record<string, string> = {
  daemon_liveness: 'Liveness',
  daemon_health: 'DaemonHealth',
  verify: 'VerifyResult',
  openapi: 'OpenApiDocument',
};

/** The `components.schemas` name of the 200 body whose `schema_version` is `provenance.<schema>/v1`. */
export function schemaComponentName(schema: string): string {
  return (
    namedSchemas[schema] ??
    schema.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase())
  );
}

const schemaVersion = (name: string): JsonObject => ({ type: 'string', enum: [`provenance.${name}/v1`] });
const countOrNull = (description: string): JsonObject => ({
  type: ['integer', 'null'],
  minimum: 0,
  description,
});
const count: JsonObject = { type: 'integer', minimum: 0 };

/** The error body of every endpoint (contract.md, HTTP conventions), its `code` one of `codes`. */
function errorSchema(codes: readonly WireErrorCode[]): JsonObject {
  return {
    type: 'object',
    required: ['schema_version', 'error'],
    properties: {
      schema_version: { type: 'string', const: 'provenance.error/v1' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: [...codes] }, message: { type: 'string' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
}

// spec/interface.md, "DaemonHealth": additional properties are allowed
const daemonHealthSchema: JsonObject = {
  type: 'object',
  required: ['schema_version', 'status', 'ready', 'coverage_status', 'checks'],
  properties: {
    schema_version: schemaVersion('daemon_health'),
    status: { type: 'string', enum: ['ok', 'degraded', 'unavailable'] },
    ready: { type: 'boolean', description: 'true when the database query and format check pass' },
    coverage_status: {
      type: 'string',
      enum: ['unknown', 'not_observed', 'no_recorded_gaps', 'pending', 'gaps_recorded'],
    },
    checks: {
      type: 'object',
      additionalProperties: { type: 'object' },
      description: 'check name to its report',
    },
    queued_spool: countOrNull('events waiting in the native spool; null when unknown'),
    queued_spool_bytes: countOrNull('bytes in the native spool; null when unknown'),
    native_capture: { type: 'object', description: 'per-probe capability and degradation reports' },
  },
  additionalProperties: true,
};

const livenessSchema: JsonObject = {
  type: 'object',
  required: ['schema_version', 'status'],
  properties: {
    schema_version: { type: 'string', const: 'provenance.daemon_liveness/v1' },
    status: { type: 'string', enum: ['ok'] },
  },
};

// spec/interface.md, "VerifyResult" and its issue item
const verifyResultSchema: JsonObject = {
  type: 'object',
  required: ['schema_version', 'run_id', 'status', 'issue_count', 'error_count', 'warning_count', 'issues'],
  properties: {
    schema_version: schemaVersion('verify'),
    run_id: { type: 'string' },
    status: { type: 'string', enum: ['ok', 'failed', 'unavailable'] },
    issue_count: { ...count, description: 'counts only checks that completed' },
    error_count: count,
    warning_count: count,
    error: { type: 'string', description: 'run error kept when verification could not complete' },
    issues: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['severity', 'kind', 'id', 'message'],
        properties: {
          severity: { type: 'string', enum: ['error', 'warning'] },
          kind: { type: 'string' },
          id: { type: 'string' },
          message: { type: 'string' },
        },
      },
    },
  },
};

const openapiSchema: JsonObject = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  description: 'an OpenAPI 3.1.0 document; it has no schema_version',
};

/** A versioned envelope: its fields beyond `schema_version` are not part of the interface yet. */
function envelopeSchema(schema: string): JsonObject {
  return {
    type: 'object',
    required: ['schema_version'],
    properties: { schema_version: { type: 'string', const: `provenance.${schema}/v1` } },
    additionalProperties: true,
  };
}

/** An error answer whose body's `code` is one of `codes`. */
function errorResponse(
  codes: readonly WireErrorCode[],
  description: string,
  headers: Record<string, JsonObject> = {},
): OpenApiResponse {
  return {
    description,
    headers: { ...commonHeaders, ...headers },
    content: { 'application/json': { schema: errorSchema(codes) } },
  };
}

/** Error answers shared by many operations, by `components.responses` name, each with its codes. */
const errorResponses = {
  BadRequest: errorResponse(
    ['invalid_argument', 'invalid_cursor'],
    '`invalid_argument`: a parameter or the body is missing or malformed (the message names it); ' +
      '`invalid_cursor`: the cursor is malformed or belongs to other filters',
  ),
  Unauthorized: errorResponse(
    ['unauthorized'],
    '`unauthorized`: the daemon runs with --auth-token and the token is missing or wrong',
    {
      'WWW-Authenticate': {
        description: 'the bearer challenge, `Bearer realm="provd"`',
        schema: { type: 'string' },
      },
    },
  ),
  // a known path answers 404 only for an unknown run (or event); an unknown path gets `Error`
  NotFound: errorResponse(['run_not_found'], '`run_not_found`: `run` (or another id) names nothing known'),
  PayloadTooLarge: errorResponse(
    ['payload_too_large'],
    '`payload_too_large`: the body is over the limit (default 64 MiB)',
  ),
  Backpressure: errorResponse(['backpressure'], '`backpressure`: the ingest queues are full', {
    'Retry-After': {
      description: 'seconds to wait before retrying',
      schema: { type: 'integer', minimum: 0 },
    },
  }),
  KeyReused: errorResponse(
    ['idempotency_key_reused'],
    '`idempotency_key_reused`: the Idempotency-Key was first used with another body or format',
  ),
  NotImplemented: errorResponse(['not_implemented'], 'part of the interface, not served by this build yet'),
  Unavailable: errorResponse(
    ['unavailable'],
    '`unavailable`: the store is unusable, or the daemon is shutting down',
  ),
  Internal: errorResponse(['internal'], '`internal`: an unexpected failure (HTTP 500)'),
};

/** Builds `components` for the given endpoints: an exact or envelope schema per body they answer. */
export function buildComponents(list: readonly Endpoint[]): OpenApiComponents {
  const schemas: Record<string, JsonObject> = {
    Error: errorSchema(Object.keys(wireErrorCodes) as WireErrorCode[]),
    Liveness: livenessSchema,
    DaemonHealth: daemonHealthSchema,
    VerifyResult: verifyResultSchema,
    OpenApiDocument: openapiSchema,
    ...telemetrySchemas,
    ...bindingSchemas,
  };
  for (const { schema } of list) {
    const name = schemaComponentName(schema);
    schemas[name] ??= envelopeSchema(schema);
  }
  return {
    schemas,
    responses: errorResponses,
    headers: {
      XRequestId: {
        description: 'identifier of this request, as logged by the daemon',
        schema: { type: 'string' },
      },
    },
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'Required only when the daemon was started with --auth-token (or PROVD_AUTH_TOKEN).',
      },
    },
  };
}
