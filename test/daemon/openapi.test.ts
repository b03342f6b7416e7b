import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { endpoints } from '../../src/daemon/endpoints.js';
import { openapiBytes, openapiDocument } from '../../src/daemon/openapi.js';
import type { JsonObject } from '../../src/daemon/openapi-schemas.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { compileOpenApiMetaSchema, validateResponse } from '../support/openapi-validator.js';

// ajv is CommonJS: under NodeNext its class is the `default` of the default import
const Ajv2020 = Ajv2020Module.default;

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

/** The `schema_version` value the 200 body of `GET path` must carry, read through its `$ref`. */
function schemaVersionOf(path: string): unknown {
  const response = openapiDocument.paths[path]?.get?.responses['200'];
  const schema =
    response && 'content' in response ? response.content?.['application/json']?.schema : undefined;
  const name = String(schema?.['$ref']).replace('#/components/schemas/', '');
  const properties = openapiDocument.components.schemas[name]?.['properties'] as Record<string, JsonObject>;
  const version = properties['schema_version'];
  return version?.['const'] ?? (version?.['enum'] as unknown[] | undefined)?.[0];
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

describe('openapi document', function () {
  it('validates against the official OpenAPI 3.1 schema when schemas use the base dialect', function () {
    const validate = compileOpenApiMetaSchema();
    assert.ok(validate(openapiDocument), JSON.stringify(validate.errors, null, 2));
  });

  it('rejects a malformed Schema or Response Object when checked by the same OpenAPI 3.1 schema', function () {
    const validate = compileOpenApiMetaSchema();
    const badSchema = structuredClone(openapiDocument);
    badSchema.components.schemas['Broken'] = { type: 'strnig' };
    assert.equal(validate(badSchema), false);
    const badResponse = structuredClone(openapiDocument);
    badResponse.components.responses['Broken'] = { content: {} } as never;
    assert.equal(validate(badResponse), false);
  });

  it('compiles every component schema when Ajv 2020 runs in strict mode', function () {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'openapi', components: openapiDocument.components });
    for (const name of Object.keys(openapiDocument.components.schemas)) {
      assert.doesNotThrow(() => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }), name);
    }
  });

  it('documents every endpoint with its method and operationId when built from the endpoint list', function () {
    for (const endpoint of endpoints) {
      const verb = endpoint.method === 'GET' ? 'get' : 'post';
      const operation = openapiDocument.paths[endpoint.path]?.[verb];
      assert.equal(operation?.operationId, endpoint.operationId, `${endpoint.method} ${endpoint.path}`);
    }
  });

  it('has no operation when it is missing from the endpoint list', function () {
    const listed = new Set(endpoints.map((endpoint) => `${endpoint.method.toLowerCase()} ${endpoint.path}`));
    for (const [path, item] of Object.entries(openapiDocument.paths)) {
      for (const verb of Object.keys(item)) assert.ok(listed.has(`${verb} ${path}`), `${verb} ${path}`);
    }
    const ids = endpoints.map((endpoint) => endpoint.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  it('contains every path with the body format when the interface specification names them', function () {
    for (const [path, name] of Object.entries(specGets)) {
      assert.ok(openapiDocument.paths[path]?.get, `GET ${path}`);
      if (name !== null) assert.equal(schemaVersionOf(path), `provenance.${name}/v1`, path);
    }
    for (const path of specPosts) assert.ok(openapiDocument.paths[path]?.post, `POST ${path}`);
  });

  it('requires run when the specification marks it required', function () {
    for (const [path, item] of Object.entries(openapiDocument.paths)) {
      const run = item.get?.parameters?.find((parameter) => parameter['name'] === 'run');
      assert.equal(run?.['required'] === true, specRunRequired.includes(path), path);
    }
  });

  it('lets only the health endpoints go without a token when bearer auth is on', function () {
    const open = Object.entries(openapiDocument.paths)
      .filter(([, item]) => Object.values(item).some((operation) => operation.security.length === 0))
      .map(([path]) => path);
    assert.deepEqual(open.sort(), ['/v1/health', '/v1/live', '/v1/ready']);
    const { type, scheme } = openapiDocument.components.securitySchemes['bearerAuth'] ?? {};
    assert.deepEqual([type, scheme], ['http', 'bearer']);
  });

  it('declares OpenAPI 3.1.0 and interface version 1.0 when read', function () {
    assert.equal(openapiDocument.openapi, '3.1.0');
    assert.equal(openapiDocument.info.version, '1.0');
    assert.equal(openapiDocument.info.title, 'provd');
  });

  it('matches the committed openapi.json byte for byte when regenerated', function () {
    const committed = readFileSync(join(packageRoot, 'openapi.json'));
    assert.ok(committed.equals(openapiBytes), 'openapi.json is out of date: run npm run openapi');
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
    assert.notDeepEqual(validateResponse({ method: 'GET', path: '/v1/signals', status: 501, body }), []);
    assert.notDeepEqual(validateResponse({ method: 'GET', path: '/no/such/path', status: 404, body }), []);
    const known = { ...body, error: { code: 'method_not_allowed', message: 'use GET' } };
    assert.deepEqual(
      validateResponse({ method: 'DELETE', path: '/v1/health', status: 405, body: known }),
      [],
    );
  });

  it('rejects an envelope body when its schema_version names another format', function () {
    const body = { schema_version: 'provenance.signals/v1', signals: [] };
    assert.deepEqual(validateResponse({ method: 'GET', path: '/v1/signals', status: 200, body }), []);
    const wrong = { ...body, schema_version: 'provenance.timeline/v1' };
    assert.notDeepEqual(
      validateResponse({ method: 'GET', path: '/v1/signals', status: 200, body: wrong }),
      [],
    );
  });
});
