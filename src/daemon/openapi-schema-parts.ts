/**
 * Building blocks of the exact body schemas: closed objects, versioned bodies, enums, nullable
 * scalars and count maps, so each body schema reads as the list of its fields.
 */
import { maxPageLimit } from '../telemetry/paging.js';
import type { JsonObject } from './openapi-schemas.js';

/** A `$ref` into `components.schemas`; openapi-schemas' own helper would make the modules a cycle. */
export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these keys, all required. */
export function closed(properties: Record<string, JsonObject>, description?: string): JsonObject {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  };
}

/** A top-level body: `schema_version` plus exactly these keys. */
export function body(name: string, properties: Record<string, JsonObject>): JsonObject {
  return closed({ schema_version: { type: 'string', const: `provenance.${name}/v1` }, ...properties });
}

/** A string (or integer) that is one of `values`. */
export const enumOf = (values: readonly (string | number)[]): JsonObject => ({
  type: typeof values[0] === 'number' ? 'integer' : 'string',
  enum: [...values],
});
/** One of `values`, or null. */
export const enumOrNull = (values: readonly string[]): JsonObject => ({
  type: ['string', 'null'],
  enum: [...values, null],
});
/** Any string. */
export const text: JsonObject = { type: 'string' };
/** A string, or null. */
export const textOrNull: JsonObject = { type: ['string', 'null'] };
/** A count: an integer of 0 or more. */
export const count: JsonObject = { type: 'integer', minimum: 0 };
/** An integer, or null. */
export const integerOrNull: JsonObject = { type: ['integer', 'null'] };
/** An RFC 3339 date-time. */
export const instant: JsonObject = { type: 'string', format: 'date-time' };
/** An RFC 3339 date-time, or null. */
export const instantOrNull: JsonObject = { type: ['string', 'null'], format: 'date-time' };
/** A number in [0, 1], or null: a confidence. */
export const ratioOrNull: JsonObject = { type: ['number', 'null'], minimum: 0, maximum: 1 };
/** A binding's confidence: greater than 0, at most 1. */
export const bindingConfidence: JsonObject = { type: 'number', exclusiveMinimum: 0, maximum: 1 };
/** A binding id as newBindingId in telemetry/binding.ts makes it. */
export const bindingId: JsonObject = { type: 'string', pattern: '^bnd_[a-z2-7]{20}$' };
/** The next page's cursor (encodeCursor in telemetry/cursor.ts: base64url), or null on the last page. */
export const nextCursor: JsonObject = { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]+$' };
/** A page size, as the events and windows routes accept it. */
export const pageLimit: JsonObject = { type: 'integer', minimum: 1, maximum: maxPageLimit };

/** A map from names (of `keys`, when given) to counts. */
export function countsBy(keys?: readonly string[]): JsonObject {
  return {
    type: 'object',
    ...(keys === undefined ? {} : { propertyNames: { enum: [...keys] } }),
    additionalProperties: count,
  };
}
