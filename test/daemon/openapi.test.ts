import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { endpoints } from '../../src/daemon/endpoints.js';
import type { Endpoint } from '../../src/shared/http/endpoint.js';
import { openapiBytes, openapiDocument } from '../../src/daemon/openapi.js';
import { indexBodyVersions } from '../../src/shared/schema/body-versions.js';
import { buildComponents } from '../../src/daemon/openapi-schemas.js';
import { wireErrorCodes } from '../../src/shared/errors.js';
import { packageRoot, provdVersion } from '../../src/shared/package-root.js';
import type { JsonObject } from '../../src/shared/schema/json-object.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { compileOpenApiMetaSchema, validateResponse } from '../support/openapi-validator.js';

// both packages are CommonJS: under NodeNext their exports are the `default` of the default import
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

// Read from spec/interface.md by hand, as a check of endpoints.ts that does not come from it:
// each GET path, with the `<name>` of its 200 body's `provenance.<name>/v1` where the spec gives one.
const specGets: Record<string, string | null> = {
  '/v1/live': 'daemon_liveness',
  '/v1/ready': 'daemon_health',
  '/v1/health': 'daemon_health',
  '/v1/graph/verify': 'verify',
  '/v1/graph/explain': 'explain',
  '/v1/signals': 'signals',
  '/v1/timeline': 'timeline',
  '/v1/observe/summary': 'observability_summary',
  '/v1/security/risks': 'security_risks',
  '/v1/security/responses': 'security_responses',
  '/v1/security/deviations': 'security_deviations',
  '/v1/telemetry/events': 'telemetry_events',
  '/v1/telemetry/windows': 'telemetry_event_windows',
  '/v1/telemetry/correlations': 'telemetry_correlations',
  '/v1/telemetry/producer-health': 'producer_health',
  '/v1/telemetry/audit-associations': 'audit_associations',
  '/api/audit/associations': null,
  '/api/compare/records': null,
  '/api/search/sources': null,
  '/api/artifact': null,
  '/v1/context/overview': null,
  '/v1/context/entries': null,
  '/v1/context/content': null,
  '/v1/context/compare': null,
  '/v1/context/links': null,
};
const specPosts = ['/v1/telemetry/bind', '/v1/record'];
const unionDescription = 'One of TimelineTable, TimelineCausality, TimelineSession, told apart by `view`.';
// the query endpoints whose `run` the spec marks "(required)"
const specRunRequired = [
  '/v1/graph/verify',
  '/v1/signals',
  '/v1/timeline',
  '/v1/observe/summary',
  '/v1/security/risks',
  '/v1/security/responses',
  '/v1/security/deviations',
  '/v1/telemetry/events',
  '/v1/telemetry/windows',
  '/v1/telemetry/correlations',
];

/** The component a `$ref` names. */
function component(ref: unknown): JsonObject | undefined {
  return openapiDocument().components.schemas[String(ref).replace('#/components/schemas/', '')];
}

/**
 * The `schema_version` value the 200 body of `GET path` must carry, read through its `$ref` (and,
 * for a union of bodies that share one version, through each member, which must agree).
 */
function schemaVersionOf(path: string): unknown {
  const response = openapiDocument().paths[path]?.get?.responses['200'];
  const schema =
    response && 'content' in response ? response.content?.['application/json']?.schema : undefined;
  const body = component(schema?.['$ref']);
  const members = (body?.['oneOf'] as JsonObject[] | undefined)?.map((member) => component(member['$ref']));
  const versions = (members ?? [body]).map((member) => {
    const version = (member?.['properties'] as Record<string, JsonObject>)['schema_version'];
    return version?.['const'] ?? (version?.['enum'] as unknown[] | undefined)?.[0];
  });
  assert.equal(new Set(versions).size, 1, `${path}: ${versions.join(', ')}`);
  return versions[0];
}

const healthBody = {
  schema_version: 'provenance.daemon_health/v1',
  status: 'degraded',
  ready: true,
  coverage_status: 'gaps_recorded',
  checks: { database: { status: 'ok' } },
  queued_spool: null,
  queued_spool_bytes: 0,
  native_capture: { probes: {} },
};

const binding = 'bnd_aaaaaaaaaaaaaaaaaaaa';
const at = '2026-01-01T00:00:01.000000000Z';
const interval = { started_at: null, ended_at: '2026-01-01T00:00:02Z' };

