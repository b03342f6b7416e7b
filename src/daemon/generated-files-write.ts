/**
 * Writes the files generated from code at the repository root (`npm run generate`): openapi.json
 * from the built document, native/hash/event-fields.h from the event fields table, and
 * docs/daemon-options.md from the daemon's option declarations. With
 * `--check` it writes nothing and exits 1 when a committed file differs (run by `npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { eventFieldsHeader, eventFieldsHeaderPath } from '../model/event-fields-header.js';
import { openapiBytes } from './openapi.js';
import { daemonOptionsDoc, daemonOptionsDocPath } from './daemon-options-doc.js';

/** Each generated file: its path from the root and its bytes. */
const generated: readonly [path: string, bytes: () => Uint8Array][] = [
  ['openapi.json', openapiBytes],
  [eventFieldsHeaderPath, () => Buffer.from(eventFieldsHeader())],
  [daemonOptionsDocPath, () => Buffer.from(daemonOptionsDoc())],
];

function readCommitted(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const check = process.argv.includes('--check');
for (const [path, bytes] of generated) {
  const target = join(packageRoot, path);
  if (!check) writeFileSync(target, bytes());
  else if (!(readCommitted(target)?.equals(bytes()) ?? false)) {
    console.error(`${path} is out of date: run npm run generate`);
    process.exitCode = 1;
  }
}
