import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { csvSource } from '../../src/store/csv-rows.sql.js';
import { csvInt, csvText } from '../../src/store/csv-text.js';
import { withMemoryDatabase } from '../../src/store/memory-database.js';
import { readRows, sql } from '../../src/store/sql.js';
import { useTempDir } from '../support/temp-dir.js';

const columns = [
  ['n', 'BIGINT'],
  ['text', 'VARCHAR'],
] as const;

/** Writes rows as a rows file and reads them back with the store's own read_csv call. */
async function roundTrip(
  connection: DuckDBConnection,
  file: string,
  rows: readonly (readonly [number, string | null])[],
): Promise<Record<string, unknown>[]> {
  writeFileSync(file, rows.map(([n, text]) => `${csvInt(n)},${csvText(text)}\n`).join(''));
  return readRows(connection, sql`SELECT n, text FROM ${csvSource([file], columns)} ORDER BY n`);
}

describe('rows files (csvSource)', function () {
  const dir = useTempDir('provd-csv-rows-');

  // issue 41: `"comm":"a\rb"` as the first of two lines answered 500 (the reader took \r for the newline)
  it('reads a first row whose value holds a CR, a CRLF or a LF, in a file of one row or two', async function () {
    await withMemoryDatabase(async (connection) => {
      for (const value of ['a\rb', '\r', 'a\r\nb', '\r\n', '\n', 'x\ry\nz\r']) {
        for (const rows of [
          [[1, value]],
          [
            [1, value],
            [2, 'b'],
          ],
          [
            [1, value],
            [2, value],
          ],
        ] as const) {
          const back = await roundTrip(connection, join(dir.path, 'rows.csv'), rows);
          assert.deepEqual(
            back.map((row) => [Number(row['n']), row['text']]),
            rows,
            JSON.stringify(rows),
          );
        }
      }
    });
  });

  it('leaves no reader option to DuckDB: its error on a broken file lists none as detected', async function () {
    const file = join(dir.path, 'broken.csv');
    writeFileSync(file, `1,${csvText('a\rb')}\n2,\u001eunterminated\n`);
    await assert.rejects(
      withMemoryDatabase((connection) =>
        readRows(connection, sql`SELECT * FROM ${csvSource([file], columns)}`),
      ),
      (error: Error) => {
        // DuckDB lists each option it used, "(Set By User)" or "(Auto-Detected)"
        assert.match(error.message, /new_line = \\n \(Set By User\)/, error.message);
        assert.match(error.message, /delimiter = , \(Set By User\)/, error.message);
        assert.doesNotMatch(error.message, /Auto-Detected/, error.message);
        return true;
      },
    );
  });

  it('adds no column for a folder of the path named key=value, nor takes a value from it', async function () {
    const folder = join(dir.path, 'text=forged', 'n=7');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'rows.csv');
    writeFileSync(file, `1,${csvText('real')}\n`);
    const rows = await withMemoryDatabase((connection) =>
      readRows(connection, sql`SELECT * FROM ${csvSource([file], columns)}`),
    );
    assert.deepEqual(rows, [{ n: 1n, text: 'real', filename: file }]);
  });
});