/** One real-shaped 200 body of each telemetry endpoint, and where a value outside an enum can go. */
const telemetrySamples: {
  path: string;
  method?: string;
  body: JsonObject;
  wrongEnum: [where: (string | number)[], value: unknown];
}[] = [
  {
    path: '/v1/telemetry/ingest',
    method: 'POST',
    body: {
      schema_version: 'provenance.ingest/v1',
      batch_id: 'b1-0',
      accepted: 1,
      rejected: 1,
      pending: 0,
      errors: [{ line: 2, code: 'invalid_json', message: 'not valid JSON' }],
      errors_truncated: false,
    },
    wrongEnum: [['errors', 0, 'code'], 'teapot'],
  },
  {
    path: '/v1/telemetry/bind',
    method: 'POST',
    body: {
      schema_version: 'provenance.binding/v1',
      ...{ binding_id: binding, run_id: 'r', tool_call_id: 't', session_id: null, process_id: null },
      ...{ container_id: null, cgroup_id: '777', pid: null, root_pid: 42, started_at: null, ended_at: null },
      ...{ binding_source: 'k8s_cgroup', confidence: 0.8, created_at: at, recorrelated: 0 },
    },
    wrongEnum: [['binding_source'], 'self'],
  },
  {
    path: '/v1/telemetry/events',
    body: {
      schema_version: 'provenance.telemetry_events/v1',
      ...{ run_id: 'r', type: null, limit: 100, count: 1, has_more: false, next_cursor: null },
      resume_cursor: 'eyJ2IjoyfQ',
      events: [
        {
          ...{ id: 'b1-0-0.0', run_id: 'r', type: 'secret_path', source: 'native_jsonl', time: at },
          ...{ time_received: '2026-01-01T00:00:01Z', ingested_at: at, pid: 7, tgid: 7, ppid: 1, uid: null },
          login_uid: null,
          ...{ comm: 'sh', cgroup_id: '777', container_id: null, tool_call_id: 't', binding_id: binding },
          correlation: { method: 'cgroup', confidence: 0.8, evidence_level: 'kernel_correlated' },
          attrs: { path: '/root/.aws/credentials' },
          hash: 'sha256:' + 'a'.repeat(64),
        },
      ],
    },
    wrongEnum: [['events', 0, 'correlation', 'evidence_level'], 'hearsay'],
  },
  {
    path: '/v1/telemetry/windows',
    body: {
      schema_version: 'provenance.telemetry_event_windows/v1',
      ...{ run_id: 'r', window_s: 10, type: 'execve', from: null, to: at, limit: 1000, count: 1 },
      ...{ has_more: true, next_cursor: 'eyJ2IjoyfQ' },
      windows: [{ start: at, end: at, type: 'execve', events: 2, correlated: 2, risky: 0, bytes: 0 }],
    },
    wrongEnum: [['window_s'], 30],
  },
  {
    path: '/v1/telemetry/correlations',
    body: {
      schema_version: 'provenance.telemetry_correlations/v1',
      ...{ run_id: 'r', event_id: 'b1-0-0.0' },
      correlations: [
        {
          ...{ event_id: 'b1-0-0.0', event_time: at, binding_id: binding, tool_call_id: 't', method: 'pid' },
          ...{ confidence: 0.85, tier_confidence: 0.85, binding_confidence: 1 },
          ...{ evidence_level: 'kernel_correlated', interval, binding_source: 'harness' },
          matched: { pid: { event: [6000, 6000, 1], binding: [6000, null] } },
        },
        {
          ...{ binding_id: binding, tool_call_id: 't', binding_source: 'control_plane', confidence: 1 },
          keys: { process_id: '5000', cgroup_id: null, container_id: null, pid: null, root_pid: null },
          ...{ interval, events: 3, events_by_method: { process: 2, cgroup: 1 } },
        },
      ],
    },
    wrongEnum: [['correlations', 1, 'events_by_method', 'telepathy'], 1],
  },
  {
    path: '/v1/telemetry/producer-health',
    body: {
      schema_version: 'provenance.producer_health/v1',
      run_id: 'r',
      sources: { falco: { accepted: 12, spooled: 12 } },
      drops: { invalid: 1, invalid_by_reason: { unknown_type: 1 }, spool_overflowed: 0 },
      disk_buffering: {
        ...{ spool_events: 0, spool_bytes: 0, spool_ttl_s: 120, spool_max_events: 1000000 },
        ...{
          spool_max_bytes: 268435456,
          spool_settled_late: 0,
          spool_unclaimed: 40,
          ingest_in_flight_bytes: 0,
          ingest_refused_requests: 0,
        },
      },
      host_retention: { retained_events: 3, retained_batches: 1, retained_bytes: 420, refused_batches: 0 },
      host_verification: {
        full_verifications: 2,
        last_full_at: '2026-11-28T12:00:00.000000000Z',
        last_full_ms: 2500,
      },
      hooks: { socket: { malformed: 1 }, spool: { stored: 2 }, store: { failed_after_answer: 1 } },
      correlation_coverage: {
        ...{ scope: 'run', events: 3, by_evidence_level: { kernel_correlated: 3 } },
        by_method: { cgroup: 3 },
      },
      coverage_gaps: { spool_overflow: { gaps: 1, lost_events: 25 } },
    },
    wrongEnum: [['correlation_coverage', 'scope'], 'some'],
  },
];

