/**
 * Makes one fuzz request for an operation of openapi.json: valid (typical values, real ids),
 * edge (values at the schema's bounds, still valid) or hostile (parameters missing, extra,
 * repeated, of the wrong type, too long, badly encoded; cursors forged; tokens wrong or absent;
 * the wrong method or content type; hostile JSON and NDJSON bodies).
 */
import type { ApiOperation, ApiParameter } from './api-operations.js';
import { resolveSchema } from './api-operations.js';
import { hostileAuthorization, hostileCursor, hostileInteger, hostileQueryText } from './hostile-values.js';
import { harmless, hostileJson, recordCommandFields, validObject } from './json-bodies.js';
import type { KnownValues } from './known-values.js';
import type { NdjsonCorpus } from './ndjson-corpus.js';
import { ndjsonBody } from './ndjson-bodies.js';
import type { Rng } from './rng.js';
import type { SoakRequest } from './soak-client.js';
import { hex, validValue } from './schema-values.js';

export type FuzzStyle = 'valid' | 'edge' | 'hostile';

/** A request and what its answer must respect. */
export interface FuzzRequest {
  request: SoakRequest;
  operation: ApiOperation;
  style: FuzzStyle;
  /** Valid HTTP, valid parameters, a body the endpoint reads: it must be answered within the deadline. */
  wellFormed: boolean;
  /** It carries a wrong token or none, on an endpoint that needs one: anything but a refusal is a bypass. */
  mustRefuseAuth: boolean;
  note: string;
}

/** Bodies past this are not held to the answer deadline: normalizing them takes longer by design. */
const deadlineBodyBytes = 8 * 1024 * 1024;

/** What a request factory needs from the soak. */
export interface FuzzContext {
  known: KnownValues;
  corpus: NdjsonCorpus;
  token: string;
  /** Where fuzzed POST /v1/record commands run (owned by their user). */
  recordCwd: string;
}

