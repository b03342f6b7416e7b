import assert from 'node:assert/strict';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBInstance,
  UTINYINT,
  VARCHAR,
  type DuckDBConnection,
} from '@duckdb/node-api';
import { readRows, sql, unnested } from '../../src/store/sql.js';

/** Strings a hostile caller can send: controls, quotes, escapes, BOMs, astral characters, a lone surrogate. */
const strings = [
  '',
  'plain',
  '"quoted"',
  '\\',
  '\\u0041',
  '\u0000nul',
  '\n\r\t\u001e\u001f\u007f',
  '\ufeffbom',
  '\u2028\u2029',
  'é😀\u{10ffff}',
  '</script>',
  null,
];

describe('unnested', function () {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async function () {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  after(function () {
    connection.closeSync();
    instance.closeSync();
  });

  it('selects back every value of every column exactly, in order, nulls included', async function () {
    const bigints = [
      0n,
      -1n,
      9_007_199_254_740_993n,
      -(2n ** 63n),
      2n ** 63n - 1n,
      42n,
      null,
      7n,
      8n,
      9n,
      10n,
      11n,
    ];
    const doubles = [0, -0.5, 0.1, 1e300, -1e-300, 5e-324, 123.456, null, 1, 2, 3, 4];
    const flags = [true, false, null, true, false, true, false, true, false, true, false, true];
    const codes = [0, 255, 1, null, 2, 3, 4, 5, 6, 7, 8, 9];
    const rows = await readRows<{
      s: string | null;
      bytes: bigint | null;
      b: bigint | null;
      d: number | null;
      f: boolean | null;
      c: number | null;
    }>(
      connection,
      sql`SELECT s, strlen(s) AS bytes, b, d, f, c FROM (SELECT ${unnested(
        [strings, VARCHAR],
        [bigints, BIGINT],
        [doubles, DOUBLE],
        [flags, BOOLEAN],
        [codes, UTINYINT],
      )}) t(s, b, d, f, c)`,
    );
    // the client's reader drops a BOM that starts a string; its stored bytes show it was kept
    assert.deepEqual(
      rows.map((row) => row.s),
      strings.map((text) => text?.replace(/^\ufeff/, '') ?? null),
    );
    assert.deepEqual(
      rows.map((row) => row.bytes),
      strings.map((text) => (text === null ? null : BigInt(Buffer.byteLength(text)))),
    );
    assert.deepEqual(
      rows.map((row) => row.b),
      bigints,
    );
    assert.deepEqual(
      rows.map((row) => row.d),
      doubles,
    );
    assert.deepEqual(
      rows.map((row) => row.f),
      flags,
    );
    assert.deepEqual(
      rows.map((row) => row.c),
      codes,
    );
  });

  it('binds a column JSON cannot carry as a list, with the same answer', async function () {
    const odd = ['\ud800 lone', 'ok'];
    const [viaList] = await readRows<{ s: string }>(connection, sql`SELECT ${'\ud800 lone'}::VARCHAR AS s`);
    const rows = await readRows<{ s: string }>(
      connection,
      sql`SELECT * FROM (SELECT ${unnested([odd, VARCHAR])}) t(s)`,
    );
    assert.deepEqual(
      rows.map((row) => row.s),
      [viaList!.s, 'ok'],
    );
  });

  it('selects nothing for empty columns', async function () {
    const rows = await readRows(
      connection,
      sql`SELECT * FROM (SELECT ${unnested([[], VARCHAR], [[], BIGINT])}) t(s, b)`,
    );
    assert.deepEqual(rows, []);
  });
});