/** Sets the value at `where` inside a JSON body. */
function setAt(body: JsonObject, where: readonly (string | number)[], value: unknown): void {
  let node = body as Record<string | number, unknown>;
  for (const key of where.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[where[where.length - 1]!] = value;
}

const validBind = { run_id: 'r', tool_call_id: 't', cgroup_id: 777, binding_source: 'ai_asserted' };

/** The document's BindRequest schema, compiled by Ajv 2020 in strict mode. */
function bindRequestValidator(): ValidateFunction {
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);
  ajv.addKeyword('components');
  ajv.addSchema({ $id: 'openapi', components: openapiDocument().components });
  return ajv.getSchema('openapi#/components/schemas/BindRequest')!;
}

/** Bind bodies on both sides of each structural rule: the document and parseBindRequest agree on them. */
const bindBodies: [body: JsonObject, accepted: boolean][] = [
  [validBind, true],
  [{ run_id: 'r', tool_call_id: 't', pid: 1, session_id: null, confidence: null, ended_at: null }, true],
  [{ ...validBind, cgroup_id: 0 }, true],
  [{ ...validBind, cgroup_id: '/kubepods/pod1' }, true],
  [{ ...validBind, pid: 2 ** 31 - 1, run_id: 'x'.repeat(256), confidence: 1 }, true],
  [{ ...validBind, started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-01T02:00:00.5+02:00' }, true],
  [{ ...validBind, surprise: 1 }, false],
  [{ ...validBind, binding_source: 'self' }, false],
  [{ run_id: 'r', tool_call_id: 't', pid: null }, false],
  [{ tool_call_id: 't', pid: 1 }, false],
  [{ ...validBind, run_id: null }, false],
  ...['', 'x'.repeat(257), 'a\nb', 'a\u009b', 7].map((runId): [JsonObject, boolean] => [
    { ...validBind, run_id: runId },
    false,
  ]),
  ...[0, 2 ** 31, 1.5, '12'].map((pid): [JsonObject, boolean] => [{ ...validBind, pid }, false]),
  ...[-1, 2 ** 53, true, ''].map((cgroup): [JsonObject, boolean] => [
    { ...validBind, cgroup_id: cgroup },
    false,
  ]),
  ...[0, 1.5, 'high'].map((confidence): [JsonObject, boolean] => [{ ...validBind, confidence }, false]),
  ...['yesterday', '2026-13-01T00:00:00Z', 5].map((time): [JsonObject, boolean] => [
    { ...validBind, started_at: time },
    false,
  ]),
  [{ ...validBind, session_id: 12 }, false],
];

describe('openapi document', function () {
  it('validates against the official OpenAPI 3.1 schema when schemas use the base dialect', function () {
    const validate = compileOpenApiMetaSchema();
    assert.ok(validate(openapiDocument()), JSON.stringify(validate.errors, null, 2));
  });

  it('rejects a malformed Schema or Response Object when checked by the same OpenAPI 3.1 schema', function () {
    const validate = compileOpenApiMetaSchema();
    const badSchema = structuredClone(openapiDocument());
    badSchema.components.schemas['Broken'] = { type: 'strnig' };
    assert.equal(validate(badSchema), false);
    const badResponse = structuredClone(openapiDocument());
    badResponse.components.responses['Broken'] = { content: {} } as never;
    assert.equal(validate(badResponse), false);
  });

  it('compiles every component schema when Ajv 2020 runs in strict mode', function () {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'openapi', components: openapiDocument().components });
    for (const name of Object.keys(openapiDocument().components.schemas)) {
      assert.doesNotThrow(() => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }), name);
    }
  });

  it('documents every endpoint with its method and operationId when built from the endpoint list', function () {
    for (const endpoint of endpoints) {
      const verb = endpoint.method === 'GET' ? 'get' : 'post';
      const operation = openapiDocument().paths[endpoint.path]?.[verb];
      assert.equal(operation?.operationId, endpoint.operationId, `${endpoint.method} ${endpoint.path}`);
    }
  });

  it('documents the exact schema of every JSON request body, so a client can build one from the document', function () {
    for (const [path, item] of Object.entries(openapiDocument().paths))
      for (const [verb, operation] of Object.entries(item)) {
        const body = (operation as { requestBody?: JsonObject }).requestBody;
        const content = body?.['content'] as Record<string, { schema: JsonObject }> | undefined;
        const schema = content?.['application/json']?.schema;
        if (schema === undefined) continue;
        assert.match(
          String(schema['$ref']),
          /^#\/components\/schemas\//,
          `${verb} ${path}: ${JSON.stringify(schema)}`,
        );
      }
  });

  it('has no operation when it is missing from the endpoint list', function () {
    const listed = new Set(endpoints.map((endpoint) => `${endpoint.method.toLowerCase()} ${endpoint.path}`));
    for (const [path, item] of Object.entries(openapiDocument().paths)) {
      for (const verb of Object.keys(item)) assert.ok(listed.has(`${verb} ${path}`), `${verb} ${path}`);
    }
    const ids = endpoints.map((endpoint) => endpoint.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  it('contains every path with the body format when the interface specification names them', function () {
    for (const [path, name] of Object.entries(specGets)) {
      assert.ok(openapiDocument().paths[path]?.get, `GET ${path}`);
      if (name !== null) assert.equal(schemaVersionOf(path), `provenance.${name}/v1`, path);
    }
    for (const path of specPosts) assert.ok(openapiDocument().paths[path]?.post, `POST ${path}`);
  });

  it('requires run when the specification marks it required', function () {
    // provd's own per-run paths beyond the specification, and the paths whose parameters it leaves open
    const extensionRunRequired = [
      '/v1/graph/checkpoint',
      '/v1/graph/attestation',
      '/api/compare/records',
      '/v1/context/overview',
      '/v1/context/entries',
      '/v1/context/compare',
    ];
    for (const [path, item] of Object.entries(openapiDocument().paths)) {
      const run = item.get?.parameters?.find((parameter) => parameter['name'] === 'run');
      const required = specRunRequired.includes(path) || extensionRunRequired.includes(path);
      assert.equal(run?.['required'] === true, required, path);
    }
  });

  it('lets only the health endpoints go without a token when bearer auth is on', function () {
    const open = Object.entries(openapiDocument().paths)
      .filter(([, item]) => Object.values(item).some((operation) => operation.security.length === 0))
      .map(([path]) => path);
    assert.deepEqual(open.sort(), ['/v1/health', '/v1/live', '/v1/ready']);
    const { type, scheme } = openapiDocument().components.securitySchemes['bearerAuth'] ?? {};
    assert.deepEqual([type, scheme], ['http', 'bearer']);
  });

  it('declares OpenAPI 3.1.0 and interface version 1.0 when read', function () {
    assert.equal(openapiDocument().openapi, '3.1.0');
    assert.equal(openapiDocument().info.version, '1.0');
    assert.equal(openapiDocument().info['x-provd-version'], provdVersion, 'the release, from package.json');
    assert.equal(openapiDocument().info.title, 'provd');
  });

  it('matches the committed openapi.json byte for byte when regenerated', function () {
    const committed = readFileSync(join(packageRoot, 'openapi.json'));
    assert.ok(committed.equals(openapiBytes()), 'openapi.json is out of date: run npm run generate');
  });

  it('accepts a DaemonHealth body when it follows the spec table', function () {
    assert.deepEqual(
      validateResponse({ method: 'GET', path: '/v1/health', status: 200, body: healthBody }),
      [],
    );
    const unavailable = { ...healthBody, status: 'unavailable', ready: false };
    assert.deepEqual(
      validateResponse({ method: 'GET', path: '/v1/ready', status: 503, body: unavailable }),
      [],
    );
  });

  it('rejects a DaemonHealth body when its status is not in the enum', function () {
    const body = { ...healthBody, status: 'fine' };
    const errors = validateResponse({ method: 'GET', path: '/v1/health', status: 200, body });
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0] ?? '', /body\/status must be equal to one of the allowed values/);
  });

  it('rejects an error body when its code is not a wire error code', function () {
    const body = { schema_version: 'provenance.error/v1', error: { code: 'teapot', message: 'no' } };
    assert.notDeepEqual(
      validateResponse({ method: 'GET', path: '/v1/security/risks', status: 400, body }),
      [],
    );
    assert.notDeepEqual(validateResponse({ method: 'GET', path: '/no/such/path', status: 404, body }), []);
    const known = { ...body, error: { code: 'method_not_allowed', message: 'use GET' } };
    assert.deepEqual(
      validateResponse({ method: 'DELETE', path: '/v1/health', status: 405, body: known }),
      [],
    );
  });

  it('rejects an envelope body when its schema_version names another format', function () {
    const path = '/v1/security/risks';
    const body = {
      schema_version: 'provenance.security_risks/v1',
      run_id: 'r',
      limit: 100,
      count: 0,
      has_more: false,
      next_cursor: null,
      risks: [],
    };
    assert.deepEqual(validateResponse({ method: 'GET', path, status: 200, body }), []);
    const wrong = { ...body, schema_version: 'provenance.timeline/v1' };
    assert.notDeepEqual(validateResponse({ method: 'GET', path, status: 200, body: wrong }), []);
  });

  it('accepts a telemetry body of each endpoint when it has the shape the code builds', function () {
    for (const { path, method = 'GET', body } of telemetrySamples) {
      assert.deepEqual(validateResponse({ method, path, status: 200, body }), [], path);
    }
    const path = '/v1/telemetry/producer-health';
    const allRuns = structuredClone(telemetrySamples.find((sample) => sample.path === path)!.body);
    allRuns['run_id'] = null;
    allRuns['correlation_coverage'] = {
      ...{ scope: 'all', events: 0, attributed: 0, attributed_ratio: null },
      by_spool_state: { settled: 0 },
    };
    assert.deepEqual(validateResponse({ method: 'GET', path, status: 200, body: allRuns }), []);
  });

  it('rejects a telemetry body when it has an unknown top-level field', function () {
    for (const { path, method = 'GET', body } of telemetrySamples) {
      const extra = { ...body, surprise: true };
      const errors = validateResponse({ method, path, status: 200, body: extra });
      assert.ok(
        errors.some((error) => error.includes('additionalProperty')),
        `${path}: ${errors.join()}`,
      );
    }
  });

  it('rejects a telemetry body when a field holds a value outside its enum', function () {
    for (const { path, method = 'GET', body, wrongEnum } of telemetrySamples) {
      const broken = structuredClone(body);
      setAt(broken, ...wrongEnum);
      assert.notDeepEqual(validateResponse({ method, path, status: 200, body: broken }), [], path);
    }
  });

  it('checks a bind request body as parseBindRequest does', function () {
    const validate = bindRequestValidator();
    assert.ok(validate(validBind), JSON.stringify(validate.errors));
    assert.ok(validate({ run_id: 'r', tool_call_id: 't', pid: 1, session_id: null, confidence: null }));
    assert.equal(validate({ ...validBind, surprise: 1 }), false, 'unknown field');
    assert.equal(
      validate({ ...validBind, binding_source: 'self' }),
      false,
      'binding_source outside its enum',
    );
    assert.equal(validate({ run_id: 'r', tool_call_id: 't', pid: null }), false, 'no system-side key');
    assert.equal(validate({ ...validBind, pid: 0 }), false, 'pid below 1');
    assert.equal(validate({ ...validBind, run_id: 'a\nb' }), false, 'control character');
  });

  it('accepts exactly the bind bodies parseBindRequest accepts, but for the checks left to code', function () {
    const validate = bindRequestValidator();
    const parsed = (body: JsonObject): boolean => !isBindRequestError(parseBindRequest(body, 0n));
    for (const [body, accepted] of bindBodies) {
      assert.equal(validate(body), accepted, `the document: ${JSON.stringify(body)}`);
      assert.equal(parsed(body), accepted, `parseBindRequest: ${JSON.stringify(body)}`);
    }
    // what the schema cannot state, so only the code refuses: an unpaired surrogate, an end before the start
    const order = { ...validBind, started_at: '2026-01-01T00:00:01Z', ended_at: '2026-01-01T00:00:00.5Z' };
    for (const body of [{ ...validBind, run_id: '\ud800x' }, order]) {
      assert.equal(validate(body), true, JSON.stringify(body));
      assert.equal(parsed(body), false, JSON.stringify(body));
    }
  });

  it('refuses to build the document when an endpoint has no TS type for its body', function () {
    const orphan: Endpoint<never> = { ...endpoints[0]!, schema: 'no_such_body', operationId: 'orphan' };
    assert.throws(() => buildComponents([orphan]), /failed to document orphan/);
    assert.doesNotThrow(() => buildComponents(endpoints));
  });

  it('answers a version two bodies share with their union, told apart by a const field', function () {
    const body = (view: string, extra: JsonObject = {}): JsonObject => ({
      type: 'object',
      properties: { schema_version: { const: 'provenance.timeline/v1' }, view: { const: view }, ...extra },
      required: ['schema_version', 'view'],
    });
    const { components, unions } = indexBodyVersions({ Table: body('table'), Tree: body('causality') });
    assert.equal(components.get('timeline'), 'Timeline');
    assert.deepEqual(unions['Timeline']?.['oneOf'], [
      { $ref: '#/components/schemas/Table' },
      { $ref: '#/components/schemas/Tree' },
    ]);
    assert.throws(
      () => indexBodyVersions({ Table: body('table'), Tree: body('table') }),
      /share timeline, and no const field/,
    );
    assert.throws(
      () => indexBodyVersions({ Table: body('table'), Tree: body('causality'), Timeline: {} }),
      /the name Timeline for their union is taken/,
    );
    assert.equal(openapiDocument().components.schemas['Timeline']?.['description'], unionDescription);
  });

  it('accepts a timeline body of either view and refuses one whose view does not match its shape', function () {
    const table = {
      schema_version: 'provenance.timeline/v1',
      ...{
        view: 'table',
        run_id: 'r',
        limit: 100,
        count: 0,
        has_more: false,
        next_cursor: null,
        all: false,
        loader_locale_opens: 0,
        entries: [],
      },
    };
    const none = { total: 0, by_type: {} };
    const causality = {
      schema_version: 'provenance.timeline/v1',
      ...{ view: 'causality', run_id: 'r', all: false, loader_locale_opens: 0 },
      bounds: { tool_calls: 50, processes_per_parent: 100, process_depth: 32, events_per_process: 20 },
      root: {
        node: 'run',
        run_id: 'r',
        counts: none,
        children: [],
        omitted_children: { count: 0, events: none },
      },
    };
    const check = (body: JsonObject): string[] =>
      validateResponse({ method: 'GET', path: '/v1/timeline', status: 200, body });
    assert.deepEqual(check(table), []);
    assert.deepEqual(check(causality), []);
    assert.notDeepEqual(check({ ...table, view: 'causality' }), []);
    assert.notDeepEqual(check({ ...causality, view: 'table' }), []);
  });

  it("names components after the code's own types, never after a generic typia spelled out", function () {
    for (const name of Object.keys(openapiDocument().components.schemas)) {
      assert.match(name, /^[A-Z][A-Za-z]+$/, name);
      // typia spells Record<string, X> as `RecordstringX`, Partial<X> as `PartialX`
      assert.doesNotMatch(
        name,
        /^(Record(string|number)|(Partial|Pick|Omit|Readonly|Required)[A-Z]?[a-z])/,
        name,
      );
    }
  });

  it("lists in each error response only codes whose status is that response's", function () {
    let checked = 0;
    for (const [path, item] of Object.entries(openapiDocument().paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, listed] of Object.entries(operation.responses)) {
          const name = '$ref' in listed ? listed.$ref.replace('#/components/responses/', '') : undefined;
          const response = name === undefined ? listed : openapiDocument().components.responses[name];
          const schema =
            response && 'content' in response ? response.content?.['application/json']?.schema : {};
          const error = (schema?.['properties'] as Record<string, JsonObject> | undefined)?.['error'];
          if (error === undefined) continue; // a body, not an error
          const codes = (error['properties'] as Record<string, JsonObject>)['code']?.['enum'] as string[];
          const expected = status === 'default' ? 500 : Number(status);
          for (const code of codes) {
            assert.equal(
              wireErrorCodes[code as keyof typeof wireErrorCodes],
              expected,
              `${path} ${status} ${code}`,
            );
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 0, 'found error responses to check');
  });
});
