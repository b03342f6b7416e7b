/**
 * The OpenAPI 3.1.0 document of the HTTP interface. It is built from the endpoint list, like the
 * router, so the two cannot disagree; `npm run generate` writes it to openapi.json.
 */
import { provdVersion } from '../shared/package-root.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RequestParam } from '../shared/http/param-contract.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import { rootComponentName } from './body-components.js';
import { endpoints } from './endpoints.js';
import {
  buildComponents,
  commonHeaders,
  responseRef,
  schemaComponentName,
  schemaRef,
  type OpenApiComponents,
  type OpenApiOperation,
  type OpenApiResponse,
} from './openapi-schemas.js';

/** The whole document, as plain JSON data. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    /** The provd release that serves this interface (package.json), beside the interface's own version. */
    'x-provd-version': string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: { url: string; description: string }[];
  paths: Record<string, Partial<Record<'get' | 'post', OpenApiOperation>>>;
  components: OpenApiComponents;
}

const publicNote = 'Never needs a token, even when bearer auth is on.';
const authNote =
  'Needs `Authorization: Bearer <token>` only when the daemon runs with --auth-token; ' +
  'otherwise unauthenticated requests are accepted.';

function parameter({ name, in: location, required, description, schema }: RequestParam): JsonObject {
  return { name, in: location, required, ...(description === undefined ? {} : { description }), schema };
}

// a body without an exact schema is documented by its media type only
function requestSchema({ body, bodyType }: Endpoint<never>): JsonObject {
  if (body === 'application/x-ndjson') return { type: 'string', description: 'one JSON object a line' };
  return bodyType === undefined ? { type: 'object' } : schemaRef(rootComponentName(bodyType()));
}

function requestBody(endpoint: Endpoint<never>): JsonObject {
  const mediaType = endpoint.body ?? 'application/json';
  return { required: true, content: { [mediaType]: { schema: requestSchema(endpoint) } } };
}

function bodyResponse(description: string, schema: string): OpenApiResponse {
  // GET /metrics answers text, in the format Prometheus scrapes
  const mediaType = schema === 'prometheus' ? 'text/plain; version=0.0.4' : 'application/json';
  return {
    description,
    headers: commonHeaders,
    content: { [mediaType]: { schema: schemaRef(schemaComponentName(schema)) } },
  };
}

/** GET /v1/export's answer: the one body that is not JSON (docs/export.md). */
const archiveResponse: OpenApiResponse = {
  description:
    'an uncompressed POSIX tar archive of Hive-partitioned Parquet files, each directory with its manifest.json (components.schemas.ExportManifest)',
  headers: commonHeaders,
  content: { 'application/x-tar': { schema: { type: 'string', contentMediaType: 'application/x-tar' } } },
};

function okDescription(schema: string): string {
  if (schema === 'daemon_health')
    return 'ready; `status` is `degraded` when historical capture loss is recorded';
  if (schema === 'verify')
    return 'verification completed: `status` is `ok`, or `failed` when it found errors';
  if (schema === 'openapi') return 'this document';
  if (schema === 'prometheus') return 'the metrics, in the Prometheus text format';
  return `the \`provenance.${schema}/v1\` body`;
}

