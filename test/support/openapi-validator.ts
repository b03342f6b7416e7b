/**
 * Checks an HTTP answer against the OpenAPI document: the operation is found by exact path and
 * method, the response by status (else `default`), and the JSON body is validated with Ajv 2020.
 */
import { AssertionError } from 'node:assert';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openapiDocument } from '../../src/daemon/openapi.js';
import type { JsonObject, OpenApiResponse } from '../../src/daemon/openapi-schemas.js';

/** One answer as a test saw it. */
export interface ResponseSample {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

// refs in the document are local (`#/components/...`); they resolve against this added schema
const documentId = 'https://provd.invalid/openapi.json';

// both packages are CommonJS: under NodeNext their classes are the `default` of the default import
const ajv = new Ajv2020Module.default({ strict: true, allErrors: true });
addFormatsModule.default(ajv);
ajv.addKeyword('components');
ajv.addSchema({ $id: documentId, components: openapiDocument.components });

const compiled = new WeakMap<JsonObject, ValidateFunction>();

/** Copies a schema, pointing its local `$ref`s at the added document. */
function qualifyRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(qualifyRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? [key, documentId + value] : [key, qualifyRefs(value)],
    ),
  );
}

function validatorFor(schema: JsonObject): ValidateFunction {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  const validate = ajv.compile(qualifyRefs(schema) as JsonObject);
  compiled.set(schema, validate);
  return validate;
}

/** Follows a `$ref` into `components.responses`. */
function resolveResponse(response: OpenApiResponse): OpenApiResponse | undefined {
  if (!('$ref' in response)) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  return openapiDocument.components.responses[name];
}

/** The schema the body must match, or an error string when the answer is not documented. */
function schemaFor({ method, path, status }: ResponseSample): JsonObject | string {
  const verb = method.toLowerCase();
  const item = openapiDocument.paths[path];
  const operation = verb === 'get' || verb === 'post' ? item?.[verb] : undefined;
  // unknown paths (404) and undocumented methods (405) answer the generic error body
  if (operation === undefined) return { $ref: '#/components/schemas/Error' };
  const listed = operation.responses[String(status)] ?? operation.responses['default'];
  if (listed === undefined) return `${method} ${path}: status ${status} is not documented`;
  const response = resolveResponse(listed);
  if (response === undefined) return `${method} ${path}: status ${status} has a dangling $ref`;
  const schema = 'content' in response ? response.content?.['application/json']?.schema : undefined;
  return schema ?? `${method} ${path}: status ${status} documents no application/json body`;
}

/** Lists what is wrong with an answer against the document; an empty list means it is valid. */
export function validateResponse(sample: ResponseSample): string[] {
  const schema = schemaFor(sample);
  if (typeof schema === 'string') return [schema];
  const validate = validatorFor(schema);
  if (validate(sample.body)) return [];
  const where = `${sample.method} ${sample.path} ${sample.status}`;
  return (validate.errors ?? []).map(
    (error) => `${where}: body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
  );
}

/** Throws an AssertionError listing every problem when the answer does not match the document. */
export function assertValidResponse(sample: ResponseSample): void {
  const errors = validateResponse(sample);
  if (errors.length > 0) {
    throw new AssertionError({ message: `answer does not match openapi.json:\n  ${errors.join('\n  ')}` });
  }
}
