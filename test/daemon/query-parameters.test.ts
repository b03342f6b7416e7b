import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { endpoints } from '../../src/daemon/endpoints.js';
import { openapiDocument } from '../../src/daemon/openapi.js';
import type { JsonObject } from '../../src/shared/schema/json-object.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind } from '../support/telemetry.js';

// both packages are CommonJS: under NodeNext their exports are the `default` of the default import
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** A documented query parameter of an operation. */
interface Documented {
  method: string;
  path: string;
  name: string;
  required: boolean;
  schema: JsonObject;
}

/**
 * The request init for an operation: POST sends an empty body (an ingest of no lines), or to an
 * agent's hook route the smallest payload the agent sends (an event provd stores as `other`).
 */
const init = (method: string, path = ''): { method: string; body?: string } => {
  if (method !== 'POST') return { method };
  if (path.startsWith('/v1/hooks/'))
    return {
      method,
      body: JSON.stringify({ session_id: 'query-parameters', hook_event_name: 'Notification' }),
    };
  return { method, body: '' };
};

/** Every query parameter the document lists. */
function documentedParameters(): Documented[] {
  const found: Documented[] = [];
  for (const [path, item] of Object.entries(openapiDocument().paths)) {
    for (const [verb, operation] of Object.entries(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter['in'] !== 'query') continue;
        const { name, required, schema } = parameter as {
          name: string;
          required: boolean;
          schema: JsonObject;
        };
        found.push({ method: verb.toUpperCase(), path, name, required, schema });
      }
    }
  }
  return found;
}

/**
 * Values on both sides of each documented rule: bounds, enum members, lengths, formats. They come
 * from the document, so a validator that disagrees with it at a boundary is caught.
 */
function samples(schema: JsonObject): { good: string[]; bad: string[] } {
  const types = [schema['type']].flat();
  const values = schema['enum'] as unknown[] | undefined;
  if (values !== undefined) return { good: values.map(String), bad: ['bogus', '', `${String(values[0])}.0`] };
  if (types.includes('integer')) {
    const min = schema['minimum'] as number;
    const max = schema['maximum'] as number;
    return { good: [String(min), String(max)], bad: [String(min - 1), String(max + 1), '1.5', 'ten', ''] };
  }
  if (schema['format'] === 'date-time') {
    return {
      good: ['2026-01-01T00:00:00Z', '2026-01-01T02:00:00.5+02:00'],
      bad: ['yesterday', '2026-13-01T00:00:00Z', ''],
    };
  }
  // a pattern the document shows an example of (an object hash): the example passes, near misses fail
  const examples = schema['examples'] as string[] | undefined;
  if (schema['pattern'] !== undefined && examples !== undefined) {
    const [example] = examples as [string];
    return { good: examples, bad: ['', example.toUpperCase(), example.slice(0, -1), `${example}0`] };
  }
  const max = schema['maxLength'] as number | undefined;
  // an opaque string (cursor) has no rule here: the store judges it
  if (max === undefined) return { good: [], bad: [] };
  return { good: ['r', 'x'.repeat(max)], bad: ['', 'x'.repeat(max + 1), 'a\u0001b'] };
}

/** The value as the daemon reads it: plain decimal digits are a number for a numeric parameter. */
function decoded(schema: JsonObject, text: string): unknown {
  const numeric = [schema['type']].flat().some((type) => type === 'integer' || type === 'number');
  return numeric && /^-?\d+$/.test(text) ? Number(text) : text;
}

describe('query parameters', function () {
  const daemons = useDaemonFixture();
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);

  it('finds the parameters of every endpoint that reads a query string', function () {
    const operations = new Set(documentedParameters().map(({ method, path }) => `${method} ${path}`));
    const declared = endpoints
      .filter((endpoint) => (endpoint.query ?? []).length > 0)
      .map(({ method, path }) => `${method} ${path}`);
    assert.deepEqual([...operations].sort(), declared.sort());
    // the paths of the interface that read one, beside GET /v1/runs and the run-wide pages
    for (const known of ['GET /v1/telemetry/events', 'GET /v1/timeline', 'POST /v1/telemetry/ingest'])
      assert.ok(operations.has(known), known);
  });

  it('answers 400 naming the parameter exactly when its documented schema refuses the value', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'r', tool_call_id: 't', pid: 1 });
    const documented = documentedParameters();
    let checked = 0;
    // GET /v1/export answers an archive, not JSON, and its parameters go in pairs (run, or from
    // with to): test/views/export/export.test.ts checks each refusal there
    for (const { method, path, name, schema } of documented.filter((param) => param.path !== '/v1/export')) {
      // every other required parameter of the operation gets a good value
      const base = documented
        .filter((other) => other.path === path && other.required && other.name !== name)
        .map((other) => `${other.name}=${encodeURIComponent(samples(other.schema).good[0]!)}`);
      const validate = ajv.compile(schema);
      const { good, bad } = samples(schema);
      for (const [value, expected] of [
        ...good.map((v) => [v, true] as const),
        ...bad.map((v) => [v, false] as const),
      ]) {
        const where = `${method} ${path} ${name}=${JSON.stringify(value)}`;
        assert.equal(validate(decoded(schema, value)), expected, `the document: ${where}`);
        const query = [...base, `${name}=${encodeURIComponent(value)}`].join('&');
        const { status, body } = await request(daemon.url, `${path}?${query}`, init(method, path));
        const message = (body['error'] as { message?: string } | undefined)?.message ?? '';
        if (expected) assert.notEqual(status, 400, `the daemon: ${where}: ${message}`);
        else {
          assert.equal(status, 400, `the daemon: ${where}`);
          assert.ok(message.startsWith(`${name} `), `the daemon: ${where}: ${message}`);
        }
        checked++;
      }
    }
    assert.ok(checked > 40, `checked ${checked} values`);
  });

  it('answers 400 naming the parameter when a required one is missing or any one is given twice', async function () {
    const daemon = await daemons.start();
    const documented = documentedParameters();
    for (const { method, path, name, required, schema } of documented) {
      const value = samples(schema).good[0] ?? 'x';
      const others = documented
        .filter((other) => other.path === path && other.required && other.name !== name)
        .map((other) => `${other.name}=${encodeURIComponent(samples(other.schema).good[0]!)}`);
      const twice = [
        ...others,
        `${name}=${encodeURIComponent(value)}`,
        `${name}=${encodeURIComponent(value)}`,
      ];
      const repeated = await request(daemon.url, `${path}?${twice.join('&')}`, init(method, path));
      assert.equal(repeated.status, 400, `${path} ${name} twice`);
      assert.equal((repeated.body['error'] as { message: string }).message, `${name} must be given once`);
      if (!required) continue;
      const missing = await request(daemon.url, `${path}?${others.join('&')}`, init(method, path));
      assert.equal(missing.status, 400, `${path} without ${name}`);
      assert.equal((missing.body['error'] as { message: string }).message, `${name} is required`);
    }
  });

  it('ignores a parameter the endpoint does not declare', async function () {
    const daemon = await daemons.start();
    const { status } = await request(daemon.url, '/v1/telemetry/producer-health?surprise=1&surprise=2');
    assert.equal(status, 200);
  });
});
