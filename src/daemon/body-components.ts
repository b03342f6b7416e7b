/**
 * The body schemas of the OpenAPI document, gathered from the endpoints: each states the TS types of
 * its answer and of its request body where it is declared (`answerType`, `bodyType`: typia,
 * from the same types the code builds and checks them with), and their components are merged here
 * into one pool, a type that several endpoints reach being one component. Each answer's component
 * is found by the `schema_version` its type fixes (body-versions.ts). Built at the first use: only
 * the OpenAPI document and the AI tools' output schemas read it.
 */
import { isDeepStrictEqual } from 'node:util';
import typia, { type IJsonSchemaCollection } from 'typia';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { ErrorBody } from '../shared/http/http-reply.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import { isObjectSchema, tidySchema } from '../shared/schema/tidy-schema.js';
import { indexBodyVersions, type BodyVersions } from './body-versions.js';
import { endpoints } from './endpoints.js';

/** The body every error answer carries (docs/contract.md "HTTP conventions"). */
export const errorBodyType = (): IJsonSchemaCollection<'3.1'> => typia.json.schemas<[ErrorBody], '3.1'>();

/** The components of the collections, merged in order; two different schemas under one name fail. */
function mergedComponents(collections: readonly IJsonSchemaCollection<'3.1'>[]): Record<string, JsonObject> {
  const pool: Record<string, JsonObject> = {};
  for (const collection of collections) {
    for (const [name, schema] of Object.entries(collection.components.schemas ?? {})) {
      const known = pool[name];
      if (known === undefined) pool[name] = schema as JsonObject;
      else if (!isDeepStrictEqual(known, schema))
        throw new Error(`failed to gather the body schemas: two different types are named ${name}`);
    }
  }
  return pool;
}

/** The answer and request body types of the endpoints, then the error body. */
function typesOf(list: readonly Endpoint<never>[]): IJsonSchemaCollection<'3.1'>[] {
  const collections = list.flatMap((endpoint) => [endpoint.answerType?.(), endpoint.bodyType?.()]);
  return [...collections.filter((collection) => collection !== undefined), errorBodyType()];
}

interface BodyComponents {
  schemas: Readonly<Record<string, JsonObject>>;
  versions: BodyVersions;
}

let built: BodyComponents | undefined;

function bodyComponents(): BodyComponents {
  if (built !== undefined) return built;
  const components = mergedComponents(typesOf(endpoints));
  // every object type as a named component: tidied, primitive aliases inlined, interfaces closed
  const schemas = Object.fromEntries(
    Object.entries(components)
      .filter(([, schema]) => isObjectSchema(schema))
      .map(([name, schema]) => [name, tidySchema(schema, { components, inlineObjects: false })]),
  );
  return (built = { schemas, versions: indexBodyVersions(schemas) });
}

/** The components of every body, by name (see shared/schema/tidy-schema.ts for what tidying does). */
export function bodySchemas(): Readonly<Record<string, JsonObject>> {
  return bodyComponents().schemas;
}

/** The union components of versions that several bodies share (see body-versions.ts). */
export function unionSchemas(): Readonly<Record<string, JsonObject>> {
  return bodyComponents().versions.unions;
}

/** The component of the body whose `schema_version` is `provenance.<schema>/v1`, if one is generated. */
export function bodyComponentName(schema: string): string | undefined {
  return bodyComponents().versions.components.get(schema);
}

/** The component name of a collection's one root type (an endpoint's `bodyType`). */
export function rootComponentName(collection: IJsonSchemaCollection<'3.1'>): string {
  const ref = (collection.schemas[0] as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string') throw new Error('failed to name a body: its type is not an object type');
  return ref.slice(ref.lastIndexOf('/') + 1);
}
