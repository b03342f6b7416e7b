/** Locates files that ship beside the compiled code (sql/, package.json), from src/ or dist/src/ alike. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('failed to find package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

/** The folder that holds provd's package.json. */
export const packageRoot = findPackageRoot();

/** provd's version, from package.json. */
export const provdVersion = (
  JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
).version;
