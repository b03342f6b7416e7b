/**
 * Request parameters (a query string, or request headers) read through one TS type: the route's
 * check and the endpoint's OpenAPI `parameters` both come from it. Each route file declares its
 * parameter type with typia tags and builds its contract with `typia.json.schema<Q, '3.1'>()` and
 * `typia.createValidate<Q>()`. Header names are declared lower-case.
 *
 * typia's own `http.createValidateQuery` is not used: it reads the text "null" as null, an empty
 * value as absent, any `Number()` text (" 5", "1e2", "0x10") as a number, and keeps the first of
 * repeated values. Here the declared names are read strictly, then typia's validator decides.
 */
import type { IJsonSchemaUnit, IValidation } from 'typia';
import { ProvdError } from '../errors.js';
import type { JsonObject } from '../schema/json-object.js';
import { SchemaContract } from '../schema/schema-contract.js';

/** Where a parameter is sent. */
export type ParamLocation = 'query' | 'header';

/** One request parameter as the OpenAPI document lists it. */
export interface RequestParam {
  name: string;
  in: ParamLocation;
  required: boolean;
  description?: string;
  schema: JsonObject;
}

/** A route's parameter type: its strict reader, and its parameters for the OpenAPI document. */
export class ParamContract<T extends object> {
  /** The parameters, in declaration order, each with its JSDoc as description. */
  readonly parameters: readonly RequestParam[];
  private readonly contract: SchemaContract<T>;

  constructor(
    unit: IJsonSchemaUnit<'3.1', T>,
    validate: (input: unknown) => IValidation<T>,
    readonly location: ParamLocation = 'query',
  ) {
    this.contract = new SchemaContract(unit, validate, location);
    this.parameters = [...this.contract.fields].map(([name, { description, ...schema }]) => ({
      name,
      in: location,
      required: this.contract.required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema,
    }));
  }

  /**
   * The same type as a JSON object's contract (an AI tool's input holds the parameters as JSON
   * values): its fields and validator, with `subject` naming the input in messages.
   */
  asObject(subject: string): SchemaContract<T> {
    return this.contract.withSubject(subject);
  }

  /**
   * The typed query, or 400 invalid_argument naming the parameter and its rule. Undeclared
   * parameters are ignored; a declared one given twice is refused.
   */
  parse(query: URLSearchParams): T {
    return this.read((name) => query.getAll(name));
  }

  /** The typed headers (as the server passed them on: '' when absent), or 400 naming the header. */
  parseHeaders(headers: Readonly<Record<string, string>>): T {
    return this.read((name) => (headers[name] ? [headers[name]] : []));
  }

  private read(valuesOf: (name: string) => readonly string[]): T {
    const input: Record<string, string | number> = {};
    for (const [name, schema] of this.contract.fields) {
      const values = valuesOf(name);
      if (values.length > 1) throw new ProvdError('invalid_argument', `${name} must be given once`);
      const [text] = values;
      if (text === undefined) continue;
      // only plain decimal digits become a number; any other text fails the schema's integer rule
      input[name] = isNumeric(schema) && /^-?\d+$/.test(text) ? Number(text) : text;
    }
    const checked = this.contract.check(input);
    if (!checked.ok) throw new ProvdError('invalid_argument', checked.failure.message);
    return checked.value;
  }

  /** 400 invalid_argument with `name`'s rule: for checks a schema cannot state (an RFC 3339 instant). */
  invalid(name: string): ProvdError {
    return new ProvdError('invalid_argument', this.contract.rule(name));
  }
}

/** True for a parameter whose values are numbers: an integer or number type, or numeric literals. */
function isNumeric(schema: JsonObject): boolean {
  const types = [schema['type']].flat();
  return types.includes('integer') || types.includes('number');
}
