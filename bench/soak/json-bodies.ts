/**
 * JSON request bodies for the fuzzer: valid ones from the operation's schema, and hostile ones made
 * from them (a field of the wrong type, a required field missing, fields the schema does not know,
 * values past the bounds, bytes that are not JSON or not UTF-8, nesting past the limit, a body past
 * the size limit). POST /v1/record runs commands: whatever else a body holds, its command is one of
 * a fixed harmless list, run in the soak's own directory.
 */
import type { JsonSchema } from './api-operations.js';
import type { Rng } from './rng.js';
import { validValue, type KnownValues, type ValueStyle } from './schema-values.js';

/** Commands a fuzzed POST /v1/record may run: nothing else ever reaches it as a string. */
const harmlessCommands = [
  'true',
  '/bin/true',
  'false',
  'echo',
  '/bin/echo',
  'ls',
  'no-such-command-soak',
  '/nonexistent/soak',
];

/** A body and whether it still matches its schema. */
export interface JsonBody {
  body: Buffer;
  valid: boolean;
  note: string;
}

/** A valid body for `schema`, as an object. */
export function validObject(
  schema: JsonSchema,
  rng: Rng,
  style: ValueStyle,
  known: KnownValues,
): Record<string, unknown> {
  return validValue(schema, rng, style, known) as Record<string, unknown>;
}

/** The fields of a record body that name what runs: never mutated into other strings. */
export const recordCommandFields = ['command', 'cwd'] as const;

/** Makes a record body harmless: a listed command, in `cwd`, with a short timeout. */
export function harmless(body: Record<string, unknown>, rng: Rng, cwd: string): Record<string, unknown> {
  if (typeof body['command'] === 'string') body['command'] = rng.pick(harmlessCommands);
  if (typeof body['cwd'] === 'string') body['cwd'] = rng.pick([cwd, cwd, '/nonexistent/soak-cwd']);
  if (typeof body['timeout_ms'] === 'number') body['timeout_ms'] = Math.min(body['timeout_ms'], 5000);
  else if (body['execute'] !== false) body['timeout_ms'] = 5000;
  return body;
}

/**
 * A hostile variant of `valid`: one mutation, named in `note`. Fields in `kept` keep their value
 * (a record's command and cwd: a mutated string there would be a command to run).
 */
export function hostileJson(
  rng: Rng,
  valid: Record<string, unknown>,
  schema: JsonSchema,
  kept: readonly string[] = [],
): JsonBody {
  const fields = Object.keys(valid).filter((field) => !kept.includes(field));
  const required = ((schema['required'] as string[] | undefined) ?? []).filter(
    (field) => !kept.includes(field),
  );
  const copy = structuredClone(valid);
  const asJson = (value: unknown, note: string): JsonBody => ({
    body: Buffer.from(JSON.stringify(value)),
    valid: false,
    note,
  });
  switch (rng.int(14)) {
    case 0: {
      const field = rng.pick([...fields, 'absent']);
      copy[field] = rng.pick<unknown>([1, -1, 1.5, 'x', '', true, null, [], {}, [1], { a: 1 }, 1e308, -0]);
      return asJson(copy, `${field} of another type`);
    }
    case 1: {
      if (required.length === 0) return asJson({ ...copy, extra: 1 }, 'an unknown field');
      const field = rng.pick(required);
      delete copy[field];
      return asJson(copy, `required ${field} missing`);
    }
    case 2:
      return asJson(
        { ...copy, [rng.pick(['extra', '__proto__', 'constructor', 'schema_version', ''])]: 'x' },
        'an unknown field',
      );
    case 3: {
      const field = rng.pick([...fields, 'run_id']);
      copy[field] = 'y'.repeat(rng.pick([257, 4097, 131_073]));
      return asJson(copy, `${field} too long`);
    }
    case 4: {
      const field = rng.pick([...fields, 'run_id']);
      copy[field] = rng.pick(['a\u0000b', 'a\nb', '\u001b[31m', '\u0085', 'a\rb', '\ud800']);
      return asJson(copy, `${field} with a control character`);
    }
    case 5: {
      const text = JSON.stringify(copy);
      return { body: Buffer.from(text.slice(0, rng.int(text.length))), valid: false, note: 'truncated JSON' };
    }
    case 6:
      return {
        body: Buffer.from(
          rng.pick(['', 'null', '[]', '"x"', '1', 'true', '{', '}', '{}{}', 'NaN', "{'a':1}"]),
        ),
        valid: false,
        note: 'not an object',
      };
    case 7: {
      const depth = rng.pick([33, 5000, 200_000]);
      return {
        body: Buffer.from(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`),
        valid: false,
        note: `nested ${depth} deep`,
      };
    }
    case 8: {
      const text = JSON.stringify(copy);
      const bytes = rng.pick([[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80]]);
      const at = Math.max(1, text.indexOf('":"') + 3);
      return {
        body: Buffer.concat([
          Buffer.from(text.slice(0, at)),
          Buffer.from(bytes),
          Buffer.from(text.slice(at)),
        ]),
        valid: false,
        note: 'invalid UTF-8',
      };
    }
    case 9:
      return {
        body: Buffer.concat([Buffer.from('\ufeff'), Buffer.from(JSON.stringify(copy))]),
        valid: false,
        note: 'byte order mark',
      };
    case 10: {
      const field = rng.pick([...fields, 'x']);
      return {
        body: Buffer.from(JSON.stringify(copy).replace(/^\{/, `{"${field}":1,`)),
        valid: false,
        note: `duplicate ${field}`,
      };
    }
    case 11:
      return {
        body: Buffer.from(JSON.stringify({ ...copy, pad: 'z'.repeat(1024 * 1024) })),
        valid: false,
        note: 'over 1 MiB',
      };
    case 12: {
      const field = rng.pick([...fields, 'pid']);
      copy[field] = rng.pick([2 ** 53 + 2, 4294967296, -1, 0, 1e21, 2147483648]);
      return asJson(copy, `${field} out of range`);
    }
    default:
      return {
        body: Buffer.from(JSON.stringify(copy).replace(/"/, "'")),
        valid: false,
        note: 'a single quote',
      };
  }
}
