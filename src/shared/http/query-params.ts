/** Checks of query-string parameters, each failing with 400 invalid_argument naming the parameter. */
import { ProvdError } from '../errors.js';

const maxIdLength = 256;

/** A required identifier parameter (`run`, ...). */
export function requireId(query: URLSearchParams, name: string): string {
  const value = optionalId(query, name);
  if (value === undefined) throw invalid(`${name} is required`);
  return value;
}

/** An optional identifier parameter: non-empty, at most 256 characters, no control characters. */
export function optionalId(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw invalid(`${name} must be given once`);
  const value = values[0]!;
  // eslint-disable-next-line no-control-regex
  if (value.length === 0 || value.length > maxIdLength || /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalid(`${name} must be 1..${maxIdLength} characters without control characters`);
  }
  return value;
}

/** An optional parameter that must be one of `allowed`. */
export function optionalEnum<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalId(query, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw invalid(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** An optional integer parameter within [min, max]. */
export function optionalInteger(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = optionalId(query, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  }
  return number;
}

function invalid(message: string): ProvdError {
  return new ProvdError('invalid_argument', message);
}
