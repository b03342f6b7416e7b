/**
 * Rewrites a JSON Schema as typia 12.2.1 emits it (`typia.json.schema<T, '3.1'>()`) into the plainer
 * equivalent that the OpenAPI document shows and the rule words read. What typia writes, and what
 * becomes of it here:
 * - a union of literals is a `oneOf` of `const`s, and `T | null` a `oneOf` led by `{type: "null"}`:
 *   both become one `type` (a list with "null") and, for literals, an `enum`;
 * - a tagged primitive alias (`type Count = number & tags.Type<'uint64'>`) is a component named after
 *   the alias, or after a generic alias and its arguments (`CleanText1256`), reached by `$ref`: it
 *   is inlined without the alias's description (objects are inlined only when asked);
 * - a tuple is `prefixItems` plus `additionalItems: false`, a keyword 2020-12 dropped: it becomes
 *   `items: false` with `minItems`;
 * - a union of objects with a literal tag gets an OpenAPI `discriminator`, which Ajv's strict mode
 *   refuses: it is dropped, as the closed members already exclude each other;
 * - an object never gets `additionalProperties: false`, and one with an index signature gets
 *   `additionalProperties: {}` beside empty `properties` and `required`. Here an interface is exact:
 *   an object without an index signature is closed, and empty lists are left out.
 */
import type { JsonObject } from './json-object.js';

/** Where `$ref`s point, and whether object components are inlined too. */
export interface TidyOptions {
  components: Readonly<Record<string, JsonObject>>;
  inlineObjects: boolean;
}

const componentPrefix = '#/components/schemas/';

/** True for a schema that describes an object (a component kept by name unless inlining objects). */
export function isObjectSchema(schema: JsonObject): boolean {
  return schema['type'] === 'object';
}

/** The schema with typia's forms rewritten as described above; the input is not changed. */
export function tidySchema(schema: JsonObject, options: TidyOptions): JsonObject {
  const ref = schema['$ref'];
  if (typeof ref === 'string') return tidyRef(ref, schema, options);
  let node: JsonObject = { ...schema };
  const properties = node['properties'] as Record<string, JsonObject> | undefined;
  if (properties !== undefined)
    node['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, sub]) => [name, tidySchema(sub, options)]),
    );
  for (const key of ['additionalProperties', 'items'] as const) {
    const sub = node[key];
    if (isJsonObject(sub)) node[key] = tidySchema(sub, options);
  }
  for (const key of ['prefixItems', 'oneOf', 'anyOf', 'allOf'] as const) {
    const list = node[key] as JsonObject[] | undefined;
    if (list !== undefined) node[key] = list.map((sub) => tidySchema(sub, options));
  }
  if (Array.isArray(node['oneOf'])) node = collapseUnion(node);
  if ('const' in node && node['type'] === undefined) node = { type: typeOfValue(node['const']), ...node };
  if (Array.isArray(node['prefixItems']) && node['additionalItems'] === false) {
    const { additionalItems: _dropped, ...rest } = node;
    node = { ...rest, minItems: (node['prefixItems'] as unknown[]).length, items: false };
  }
  delete node['discriminator'];
  return isObjectSchema(node) ? closeObject(node) : node;
}

/** A `$ref` followed into its component, or kept when it names an object kept by name. */
function tidyRef(ref: string, schema: JsonObject, options: TidyOptions): JsonObject {
  const name = ref.startsWith(componentPrefix) ? ref.slice(componentPrefix.length) : ref;
  const target = options.components[name];
  if (target === undefined) throw new Error(`failed to tidy a schema: ${ref} names no component`);
  if (!options.inlineObjects && isObjectSchema(target)) return schema;
  // an alias's JSDoc speaks to code readers; the referring site's own annotations are kept
  const { description: _description, ...inlined } = tidySchema(target, options);
  const { $ref: _ref, ...siblings } = schema;
  return { ...inlined, ...siblings };
}

/** `oneOf` of literals (and null) as an `enum`; `oneOf` of null and one typed schema as a type list. */
function collapseUnion(node: JsonObject): JsonObject {
  const { oneOf, ...rest } = node as JsonObject & { oneOf: JsonObject[] };
  const isNull = (member: JsonObject): boolean =>
    member['type'] === 'null' && Object.keys(member).length === 1;
  const nullable = oneOf.some(isNull);
  const others = oneOf.filter((member) => !isNull(member));
  const isLiteral = (member: JsonObject): boolean =>
    'const' in member && Object.keys(member).every((key) => key === 'const' || key === 'type');
  if (others.length > 0 && others.every(isLiteral)) {
    const values = others.map((member) => member['const']);
    const types = [...new Set(values.map(typeOfValue)), ...(nullable ? ['null'] : [])];
    return {
      type: types.length === 1 ? types[0] : types,
      enum: nullable ? [...values, null] : values,
      ...rest,
    };
  }
  const [only] = others;
  if (nullable && others.length === 1 && only !== undefined && typeof only['type'] === 'string') {
    const withNull = Array.isArray(only['enum']) ? { enum: [...(only['enum'] as unknown[]), null] } : {};
    return { ...only, type: [only['type'], 'null'], ...withNull, ...rest };
  }
  return node;
}

/** An object without an index signature is exact; empty `properties`/`required` are left out. */
function closeObject(node: JsonObject): JsonObject {
  const { properties, required, additionalProperties, ...rest } = node;
  const hasProperties = isJsonObject(properties) && Object.keys(properties).length > 0;
  const hasRequired = Array.isArray(required) && required.length > 0;
  const extra = isJsonObject(additionalProperties) && Object.keys(additionalProperties).length === 0;
  return {
    ...rest,
    ...(hasProperties ? { properties } : {}),
    ...(hasRequired ? { required } : {}),
    additionalProperties: extra ? true : (additionalProperties ?? false),
  };
}

/** The JSON Schema type of a literal value. */
function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
