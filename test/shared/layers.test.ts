import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

const src = join(packageRoot, 'src');

/** Every .ts file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Folder under src/ → the other src/ folders its files import (type imports included). */
function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of files(src)) {
    const folder = relative(src, file).split(sep)[0]!;
    const targets = edges.get(folder) ?? new Set<string>();
    edges.set(folder, targets);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(src, join(file, '..', specifier!)).split(sep)[0]!;
      if (target !== folder && !target.startsWith('..')) targets.add(target);
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
});
