import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contextKeys } from '../../src/ingest/context-keys.js';
import { nativeTypeAliases, parseNativeLine } from '../../src/ingest/native.js';
import { isLineRejection } from '../../src/ingest/line-rejection.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { eventTypes } from '../../src/model/event.js';

const doc = readFileSync(join(packageRoot, 'src', 'ingest', 'native-format.md'), 'utf8');

/** `alias → type` pairs of the doc's alias table (rows whose last cell is one backticked type). */
function documentedAliases(): Map<string, string> {
  const aliases = new Map<string, string>();
  const section = doc.slice(doc.indexOf('## Event types'), doc.indexOf('## Type-specific'));
  for (const match of section.matchAll(/^\|(.+)\|\s*`([a-z_]+)`\s*\|$/gm)) {
    for (const alias of (match[1] ?? '').matchAll(/`([a-z_]+)`/g))
      aliases.set(alias[1] ?? '', match[2] ?? '');
  }
  return aliases;
}

describe('native-format.md', function () {
  it('documents exactly the aliases the parser accepts', function () {
    const code = new Map([...nativeTypeAliases].filter(([alias, type]) => alias !== type));
    assert.deepEqual(documentedAliases(), code);
  });

  it('names every contract type and every context key', function () {
    for (const type of eventTypes) assert.ok(doc.includes('`' + type + '`'), type);
    for (const key of contextKeys) assert.ok(doc.includes('`' + key + '`'), key);
  });

  it('has example lines that parse', function () {
    const block = doc.slice(doc.indexOf('```json') + 7, doc.indexOf('```', doc.indexOf('```json') + 7));
    const lines = block.trim().split('\n');
    assert.ok(lines.length >= 5);
    for (const line of lines) {
      const result = parseNativeLine(JSON.parse(line) as Record<string, unknown>);
      assert.ok(!isLineRejection(result), `${line}: ${isLineRejection(result) ? result.message : ''}`);
    }
  });
});
