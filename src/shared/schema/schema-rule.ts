/**
 * A parameter's or field's rule in plain words, read from its (tidied, inlined) JSON Schema, so a
 * 400 message says what the schema in the OpenAPI document says: "limit must be an integer from 1
 * to 1000", "type must be one of execve, ...".
 */
import type { JsonObject } from './json-object.js';
import { cleanTextPattern } from './wire-types.js';

/** An example instant for messages about RFC 3339 values. */
const sampleInstant = '2026-01-01T00:00:00Z';

/** "`name` must be ..." for the rule `schema` states; null is left out, as null means absent. */
export function describeRule(name: string, schema: JsonObject): string {
  return `${name} must be ${ruleWords(schema)}`;
}

function ruleWords(schema: JsonObject): string {
  const oneOf = schema['oneOf'] as JsonObject[] | undefined;
  if (oneOf !== undefined) {
    return oneOf
      .filter((member) => member['type'] !== 'null')
      .map(ruleWords)
      .join(', or ');
  }
  const values = schema['enum'] as (string | number | boolean | null)[] | undefined;
  if (values !== undefined) return `one of ${values.filter((value) => value !== null).join(', ')}`;
  const types = [schema['type']].flat().filter((type) => type !== 'null');
  if (types.length !== 1) return 'a valid value';
  const type = types[0] as string;
  if (type === 'string') return stringWords(schema);
  if (type === 'integer') return integerWords(schema);
  if (type === 'number') return numberWords(schema);
  if (type === 'boolean') return 'true or false';
  if (type === 'array') return arrayWords(schema);
  return `a JSON ${type}`;
}

function stringWords(schema: JsonObject): string {
  if (schema['format'] === 'date-time') return `an RFC 3339 date-time, like ${sampleInstant}`;
  const min = schema['minLength'] as number | undefined;
  const max = schema['maxLength'] as number | undefined;
  let words = 'a string';
  if (min !== undefined && max !== undefined) words += ` of ${min}..${max} characters`;
  else if (max !== undefined) words += ` of at most ${max} characters`;
  else if (min !== undefined) words += ` of at least ${min} characters`;
  const pattern = schema['pattern'] as string | undefined;
  if (pattern === cleanTextPattern) words += ' without control characters';
  else if (pattern !== undefined) words += ` matching ${pattern}`;
  return words;
}

function integerWords(schema: JsonObject): string {
  const min = schema['minimum'] as number | undefined;
  const max = schema['maximum'] as number | undefined;
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer of at least ${min}`;
  if (max !== undefined) return `an integer of at most ${max}`;
  return 'an integer';
}

function arrayWords(schema: JsonObject): string {
  const min = schema['minItems'] as number | undefined;
  const max = schema['maxItems'] as number | undefined;
  const items = schema['uniqueItems'] === true ? 'distinct items' : 'items';
  if (min !== undefined && max !== undefined) return `a JSON array of ${min}..${max} ${items}`;
  if (max !== undefined) return `a JSON array of at most ${max} ${items}`;
  if (min !== undefined) return `a JSON array of at least ${min} ${items}`;
  return schema['uniqueItems'] === true ? `a JSON array of ${items}` : 'a JSON array';
}

function numberWords(schema: JsonObject): string {
  const bounds = [
    bound(schema, 'exclusiveMinimum', 'greater than') ?? bound(schema, 'minimum', 'at least'),
    bound(schema, 'exclusiveMaximum', 'below') ?? bound(schema, 'maximum', 'at most'),
  ].filter((words) => words !== undefined);
  return ['a number', bounds.join(' and ')].filter((words) => words !== '').join(' ');
}

function bound(schema: JsonObject, keyword: string, words: string): string | undefined {
  const value = schema[keyword];
  return typeof value === 'number' ? `${words} ${value}` : undefined;
}
