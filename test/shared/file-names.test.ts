import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { endpoints } from '../../src/daemon/endpoints.js';
import { packageRoot } from '../../src/shared/package-root.js';

const src = join(packageRoot, 'src');

/** Every .ts file under `dir`, relative to src/. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [relative(src, path)] : [];
  });
}

describe('src/ file names', function () {
  const all = files(src);

  it('names a file .sql.ts exactly when it holds SQL (the sql tag), but the tag itself', function () {
    const holdsSql = (file: string): boolean => /\bsql`/.test(readFileSync(join(src, file), 'utf8'));
    const unnamed = all.filter(
      (file) => holdsSql(file) && !file.endsWith('.sql.ts') && file !== 'store/sql.ts',
    );
    const misnamed = all.filter((file) => file.endsWith('.sql.ts') && !holdsSql(file));
    assert.deepEqual(unnamed, [], 'hold SQL without the .sql.ts suffix');
    assert.deepEqual(misnamed, [], 'named .sql.ts without SQL');
  });

  it('lists every endpoint a route file declares, once', async function () {
    const declared: unknown[] = [];
    for (const file of all.filter((name) => name.endsWith('.route.ts'))) {
      const compiled = join(packageRoot, 'dist', 'src', file.replace(/\.ts$/, '.js'));
      const module = (await import(pathToFileURL(compiled).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (name.endsWith('Endpoint')) declared.push(value);
        // a list of endpoints made alike (one per agent harness: agents/hooks.route.ts)
        if (name.endsWith('Endpoints') && Array.isArray(value)) declared.push(...(value as unknown[]));
      }
    }
    const listed = new Set<unknown>(endpoints);
    const unlisted = declared.filter((endpoint) => !listed.has(endpoint));
    assert.deepEqual(
      unlisted.map((endpoint) => (endpoint as { operationId: string }).operationId),
      [],
      'declared in a route file but missing from daemon/endpoints.ts',
    );
    assert.equal(declared.length, endpoints.length, 'every listed endpoint comes from a route file');
    assert.equal(new Set(endpoints.map(({ operationId }) => operationId)).size, endpoints.length);
  });
});
