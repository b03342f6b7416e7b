/**
 * The hash addon (native/hash: SHA-256 over whole slices, row files, SO_PEERCRED, malloc arenas),
 * loaded in this file only, as the sensor's is in src/sensor/binding.ts
 * (test/shared/thread-roles.test.ts). Its users type and check what they call of it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

/** Where .ci/setup builds the addon. */
export const hashAddonPath = join(packageRoot, 'native', 'hash', 'build', 'Release', 'provd_hash.node');

let loaded: object | null | undefined;

/** The addon's exports, loaded at the first call; null when it is not built or does not load (a build for another Node). */
export function loadHashAddon(): object | null {
  if (loaded !== undefined) return loaded;
  try {
    loaded = existsSync(hashAddonPath) ? (createRequire(import.meta.url)(hashAddonPath) as object) : null;
  } catch {
    loaded = null;
  }
  return loaded;
}
