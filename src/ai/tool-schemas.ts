/**
 * The JSON Schemas of the tools, derived from the schemas the daemon has for its own HTTP contract
 * (typia, from the same TS types), so the catalog cannot drift from the daemon: inputs from a
 * route's parameter or body contract, outputs from the answer type its endpoint contract states,
 * tidied as the OpenAPI document's body components are (shared/schema/body-schemas.ts).
 */
import type { EndpointContract } from '../shared/http/endpoint.js';
import { bodySchemasOf } from '../shared/schema/body-schemas.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import type { SchemaContract } from '../shared/schema/schema-contract.js';

const componentPrefix = '#/components/schemas/';

/**
 * An input schema from a contract's fields (each already self-contained): a closed object, so
 * providers that check tool arguments refuse what the daemon would. `notes` replaces the
 * description of fields whose meaning the tool changes (the fields a write tool forces).
 */
export function inputSchemaOf<T>(
  contract: SchemaContract<T>,
  notes: Readonly<Record<string, string>> = {},
): JsonObject {
  const properties: Record<string, JsonObject> = {};
  for (const [name, schema] of contract.fields) {
    const note = notes[name];
    properties[name] = note === undefined ? schema : { ...schema, description: note };
  }
  return {
    type: 'object',
    properties,
    ...(contract.required.size > 0 ? { required: [...contract.required] } : {}),
    additionalProperties: false,
  };
}

/**
 * The output schema of an endpoint's answer, the body whose `schema_version` is
 * `provenance.<schema>/v1`: its component (or the union of the bodies that share the version) with
 * every component it reaches under `$defs` (refs rewritten to `#/$defs/...`), typed object at the
 * root as MCP requires. An endpoint that states no such answer fails the build of the catalog.
 */
export function outputSchemaOf(endpoint: EndpointContract): JsonObject {
  const answer = endpoint.answerType?.();
  if (answer === undefined)
    throw new Error(`failed to build an output schema: ${endpoint.operationId} states no answer`);
  const { schemas, versions } = bodySchemasOf([answer]);
  const all: Readonly<Record<string, JsonObject>> = { ...schemas, ...versions.unions };
  const rootName = versions.components.get(endpoint.schema);
  const root = rootName === undefined ? undefined : all[rootName];
  if (root === undefined)
    throw new Error(
      `failed to build an output schema: no answer of ${endpoint.operationId} is provenance.${endpoint.schema}/v1`,
    );
  const defs: Record<string, JsonObject> = {};
  const pending = [...refsIn(root)];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in defs) continue;
    const component = all[name];
    if (component === undefined)
      throw new Error(`failed to build an output schema: ${name} is not documented`);
    defs[name] = rewriteRefs(component) as JsonObject;
    pending.push(...refsIn(component));
  }
  const names = Object.keys(defs).sort();
  return {
    ...(rewriteRefs(root) as JsonObject),
    type: 'object',
    ...(names.length > 0 ? { $defs: Object.fromEntries(names.map((name) => [name, defs[name]!])) } : {}),
  };
}

/** The component names a schema refers to, at any depth. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' && inner.startsWith(componentPrefix)
      ? [inner.slice(componentPrefix.length)]
      : refsIn(inner),
  );
}

/** A copy with `#/components/schemas/X` refs pointing at `#/$defs/X`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith(componentPrefix)
        ? [key, `#/$defs/${inner.slice(componentPrefix.length)}`]
        : [key, rewriteRefs(inner)],
    ),
  );
}
