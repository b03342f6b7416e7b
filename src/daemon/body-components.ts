/**
 * The body schemas of the OpenAPI document, gathered from the endpoints: each states the TS types of
 * its answer and of its request body where it is declared (`answerType`, `bodyType`: typia,
 * from the same types the code builds and checks them with), merged into one pool
 * (shared/schema/body-schemas.ts). Built at the first use: only the OpenAPI document reads it.
 */
import typia, { type IJsonSchemaCollection } from 'typia';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { ErrorBody } from '../shared/http/http-reply.js';
import { bodySchemasOf, type BodySchemas } from '../shared/schema/body-schemas.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import { endpoints } from './endpoints.js';

/** The body every error answer carries (docs/contract.md "HTTP conventions"). */
export const errorBodyType = (): IJsonSchemaCollection<'3.1'> => typia.json.schemas<[ErrorBody], '3.1'>();

/** The answer and request body types of the endpoints, then the error body. */
function typesOf(list: readonly Endpoint<never>[]): IJsonSchemaCollection<'3.1'>[] {
  const collections = list.flatMap((endpoint) => [endpoint.answerType?.(), endpoint.bodyType?.()]);
  return [...collections.filter((collection) => collection !== undefined), errorBodyType()];
}

let built: BodySchemas | undefined;

const bodyComponents = (): BodySchemas => (built ??= bodySchemasOf(typesOf(endpoints)));

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
