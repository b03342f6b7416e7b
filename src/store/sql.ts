/**
 * SQL with bound parameters: `sql` turns every interpolated value into a numbered placeholder, so
 * no value is ever spliced into statement text. Only `raw()` splices, and only code constants go in
 * it (column lists, a code's own numbers). A lint rule keeps statement text out of every other call.
 *
 * Placeholders are numbered ($1, $2, ...) in text order when the statement runs: DuckDB numbers
 * bare `?` in its own binding order (an UPDATE's FROM before its SET), which would bind values to
 * the wrong places.
 */
import type { DuckDBConnection, DuckDBMaterializedResult, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { listValue, LIST } from './duckdb-api.js';
import { releasePrepared, takePrepared } from './prepared-cache.js';
import { resultRows } from './result-rows.js';

/** Statement text with placeholders (see `slot`) and the values bound to them, in text order. */
export interface Statement {
  readonly text: string;
  readonly values: readonly DuckDBValue[];
  /** The type of each value where inference cannot tell it (lists); undefined elsewhere. */
  readonly types: readonly (DuckDBType | undefined)[];
}

export class RawSql {
  constructor(readonly text: string) {}
}

class TypedValue {
  constructor(
    readonly value: DuckDBValue,
    readonly type: DuckDBType,
  ) {}
}

// where a value goes; numbered when the statement runs (a private-use character, never in SQL)
const slot = '\uE000';

/** What `sql` accepts between its pieces. */
export type SqlPart = DuckDBValue | RawSql | TypedValue | Statement;

/** Trusted statement text, spliced as is: the code's own constants, never a value from input. */
export function raw(text: string): RawSql {
  return new RawSql(text);
}

/** A list bound as one parameter of type LIST(itemType): a column of values for `unnest`. */
export function list(items: readonly DuckDBValue[], itemType: DuckDBType): TypedValue {
  return new TypedValue(listValue([...items]), LIST(itemType));
}

/**
 * Rows given as one list per column, selected back as a table's columns: `unnest(...), unnest(...)`.
 * Equal-length lists unnest side by side, so one statement inserts or joins any number of rows.
 * A column of a type JSON writes exactly is bound as one JSON text that DuckDB parses: binding a
 * list binds each of its values from this thread, ~2 µs a value, 5x the cost of the text.
 */
export function unnested(
  ...columns: readonly [items: readonly DuckDBValue[], itemType: DuckDBType][]
): Statement {
  return join(
    columns.map(([items, itemType]) => {
      const json = jsonColumn(items, itemType.toString());
      return json === undefined
        ? sql`unnest(${list(items, itemType)})`
        : sql`unnest(from_json(${json}::VARCHAR, ${`["${itemType.toString()}"]`}))`;
    }),
    ', ',
  );
}

/**
 * Rows as a VALUES list, each value its own placeholder: `(v, v), (v, v)`. For a few rows DuckDB
 * binds and runs it in about half the time of `unnested` (measured on the writer: two objects 1.3
 * against 2.3 ms, a content 1.6 against 2.1 ms, a head update 1.4 against 3.2 ms); the text differs
 * by row count, so use it below `fewRows` rows.
 */
export function valueRows(rows: readonly (readonly DuckDBValue[])[]): Statement {
  return join(
    rows.map(
      (row) =>
        sql`(${join(
          row.map((value) => sql`${value}`),
          ', ',
        )})`,
    ),
    ', ',
  );
}

/** Up to how many rows a statement is written with `valueRows` rather than `unnested`. */
export const fewRows = 8;

/** Types whose values JSON.stringify writes as DuckDB reads them back. */
const jsonTypes = new Set([
  'VARCHAR',
  'BOOLEAN',
  'DOUBLE',
  'UTINYINT',
  'INTEGER',
  'UINTEGER',
  'BIGINT',
  'UBIGINT',
]);
// a string with a lone surrogate: JSON escapes it, and DuckDB's parser would refuse the escape
const loneSurrogate = /\\ud[89a-f]/i;

/** A column as JSON text, or undefined when JSON cannot carry it exactly (the list binds it then). */
function jsonColumn(items: readonly DuckDBValue[], type: string): string | undefined {
  if (!jsonTypes.has(type)) return undefined;
  let text = '[';
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (i > 0) text += ',';
    if (item === null || item === undefined) text += 'null';
    else if (typeof item === 'bigint') text += item.toString();
    else if (typeof item === 'string') text += JSON.stringify(item);
    else if (typeof item === 'boolean') text += String(item);
    else if (typeof item === 'number' && Number.isFinite(item)) text += String(item);
    else return undefined;
  }
  text += ']';
  return type === 'VARCHAR' && loneSurrogate.test(text) ? undefined : text;
}

