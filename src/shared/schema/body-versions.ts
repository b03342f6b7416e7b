/**
 * Which component answers each `schema_version`, `provenance.<name>/v1`. Most versions name one
 * body. A version several bodies share (GET /v1/timeline answers a table or a tree, both
 * `provenance.timeline/v1`) is answered by one more component, named for the version as envelopes
 * are: a `oneOf` of those bodies, which must be told apart by a const field they all require
 * (`view`), or the build fails. It carries no OpenAPI `discriminator`: tidySchema drops that
 * everywhere (Ajv's strict mode refuses it), and distinct consts already let exactly one member match.
 */
import type { JsonObject } from './json-object.js';

/** The components that answer each version, and the unions made for shared ones. */
export interface BodyVersions {
  /** Component name by the `<name>` of `provenance.<name>/v1`. */
  components: ReadonlyMap<string, string>;
  /** The union components of shared versions, by name. */
  unions: Readonly<Record<string, JsonObject>>;
}

/** The component name of a body named by its version alone: `observability_summary` → `ObservabilitySummary`. */
export function versionComponentName(version: string): string {
  return version.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());
}

/** Indexes body components by the version their `schema_version` const names. */
export function indexBodyVersions(schemas: Readonly<Record<string, JsonObject>>): BodyVersions {
  const byVersion = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    const version = /^provenance\.(\w+)\/v1$/.exec(String(propertiesOf(schema)['schema_version']?.['const']));
    if (version === null) continue;
    byVersion.set(version[1]!, [...(byVersion.get(version[1]!) ?? []), name]);
  }
  const components = new Map<string, string>();
  const unions: Record<string, JsonObject> = {};
  for (const [version, names] of byVersion) {
    if (names.length === 1) {
      components.set(version, names[0]!);
      continue;
    }
    const name = versionComponentName(version);
    const shared = `failed to index bodies: ${names.join(', ')} share ${version}`;
    if (name in schemas) throw new Error(`${shared}, and the name ${name} for their union is taken`);
    const field = discriminatorOf(names.map((member) => schemas[member]!));
    if (field === undefined)
      throw new Error(`${shared}, and no const field they all require tells them apart`);
    unions[name] = {
      description: `One of ${names.join(', ')}, told apart by \`${field}\`.`,
      oneOf: names.map((member) => ({ $ref: `#/components/schemas/${member}` })),
    };
    components.set(version, name);
  }
  return { components, unions };
}

function propertiesOf(schema: JsonObject): Record<string, JsonObject> {
  return (schema['properties'] ?? {}) as Record<string, JsonObject>;
}

/** A field besides schema_version that every body requires, with a different const in each. */
function discriminatorOf(bodies: readonly JsonObject[]): string | undefined {
  const required = (schema: JsonObject): string[] => (schema['required'] ?? []) as string[];
  const candidates = required(bodies[0]!).filter((field) => field !== 'schema_version');
  return candidates.find((field) => {
    const values = bodies.map((schema) =>
      required(schema).includes(field) ? propertiesOf(schema)[field]?.['const'] : undefined,
    );
    return values.every((value) => value !== undefined) && new Set(values).size === values.length;
  });
}
