/** A JSON Schema (or any other OpenAPI object) as plain JSON data. */
export type JsonObject = { [key: string]: unknown };
