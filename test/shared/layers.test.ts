import assert from 'node:assert/strict';
import { sep } from 'node:path';
import { ImportGraph, sourceFiles } from '../support/import-graph.js';

/** Folder under src/ → the other src/ folders its files import (type imports included). */
function folderImports(): Map<string, Set<string>> {
  const graph = new ImportGraph();
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles('src')) {
    const folder = file.split(sep)[1]!;
    const targets = edges.get(folder) ?? new Set<string>();
    edges.set(folder, targets);
    for (const { target, dynamic } of graph.importsOf(file)) {
      const [top, targetFolder] = target.split(sep);
      if (!dynamic && top === 'src' && targetFolder !== folder) targets.add(targetFolder!);
    }
  }
  return edges;
}

describe('src/ folder layering', function () {
  const edges = folderImports();

  it('keeps shared/ free of every domain folder', function () {
    assert.deepEqual([...(edges.get('shared') ?? [])], []);
  });

  it('keeps model/ (the event, its codes, paging, cursors, object hashing) on shared/ alone', function () {
    assert.deepEqual([...(edges.get('model') ?? [])], ['shared']);
  });

  it('keeps the read models (views/) above the domains they read: none of those imports them', function () {
    for (const folder of [
      'shared',
      'model',
      'store',
      'telemetry',
      'provenance',
      'security',
      'ingest',
      'sensor',
    ])
      assert.ok(!(edges.get(folder)?.has('views') ?? false), `${folder}/ imports views/`);
  });

  it('has no import cycle between folders', function () {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (folder: string, path: string[]): void => {
      if (state.get(folder) === 'done') return;
      assert.notEqual(state.get(folder), 'visiting', `cycle: ${[...path, folder].join(' -> ')}`);
      state.set(folder, 'visiting');
      for (const target of edges.get(folder) ?? []) visit(target, [...path, folder]);
      state.set(folder, 'done');
    };
    for (const folder of edges.keys()) visit(folder, []);
  });

  it('keeps the store actor generic: src/store/ imports no domain folder, only shared/ and model/', function () {
    assert.deepEqual([...(edges.get('store') ?? [])].sort(), ['model', 'shared']);
  });

  it("keeps each domain's store kinds below its store module: a *-kinds.ts file imports no *-store file", function () {
    const kinds = sourceFiles('src').filter((file) => file.endsWith('-kinds.ts'));
    assert.ok(kinds.length >= 4, 'the domains declare their kinds in *-kinds.ts');
    for (const file of kinds) {
      const store = file.replace(/-kinds\.ts$/, '-store');
      const imported = new ImportGraph().importsOf(file).map(({ target }) => target);
      assert.deepEqual(
        imported.filter((target) => target === `${store}.ts` || target === `${store}.sql.ts`),
        [],
        `${file} imports its store module: what its handlers borrow (the Deps) is declared beside them`,
      );
    }
  });
});
