import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localErrorCodes, wireErrorCodes } from '../../src/shared/errors.js';
import { packageRoot } from '../../src/shared/package-root.js';

const doc = readFileSync(join(packageRoot, 'src', 'shared', 'errors.md'), 'utf8');

/** Rows of the markdown tables: first backticked cell of every table row. */
function documentedCodes(): Set<string> {
  return new Set([...doc.matchAll(/^\|.*?`([A-Za-z_]+)`/gm)].map((match) => match[1] ?? ''));
}

describe('error registry', function () {
  it('documents every code of the registry in errors.md', function () {
    const documented = documentedCodes();
    for (const code of [...Object.keys(localErrorCodes), ...Object.keys(wireErrorCodes)]) {
      assert.ok(documented.has(code), `${code} is missing from src/shared/errors.md`);
    }
  });

  it('has a registry entry for every code errors.md documents', function () {
    const known = new Set([...Object.keys(localErrorCodes), ...Object.keys(wireErrorCodes)]);
    for (const code of documentedCodes())
      assert.ok(known.has(code), `${code} is documented but not in errors.ts`);
  });

  it('documents each wire code with the status it answers', function () {
    for (const [code, status] of Object.entries(wireErrorCodes)) {
      assert.match(doc, new RegExp(`^\\|\\s*${status}\\s*\\|\\s*\`${code}\``, 'm'), code);
    }
  });
});