/** Builds the request for `operation` in `style`. */
export function fuzzRequest(
  rng: Rng,
  operation: ApiOperation,
  style: FuzzStyle,
  context: FuzzContext,
): FuzzRequest {
  const { known, token } = context;
  const knownOf = (name: string): readonly unknown[] => known.values(name);
  const notes: string[] = [style];
  const edge = style === 'edge';
  const query: [string, string][] = [];
  const headers: [string, string][] = [];
  for (const parameter of operation.parameters) {
    if (parameter.name === 'cursor') continue; // valid cursors come from following pages
    if (!parameter.required && !rng.chance(edge ? 0.8 : 0.45)) continue;
    const value = validValue(parameter.schema, rng, edge ? 'edge' : 'typical', knownOf, parameter.name);
    if (parameter.in === 'query') query.push([parameter.name, encodeURIComponent(String(value))]);
    // a header carries visible ASCII: what else the schema allows, HTTP cannot carry as such
    else if (parameter.name !== 'idempotency-key')
      headers.push([parameter.name, String(value).replace(/[^\x20-\x7e]/g, '?')]);
    // a key names one body: a fresh one each time (a short edge key would come back with another body)
    else if (rng.chance(0.5))
      headers.push([parameter.name, edge ? 'k'.repeat(200) + hex(rng, 55) : `k${hex(rng, 24)}`]);
  }
  let method: string = operation.method;
  let authorization: string | null = `Bearer ${token}`;
  let contentType = operation.body?.type;
  let body: Buffer | undefined;
  let bodyValid = true;

  if (operation.body !== undefined) {
    if (operation.body.type === 'application/x-ndjson') {
      const ndjson = ndjsonBody(rng, context.corpus, style === 'hostile' && rng.chance(0.7));
      body = ndjson.body;
      bodyValid = !ndjson.hostile;
      notes.push(ndjson.note);
      setParam(query, 'format', ndjson.format);
    } else {
      const schema = resolveSchema(operation.body.schema);
      let value = validObject(schema, rng, edge ? 'edge' : 'typical', knownOf);
      const isRecord = operation.path === '/v1/record';
      if (isRecord) value = harmless(value, rng, context.recordCwd);
      body = Buffer.from(JSON.stringify(value));
      if (style === 'hostile' && rng.chance(0.6)) {
        const hostile = hostileJson(rng, value, schema, isRecord ? recordCommandFields : []);
        body = hostile.body;
        bodyValid = false;
        notes.push(hostile.note);
      }
    }
  }

  // a hostile request breaks its HTTP side, its body, or both: a hostile body alone must still be answered in time
  let httpValid = true;
  // (a hostile NDJSON body mostly goes alone: behind a wrong token or method it would never be read)
  const alone = bodyValid ? 0.5 : 0.85;
  const mutations =
    style !== 'hostile' ? 0 : body === undefined || !rng.chance(alone) ? rng.between(1, 2) : 0;
  for (let i = 0; i < mutations; i++) {
    const mutation = rng.weighted({ value: 5, missing: 2, extra: 2, repeat: 1, auth: 2, method: 1, type: 1 });
    const parameter = operation.parameters.length > 0 ? rng.pick(operation.parameters) : undefined;
    if (mutation === 'value' && parameter !== undefined) {
      if (parameter.in === 'query')
        setParam(query, parameter.name, hostileValue(rng, parameter, known.cursors));
      else headers.push([parameter.name, hostileQueryText(rng)]);
    } else if (mutation === 'missing' && query.length > 0) query.splice(rng.int(query.length), 1);
    else if (mutation === 'extra')
      query.push([rng.pick(['x', 'run[]', '__proto__', 'limit', 'RUN', '']), hostileQueryText(rng)]);
    else if (mutation === 'repeat' && query.length > 0) query.push(rng.pick(query));
    else if (mutation === 'auth') authorization = hostileAuthorization(rng, token);
    else if (mutation === 'method')
      method = rng.pick([
        'PUT',
        'DELETE',
        'PATCH',
        'OPTIONS',
        'HEAD',
        'TRACE',
        'get',
        'FOO',
        operation.method === 'GET' ? 'POST' : 'GET',
      ]);
    else if (mutation === 'type' && contentType !== undefined)
      contentType = rng.pick([
        '',
        'text/plain',
        'application/json',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
      ]);
    else continue; // nothing to mutate this way
    notes.push(mutation);
    httpValid = false;
  }

  if (authorization !== null) headers.push(['Authorization', authorization]);
  if (body !== undefined && contentType !== undefined && contentType !== '')
    headers.push(['Content-Type', contentType]);
  const target =
    operation.path + (query.length === 0 ? '' : '?' + query.map(([k, v]) => `${k}=${v}`).join('&'));
  const isIngest = operation.operationId === 'ingest';
  // an ingest body's bad lines are refused one by one in a 200: the request itself is well-formed
  const wellFormed = httpValid && (bodyValid || isIngest) && (body?.length ?? 0) <= deadlineBodyBytes;
  return {
    request: { method, target, headers, ...(body !== undefined && { body }) },
    operation,
    style,
    wellFormed,
    mustRefuseAuth: authorization !== `Bearer ${token}` && !operation.isPublic,
    note: notes.join('; '),
  };
}

/** A value `parameter` must refuse. */
function hostileValue(rng: Rng, parameter: ApiParameter, cursors: readonly string[]): string {
  if (parameter.name === 'cursor') return hostileCursor(rng, cursors);
  const type = resolveSchema(parameter.schema)['type'];
  if (type === 'integer' && rng.chance(0.7)) return hostileInteger(rng);
  return hostileQueryText(rng);
}

function setParam(query: [string, string][], name: string, value: string): void {
  const at = query.findIndex(([key]) => key === name);
  if (at === -1) query.push([name, value]);
  else query[at] = [name, value];
}
