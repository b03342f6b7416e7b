/**
 * The yaml package, loaded at its first use: the daemon and every CLI command read YAML only when a
 * config or policy file is given, and loading the package costs ~40 ms of CPU (measured) on each
 * start that would not use it.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let loaded: typeof Yaml | undefined;

/** The yaml package's exports. */
export function yaml(): typeof Yaml {
  return (loaded ??= require('yaml') as typeof Yaml);
}