/** The 200 answer, plus the spec's own 503 bodies for health, readiness and verification. */
function bodyResponses({ schema }: Endpoint<never>): Record<string, OpenApiResponse> {
  if (schema === 'export_manifest') return { '200': archiveResponse };
  const responses = { '200': bodyResponse(okDescription(schema), schema) };
  if (schema === 'ingest') {
    const ok = responses['200'] as { headers: Record<string, JsonObject> };
    ok.headers = {
      ...ok.headers,
      'Idempotent-Replayed': {
        description: '`true` when this answers a resend of an earlier request with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
  if (schema === 'record') {
    // Accept: application/x-ndjson: the output as it comes, then the record (or the error) last
    const ok = responses['200'] as { content: Record<string, { schema: JsonObject }> };
    ok.content['application/x-ndjson'] = {
      schema: {
        type: 'string',
        description:
          'one JSON object a line: components RecordLiveChunk while the command runs, then one ' +
          'RecordStreamEnd (or an ErrorBody when storing failed)',
      },
    };
  }
  if (schema === 'daemon_health') {
    const why =
      'not ready: database error, missing required table, incompatible store format, or check over 2 s';
    const notReady = bodyResponse(why, schema) as { headers?: Record<string, JsonObject> };
    notReady.headers = {
      ...notReady.headers,
      'Retry-After': {
        description: 'seconds until the check is worth running again',
        schema: { type: 'integer', minimum: 0 },
      },
    };
    return { ...responses, '503': notReady as OpenApiResponse };
  }
  if (schema === 'verify') {
    return {
      ...responses,
      '503': bodyResponse('verification could not complete: `status` is `unavailable`', schema),
    };
  }
  return responses;
}

/**
 * The error answers an endpoint can give, per docs/contract.md "HTTP conventions". Auth, the body
 * limit and shutdown come before the handler; the rest are the endpoint's own (`errors`).
 */
function errorResponses(endpoint: Endpoint<never>): Record<string, OpenApiResponse> {
  const query = endpoint.query ?? [];
  const extra = new Set(endpoint.errors ?? []);
  const responses: Record<string, OpenApiResponse> = {};
  // any parameter can be malformed (enum, integer), and explain needs `run` with `file`
  if (query.length > 0 || endpoint.body) responses['400'] = responseRef('BadRequest');
  if (!endpoint.public) responses['401'] = responseRef('Unauthorized');
  // a web page's request is refused on every path (browser-guard.ts)
  responses['403'] = responseRef('Forbidden');
  // every query naming a run or an object checks it first; correlations also answers 404 for an unknown event
  if (query.some((param) => param.name === 'run' || param.name === 'hash') || extra.has('404'))
    responses['404'] = responseRef('NotFound');
  if (extra.has('409')) responses['409'] = responseRef(endpoint.conflict ?? 'ToolCallExists');
  if (endpoint.body) responses['413'] = responseRef('PayloadTooLarge');
  if (endpoint.body) responses['415'] = responseRef('UnsupportedMediaType');
  if (extra.has('422')) responses['422'] = responseRef('KeyReused');
  if (extra.has('429')) responses['429'] = responseRef('Backpressure');
  if (!endpoint.public) responses['503'] = responseRef('Unavailable');
  return responses;
}

function operation(endpoint: Endpoint<never>): OpenApiOperation {
  const parameters = [...(endpoint.query ?? []).map(parameter), ...(endpoint.headers ?? []).map(parameter)];
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: [endpoint.description, endpoint.public ? publicNote : authNote]
      .filter((part) => part !== undefined)
      .join('\n\n'),
    security: endpoint.public ? [] : [{}, { bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.body ? { requestBody: requestBody(endpoint) } : {}),
    // a body response listed by the spec replaces the generic error of the same status
    responses: { ...errorResponses(endpoint), ...bodyResponses(endpoint), default: responseRef('Internal') },
  };
}

function buildPaths(list: readonly Endpoint<never>[]): OpenApiDocument['paths'] {
  const paths: OpenApiDocument['paths'] = {};
  for (const endpoint of list) {
    const verb = endpoint.method === 'GET' ? 'get' : 'post';
    (paths[endpoint.path] ??= {})[verb] = operation(endpoint);
  }
  return paths;
}

/**
 * The same document with every `enum` sorted: typia lists a union's members in the order the type
 * checker first met them, so moving a file would reorder them; sorted, only a real change shows.
 */
function withSortedEnums<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withSortedEnums) as T;
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    sorted[key] = key === 'enum' && Array.isArray(member) ? sortedMembers(member) : withSortedEnums(member);
  }
  return sorted as T;
}

/** Text members in order, then any other (null) as they came. */
function sortedMembers(members: unknown[]): unknown[] {
  const texts = members.filter((member): member is string => typeof member === 'string').sort();
  return [...texts, ...members.filter((member) => typeof member !== 'string')];
}

/** The OpenAPI 3.1.0 document of provd, interface version 1.0. */
function buildDocument(): OpenApiDocument {
  return withSortedEnums({
    openapi: '3.1.0',
    info: {
      title: 'provd',
      // the interface's version (the specification fixes it), not the release's: x-provd-version
      version: '1.0',
      'x-provd-version': provdVersion,
      description:
        'Local provenance query service: signed provenance graphs of agent runs, their runtime telemetry, and ' +
        'read queries over that evidence. Every JSON body names its format in `schema_version`. ' +
        '`info.version` is the version of this interface; `x-provd-version` the provd release serving it. ' +
        'Bearer auth is optional: it is required only when the daemon runs with --auth-token, and ' +
        '/v1/live, /v1/ready and /v1/health never need it.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: 'http://127.0.0.1:8574', description: 'the default listen address' }],
    paths: buildPaths(endpoints),
    components: buildComponents(endpoints),
  });
}

// built at the first use, not at every start of the daemon: ~25 ms of CPU (measured) that only
// GET /v1/openapi.json, `npm run generate` and the tests need
let document: OpenApiDocument | undefined;
let bytes: Uint8Array | undefined;

/** The OpenAPI 3.1.0 document of provd, interface version 1.0. */
export function openapiDocument(): OpenApiDocument {
  return (document ??= buildDocument());
}

/** The document as served at /v1/openapi.json and committed as openapi.json: pretty JSON and a newline. */
export function openapiBytes(): Uint8Array {
  return (bytes ??= new TextEncoder().encode(JSON.stringify(openapiDocument(), null, 2) + '\n'));
}
