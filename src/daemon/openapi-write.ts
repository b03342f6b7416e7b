/**
 * Writes openapi.json at the repository root from the built document (`npm run openapi`). With
 * `--check` it writes nothing and exits 1 when the committed file differs (run by `npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { openapiBytes } from './openapi.js';

const target = join(packageRoot, 'openapi.json');

function readCommitted(): Buffer | undefined {
  try {
    return readFileSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

if (process.argv.includes('--check')) {
  const committed = readCommitted();
  if (committed === undefined || !committed.equals(openapiBytes())) {
    console.error('openapi.json is out of date: run npm run openapi');
    process.exit(1);
  }
} else {
  writeFileSync(target, openapiBytes());
}