function isStatement(part: SqlPart): part is Statement {
  return typeof part === 'object' && part !== null && 'text' in part && 'values' in part && 'types' in part;
}

/** Builds a statement; a nested statement's text and values join in place. */
export function sql(pieces: TemplateStringsArray, ...parts: SqlPart[]): Statement {
  let text = pieces[0]!;
  const values: DuckDBValue[] = [];
  const types: (DuckDBType | undefined)[] = [];
  parts.forEach((part, i) => {
    if (part instanceof RawSql) text += part.text;
    else if (part instanceof TypedValue) {
      text += slot;
      values.push(part.value);
      types.push(part.type);
    } else if (isStatement(part)) {
      text += part.text;
      values.push(...part.values);
      types.push(...part.types);
    } else {
      text += slot;
      values.push(part);
      types.push(undefined);
    }
    text += pieces[i + 1]!;
  });
  return { text, values, types };
}

/** Joins statements with a separator (`' AND '`, `', '`). */
export function join(statements: readonly Statement[], separator: string): Statement {
  return {
    text: statements.map((statement) => statement.text).join(separator),
    values: statements.flatMap((statement) => statement.values),
    types: statements.flatMap((statement) => statement.types),
  };
}

/** The statement's text with its placeholders numbered $1, $2, ... in order. */
function numbered(statement: Statement): string {
  let n = 0;
  return statement.text.replaceAll(slot, () => `$${++n}`);
}

/**
 * Runs a statement for its effect. One with values is prepared once per text and kept (keptRun).
 */
export function execute(
  connection: DuckDBConnection,
  statement: Statement,
): Promise<DuckDBMaterializedResult> {
  return statement.values.length === 0 ? connection.run(statement.text) : keptRun(connection, statement);
}

/**
 * Runs one statement and returns its rows as plain JS objects, read from the materialized result in
 * place (result-rows.ts). One with values is prepared once per text and kept (keptRun).
 */
export async function readRows<Row>(connection: DuckDBConnection, statement: Statement): Promise<Row[]> {
  return resultRows<Row>(
    statement.values.length === 0
      ? await connection.run(statement.text)
      : await keptRun(connection, statement),
  );
}

/**
 * Runs a statement with values through a prepared statement kept for the next run of the same text
 * (prepared-cache.ts): one round trip to DuckDB's thread, where the client's run with values takes
 * three (split the text, prepare, run) and plans it anew. Measured on a small write transaction:
 * 0.2-0.7 ms less per statement, of 2-2.7 ms.
 */
async function keptRun(
  connection: DuckDBConnection,
  statement: Statement,
): Promise<DuckDBMaterializedResult> {
  const text = numbered(statement);
  const prepared = await takePrepared(connection, text);
  let failed = true;
  try {
    prepared.bind([...statement.values], [...statement.types] as DuckDBType[]);
    const result = await prepared.run();
    prepared.clearBindings(); // a kept statement holds no caller's values (a commit's lists) until its next run
    failed = false;
    return result;
  } finally {
    releasePrepared(connection, text, prepared, failed);
  }
}

const rollbackListeners = new WeakMap<DuckDBConnection, Set<() => void>>();

/**
 * Calls `listener` whenever a transaction of inTransaction on `connection` rolls back: what a
 * module keeps in memory beside the database forgets what the transaction wrote.
 */
export function onRollback(connection: DuckDBConnection, listener: () => void): void {
  const listeners = rollbackListeners.get(connection) ?? new Set();
  listeners.add(listener);
  rollbackListeners.set(connection, listeners);
}

/** Runs `body` in one transaction on the writer: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(connection: DuckDBConnection, body: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await body();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    for (const listener of rollbackListeners.get(connection) ?? []) listener();
    throw error;
  }
}
