/**
 * Body schemas as the OpenAPI document and the AI tools show them, from the typia collections of
 * the TS types that build the bodies: their components merged into one pool (a type several
 * collections reach is one component; two different schemas under one name fail), every object
 * type tidied into a named component (tidy-schema.ts), and indexed by the `schema_version` each
 * body fixes, with a union component for a version several bodies share (body-versions.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { IJsonSchemaCollection } from 'typia';
import { indexBodyVersions, type BodyVersions } from './body-versions.js';
import type { JsonObject } from './json-object.js';
import { isObjectSchema, tidySchema } from './tidy-schema.js';

/** The tidied components of some bodies, and which answers each version. */
export interface BodySchemas {
  schemas: Readonly<Record<string, JsonObject>>;
  versions: BodyVersions;
}

/** The components of the collections, merged in order. */
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

/** The bodies of the collections, as described above. */
export function bodySchemasOf(collections: readonly IJsonSchemaCollection<'3.1'>[]): BodySchemas {
  const components = mergedComponents(collections);
  // every object type as a named component: tidied, primitive aliases inlined, interfaces closed
  const schemas = Object.fromEntries(
    Object.entries(components)
      .filter(([, schema]) => isObjectSchema(schema))
      .map(([name, schema]) => [name, tidySchema(schema, { components, inlineObjects: false })]),
  );
  return { schemas, versions: indexBodyVersions(schemas) };
}
