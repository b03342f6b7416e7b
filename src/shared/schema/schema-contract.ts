/**
 * One TS type's two faces for an input: its JSON Schema (`typia.json.schema<T, '3.1'>()`) and its
 * typia validator (`typia.createValidate<T>()` or `createValidateEquals<T>()`), both generated from
 * the type at build time. The validator decides; the schema names the failed field's rule in plain
 * words, so a 400 says what the OpenAPI document says.
 */
import type { IJsonSchemaUnit, IValidation } from 'typia';
import type { JsonObject } from './json-object.js';
import { describeRule } from './schema-rule.js';
import { tidySchema } from './tidy-schema.js';

/** Why an input was refused: the field it names (`body` for the whole input) and a message. */
export interface FieldFailure {
  field: string;
  message: string;
}

/** The outcome of a check: the typed input, or the first failure. */
export type Checked<T> = { ok: true; value: T } | { ok: false; failure: FieldFailure };

/** An object type's schema and validator, with messages that name the field and its rule. */
export class SchemaContract<T> {
  /** Each top-level field's schema, tidied and self-contained (every `$ref` inlined). */
  readonly fields: ReadonlyMap<string, JsonObject>;
  readonly required: ReadonlySet<string>;

  /** `subject` names the whole input in messages ("bind body", "query"). */
  constructor(
    private readonly unit: IJsonSchemaUnit<'3.1', T>,
    private readonly validate: (input: unknown) => IValidation<T>,
    private readonly subject: string,
  ) {
    const components = unit.components.schemas as Record<string, JsonObject>;
    const root = tidySchema(unit.schema as JsonObject, { components, inlineObjects: true });
    this.fields = new Map(Object.entries((root['properties'] ?? {}) as Record<string, JsonObject>));
    this.required = new Set((root['required'] ?? []) as string[]);
  }

  /** The typed input, or the first field it gets wrong; unknown fields (equals validators) come first. */
  check(input: unknown): Checked<T> {
    // typia's object check lets an array through (it reads only the fields): refuse it like null
    if (Array.isArray(input)) return refuse('body', this.notAnObject());
    const result = this.validate(input);
    if (result.success) return { ok: true, value: result.data };
    const failures = result.errors.map((error) => ({ field: fieldOf(error.path), value: error.value }));
    const unknown = failures.filter(({ field }) => field !== '' && !this.fields.has(field));
    if (unknown.length > 0)
      return { ok: false, failure: this.unknownFields(unknown.map(({ field }) => field)) };
    const { field, value } = failures[0]!;
    if (field === '') return refuse('body', this.notAnObject());
    // null counts as absent: for a required field, it is missing
    const absent = value === undefined || (value === null && this.required.has(field));
    return refuse(field, absent ? `${field} is required` : this.rule(field));
  }

  /** The same contract with `subject` naming the input in its messages ("explain input"). */
  withSubject(subject: string): SchemaContract<T> {
    return new SchemaContract(this.unit, this.validate, subject);
  }

  /** check(), also refusing fields the type does not declare when its validator ignores them. */
  checkExact(input: unknown): Checked<T> {
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      const unknown = Object.keys(input).filter((key) => !this.fields.has(key));
      if (unknown.length > 0) return { ok: false, failure: this.unknownFields(unknown) };
    }
    return this.check(input);
  }

  /** "`field` must be ..." from its schema: also the message of checks a schema cannot state. */
  rule(field: string): string {
    const schema = this.fields.get(field);
    if (schema === undefined)
      throw new Error(`failed to describe ${field}: the ${this.subject} has no such field`);
    return describeRule(field, schema);
  }

  private notAnObject(): string {
    return `the ${this.subject} must be a JSON object`;
  }

  /** Names unknown keys safely: truncated and JSON-quoted, so a hostile key cannot forge the message. */
  private unknownFields(keys: string[]): FieldFailure {
    const shown = keys.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 64)));
    const more = keys.length > 5 ? ` and ${keys.length - 5} more` : '';
    const noun = keys.length === 1 ? 'field' : 'fields';
    return {
      field: keys[0]!.slice(0, 64),
      message: `unknown ${noun} ${shown.join(', ')}${more} in the ${this.subject}`,
    };
  }
}

function refuse<T>(field: string, message: string): Checked<T> {
  return { ok: false, failure: { field, message } };
}

/**
 * The top-level field a typia error path names: `$input.run_id`, or `$input["x\ny"]` (JSON-quoted)
 * for a key that is no identifier; '' when the path is the input itself.
 */
function fieldOf(path: string): string {
  const rest = path.startsWith('$input') ? path.slice('$input'.length) : path;
  const dotted = /^\.([A-Za-z_$][\w$]*)/.exec(rest);
  if (dotted !== null) return dotted[1]!;
  const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
  if (quoted !== null) return JSON.parse(quoted[1]!) as string;
  return '';
}
