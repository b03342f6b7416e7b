/**
 * Which thread owns what, checked as the folders' floors are (layers.test.ts): the store thread is
 * the one owner of DuckDB (design/architecture.md), so nothing a piscina task, a CLI command or an
 * AI tool imports is store code (a `*.sql.ts` file, or `@duckdb/node-api`), the CLI and the AI
 * tools read the wire contract from modules with no route code either, only src/store names
 * DuckDB's types, the store worker imports nothing of the daemon that starts it, and each native
 * addon has one loader. Static imports only: a dynamic import loads when its code runs (`provd
 * verify --bundle` opens the bundle's DuckDB file in the CLI process that way, on purpose).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { chainTo, ImportGraph, requiresOf, sourceFiles } from '../support/import-graph.js';

const graph = new ImportGraph();
const sources = [...sourceFiles('src'), ...sourceFiles('workers')];
const underStore = (file: string): boolean => file.startsWith(`src${sep}store${sep}`);

/** The thread roles that must not reach store code, each by its entry files. */
const roles: Record<string, string[]> = {
  'the piscina tasks (workers/*.task.ts)': sourceFiles('workers').filter((file) => file.endsWith('.task.ts')),
  'the CLI (src/cli)': sourceFiles('src/cli'),
  'the AI tools (src/ai)': sourceFiles('src/ai'),
};

const isStoreCode = (file: string): boolean => file.endsWith('.sql.ts') || file === '@duckdb/node-api';

/**
 * Imports that still reach store code by type, not followed by the type check until they are
 * untangled (issue 44, item 2). A type import loads nothing at run time, but the wire contract the
 * CLI and the AI tools read should come from modules that carry no route or store code.
 */
const typeExceptions: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // `provd daemon` runs the daemon in the CLI process: the main thread types its store client
    'src/cli/commands/daemon.ts -> src/daemon/config.ts': 'the daemon',
  }),
);

/** Each store file `roots` reach, with the chain of imports that reaches it. */
function storeCodeReached(roots: readonly string[], types: boolean, skip = new Set<string>()): string[] {
  const reached = graph.reach(roots, { types, skip });
  return [...reached.keys()].filter(isStoreCode).map((file) => chainTo(reached, file));
}

describe('thread roles', function () {
  for (const [role, roots] of Object.entries(roles)) {
    it(`keeps store code out of what ${role} load: no *.sql.ts file, no @duckdb/node-api`, function () {
      assert.ok(roots.length > 0, `no entry file for ${role}`);
      assert.deepEqual(storeCodeReached(roots, false), []);
    });

    it(`keeps store code out of the types ${role} read, but for the exceptions of issue 44`, function () {
      assert.deepEqual(storeCodeReached(roots, true, new Set(typeExceptions.keys())), []);
    });
  }

  for (const role of ['the CLI (src/cli)', 'the AI tools (src/ai)']) {
    it(`keeps route code out of what ${role} read, types included: the wire contract comes from modules without it`, function () {
      const reached = graph.reach(roles[role]!, { types: true, skip: new Set(typeExceptions.keys()) });
      const routes = [...reached.keys()].filter(
        (file) => file.endsWith('.route.ts') || file === join('src', 'daemon', 'endpoints.ts'),
      );
      assert.deepEqual(
        routes.map((file) => chainTo(reached, file)),
        [],
      );
    });
  }

  it('lists no exception that is no longer needed: each is an import that reaches store code', function () {
    const unneeded = [...typeExceptions.keys()].filter((edge) => {
      const [importer, imported] = edge.split(' -> ') as [string, string];
      const imports = graph.importsOf(importer).some(({ target }) => target === imported);
      return !imports || storeCodeReached([imported], true).length === 0;
    });
    assert.deepEqual(unneeded, []);
  });

  it('keeps @duckdb/node-api, types included, to src/store', function () {
    const importing = sources.filter(
      (file) =>
        !underStore(file) && graph.importsOf(file).some(({ target }) => target === '@duckdb/node-api'),
    );
    assert.deepEqual(importing, []);
  });

  it("lets only src/store name DuckDB's connection type: the domains take src/store's StoreConnection", function () {
    const naming = sources.filter(
      (file) =>
        !underStore(file) && /\bDuckDBConnection\b/.test(readFileSync(join(packageRoot, file), 'utf8')),
    );
    assert.deepEqual(naming, []);
  });

  it('starts the store worker without the daemon: nothing it imports, types included, is under src/daemon', function () {
    const reached = graph.reach([join('workers', 'store.worker.ts')], { types: true });
    const daemon = [...reached.keys()].filter((file) => file.startsWith(`src${sep}daemon${sep}`));
    assert.deepEqual(
      daemon.map((file) => chainTo(reached, file)),
      [],
    );
  });

  it('loads each native addon in one file: the sensor in src/sensor/binding.ts, the hash addon in src/provenance/hash-addon.ts', function () {
    const loaders = sources.filter((file) => requiresOf(file).includes(null));
    assert.deepEqual(loaders.sort(), [
      join('src', 'provenance', 'hash-addon.ts'),
      join('src', 'sensor', 'binding.ts'),
    ]);
  });
});
