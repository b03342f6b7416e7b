/**
 * What a store query answers: the JSON text of its result, typed by the result it holds. The type
 * is how a domain's kind map learns each kind's result from its handler (KindsOf), and what the
 * main thread's `queryJson` parses the text as.
 */

declare const jsonOf: unique symbol;

/** JSON text of a `T`. A plain string is not one: it comes from jsonText, or asJsonText for text written by hand. */
export type JsonText<T> = string & { readonly [jsonOf]: T };

/** `value` as JSON text. */
export function jsonText<T>(value: T): JsonText<T> {
  return JSON.stringify(value) as JsonText<T>;
}

/** Text a hot page writes by hand as the JSON of a `T`: the writer and `T` change together. */
export function asJsonText<T>(text: string): JsonText<T> {
  return text as JsonText<T>;
}
