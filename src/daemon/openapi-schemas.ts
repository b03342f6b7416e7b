/**
 * The `components` of the OpenAPI document: the body schemas the endpoints declare (body-components.ts),
 * generic envelopes for the bodies not served yet, the error responses of docs/contract.md
 * (ErrorBody with each response's codes), and the bearer scheme.
 */
import type { WireErrorCode } from '../shared/errors.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import { versionComponentName } from '../shared/schema/body-versions.js';
import { bodyComponentName, bodySchemas, errorBodyType, unionSchemas } from './body-components.js';
import { tidySchema } from '../shared/schema/tidy-schema.js';

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

/** The schema this document describes itself with: not a provd body, so it has no schema_version. */
const openapiSchema: JsonObject = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  description: 'an OpenAPI 3.1.0 document; it has no schema_version',
};

/** The `components.schemas` name of the 200 body whose `schema_version` is `provenance.<schema>/v1`. */
export function schemaComponentName(schema: string): string {
  if (schema === 'openapi') return 'OpenApiDocument';
  if (schema === 'prometheus') return 'PrometheusText';
  if (schema === 'hook') return 'HookAnswer';
  return bodyComponentName(schema) ?? versionComponentName(schema);
}

/** ErrorBody's schema, tidied as the body components are. */
const errorBody = ((): JsonObject => {
  const components = errorBodyType().components.schemas as Record<string, JsonObject>;
  return tidySchema(components['ErrorBody']!, { components, inlineObjects: false });
})();

/** ErrorBody with its `error.code` narrowed to `codes`. */
function errorSchema(codes: readonly WireErrorCode[]): JsonObject {
  const body = structuredClone(errorBody) as JsonObject & {
    properties: { error: { properties: { code: JsonObject } } };
  };
  const error = body.properties.error.properties;
  error.code = { ...error.code, enum: [...codes] };
  return body;
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

/** The Retry-After header of answers that mean "later" (429, 503). */
const retryAfter = {
  description: 'seconds to wait before retrying',
  schema: { type: 'integer', minimum: 0 },
};

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
  Forbidden: errorResponse(
    ['forbidden'],
    "`forbidden`: a web page sent the request (its Origin or Sec-Fetch-Site is not the daemon's own; a " +
      "same-origin request's Host is not a loopback name with the daemon's port, as the web view's are; or, " +
      'without --auth-token, its Host is not a loopback name); or (POST /v1/record) executing a command ' +
      'needs the daemon to run with --auth-token, execute:false needs none',
  ),
  UnsupportedMediaType: errorResponse(
    ['unsupported_media_type'],
    '`unsupported_media_type`: the body is not sent as the type this endpoint reads (the `Accept` header names it)',
    { Accept: { description: 'the media types the endpoint reads', schema: { type: 'string' } } },
  ),
  ToolCallExists: errorResponse(
    ['tool_call_exists'],
    '`tool_call_exists`: the run already holds (or is running) a tool call with this id',
  ),
  RunExists: errorResponse(
    ['run_exists'],
    '`run_exists`: a record, binding, event or object named the run already (a watch starts a run of its own)',
  ),
  // a known path answers 404 for an unknown run, or for an event, node, baseline, object, artifact
  // or tool call nothing is stored under (a checkpoint, when sealing is off); an unknown path gets `ErrorBody`
  NotFound: errorResponse(
    ['run_not_found', 'not_found'],
    '`run_not_found`: `run` names no known run; `not_found`: nothing is stored under the event, node, ' +
      'baseline, hash or tool call asked for, or the run holds no such object yet (GET /v1/graph/checkpoint)',
  ),
  PayloadTooLarge: errorResponse(
    ['payload_too_large'],
    '`payload_too_large`: the body is over the limit: 1 MiB for a JSON body, 64 MiB by default for ingest (--max-body-bytes)',
  ),
  Backpressure: errorResponse(
    ['backpressure'],
    '`backpressure`: the ingest queues are full, or 16 recorded commands run',
    {
      'Retry-After': retryAfter,
    },
  ),
  KeyReused: errorResponse(
    ['idempotency_key_reused'],
    '`idempotency_key_reused`: the Idempotency-Key was first used with another body or format',
  ),
  NotImplemented: errorResponse(['not_implemented'], 'part of the interface, not served by this build yet'),
  Unavailable: errorResponse(
    ['unavailable'],
    '`unavailable`: the store is unusable (the message says when the disk under the data dir is full), ' +
      'or the daemon is shutting down',
    { 'Retry-After': retryAfter },
  ),
  Internal: errorResponse(['internal'], '`internal`: an unexpected failure (HTTP 500)'),
};

/**
 * Builds `components` for the given endpoints: the generated body schemas. Every endpoint needs
 * a generated body for its `schema`, or the build fails.
 */
export function buildComponents(list: readonly Endpoint<never>[]): OpenApiComponents {
  const schemas: Record<string, JsonObject> = {
    ...bodySchemas(),
    ...unionSchemas(),
    OpenApiDocument: openapiSchema,
    PrometheusText: {
      type: 'string',
      description: 'Prometheus text exposition format 0.0.4: `# HELP` and `# TYPE` lines, then samples',
    },
  };
  for (const { schema, operationId } of list) {
    const name = schemaComponentName(schema);
    if (schemas[name] === undefined)
      throw new Error(`failed to document ${operationId}: no TS type fixes schema_version ${schema}`);
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
