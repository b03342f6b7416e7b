import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

const dist = join(packageRoot, 'dist');

/** What a compiled module imports as an ES module (statically or dynamically): files resolved, packages by name. */
function esmImportsOf(text: string): string[] {
  return [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1]!);
}

/** What a compiled module imports or requires: files resolved, packages by name. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...esmImportsOf(text),
    ...[...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1]!),
  ];
  return specifiers.map((specifier) =>
    specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier,
  );
}

/** Each module `entry` loads, with the module that imports it (to name the chain). */
function importGraph(entry: string): Map<string, string | undefined> {
  const importer = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const imported of importsOf(file)) {
      if (importer.has(imported)) continue;
      importer.set(imported, file);
      if (imported.startsWith('/')) queue.push(imported);
    }
  }
  return importer;
}

/** The chain of imports from the entry to `module`, for the failure message. */
function chain(graph: Map<string, string | undefined>, module: string): string {
  const links: string[] = [];
  for (let at: string | undefined = module; at !== undefined; at = graph.get(at))
    links.push(at.startsWith('/') ? relative(dist, at) : at);
  return links.join(' <- ');
}

describe('worker imports', function () {
  // Each normalize worker loading DuckDB cost ~0.3-0.4 s of CPU per daemon start, for nothing.
  it('loads @duckdb/node-api in the store worker only, never in a task worker', function () {
    const entries = readdirSync(join(dist, 'workers')).filter((name) => name.endsWith('.js'));
    assert.ok(entries.includes('store.worker.js') && entries.includes('normalize.task.js'), String(entries));
    const loading = entries.flatMap((name) => {
      const graph = importGraph(join(dist, 'workers', name));
      return graph.has('@duckdb/node-api') ? [`${name}: ${chain(graph, '@duckdb/node-api')}`] : [];
    });
    assert.deepEqual(
      loading.map((line) => line.split(':')[0]),
      ['store.worker.js'],
      loading.join('\n'),
    );
  });

  // Imported as an ES module, the package's CommonJS files are lexed for their export names first:
  // 280 ms of CPU of every daemon start against 120 ms for require (src/store/duckdb-api.ts).
  it('loads @duckdb/node-api with require, through src/store/duckdb-api.ts only', function () {
    const graph = importGraph(join(dist, 'workers', 'store.worker.js'));
    const importing = [...graph.keys()]
      .filter(
        (file) =>
          file.startsWith('/') && esmImportsOf(readFileSync(file, 'utf8')).includes('@duckdb/node-api'),
      )
      .map((file) => relative(dist, file));
    assert.deepEqual(importing, [], 'these import @duckdb/node-api as an ES module');
    assert.equal(graph.get('@duckdb/node-api'), join(dist, 'src', 'store', 'duckdb-api.js'));
  });
});
