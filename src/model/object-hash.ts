/**
 * The address of a graph object or of stored bytes, as answers carry it and parameters take it:
 * `sha256:` and 64 lower-case hex digits (graph-object.ts makes them).
 */
import type { tags } from 'typia';

/** The pattern every address matches. */
export const objectHashPattern = '^sha256:[0-9a-f]{64}$';

/** `sha256:<hex>`: an object's address (the hash of its canonical bytes), or an artifact's. */
export type ObjectHash = string & tags.Pattern<typeof objectHashPattern>;

/**
 * An address as a query parameter: the document shows a well-formed one (the hash of no bytes),
 * so a reader, and the parameter tests, have a value that passes the pattern.
 */
export type ObjectHashParam = ObjectHash &
  tags.JsonSchemaPlugin<{
    examples: ['sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'];
  }>;
