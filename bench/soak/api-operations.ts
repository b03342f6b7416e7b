/**
 * Every operation of the daemon as openapi.json at the package root states it (the document users
 * read): method, path, parameters with their schemas, the body's type and schema, and the statuses
 * it documents. The fuzzer walks this list, so a new endpoint is fuzzed without a change here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

/** A JSON Schema node, as the document holds it. */
export type JsonSchema = Record<string, unknown>;

export interface ApiParameter {
  name: string;
  in: 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface ApiOperation {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  parameters: ApiParameter[];
  /** The body's media type and schema, for operations that take one. */
  body: { type: string; schema: JsonSchema } | undefined;
  /** Statuses the document lists (`default` aside). */
  statuses: Set<number>;
  /** Answers without the token (the health endpoints): 401 is not among its statuses. */
  isPublic: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

/** The document itself. */
export const openapi = JSON.parse(readFileSync(join(packageRoot, 'openapi.json'), 'utf8')) as OpenApiDocument;

/** A schema with its `$ref` followed (one level; the generator follows nested ones as it goes). */
export function resolveSchema(schema: JsonSchema): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = openapi.components.schemas[name];
  if (target === undefined) throw new Error(`openapi.json: a dangling $ref ${ref}`);
  return resolveSchema(target);
}

/** Every operation of the document, in its order. */
export function listOperations(): ApiOperation[] {
  const operations: ApiOperation[] = [];
  for (const [path, item] of Object.entries(openapi.paths))
    for (const [verb, operation] of Object.entries(item)) {
      if (verb !== 'get' && verb !== 'post') continue;
      const content = Object.entries(operation.requestBody?.content ?? {})[0];
      const statuses = new Set(
        Object.keys(operation.responses)
          .filter((s) => s !== 'default')
          .map(Number),
      );
      operations.push({
        method: verb === 'get' ? 'GET' : 'POST',
        path,
        operationId: operation.operationId,
        parameters: (operation.parameters ?? [])
          .filter((p) => p.in === 'query' || p.in === 'header')
          .map((p) => ({
            name: p.name,
            in: p.in as 'query' | 'header',
            required: p.required === true,
            schema: p.schema,
          })),
        body: content === undefined ? undefined : { type: content[0], schema: content[1].schema },
        statuses,
        isPublic: !statuses.has(401),
      });
    }
  return operations;
}
