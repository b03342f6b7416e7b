/**
 * The LLM token usage of a run's TLS responses (sql/012_signal_values.sql: run_llm_usage), folded in
 * with the process rollup: each tls_read event whose `http` is a response has its body decoded
 * (http-body.ts) and read for a `usage` object (llm-usage.ts), once, behind the commits, a page of
 * bodies at a time. A signals request then sums rows, and reads no body.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { BIGINT, BOOLEAN, VARCHAR } from '../../store/duckdb-api.js';
import { execute, readRows, sql, unnested } from '../../store/sql.js';
import { typeCode } from '../../model/codes.js';
import type { FoldChunk, RollupFold } from '../../telemetry/process-rollup.sql.js';
import { httpBodyText } from './http-body.js';
import { readLlmUsage, type LlmUsage } from './llm-usage.js';

/**
 * Bodies read per statement: the sensor's attrs hold up to 64 KiB, an ingested line up to 1 MiB,
 * so a page holds a few MiB, 64 MiB at worst.
 */
const pageRows = 64;

interface ResponseRow {
  seq: bigint;
  id: string;
  run_id: string;
  attrs: string;
}

/** One response's usage, as stored. */
interface UsageRow {
  run: string;
  id: string;
  seq: bigint;
  usage: LlmUsage;
}

/** The usage a stored tls_read event reports, or null when it is no response or holds none. */
export function responseUsage(attrs: string): LlmUsage | null {
  let http: unknown;
  try {
    http = (JSON.parse(attrs) as Record<string, unknown>)['http'];
  } catch {
    return null;
  }
  if (typeof http !== 'object' || http === null) return null;
  const message = http as Record<string, unknown>;
  if (message['kind'] !== 'response') return null;
  const body = httpBodyText(message);
  return body === null ? null : readLlmUsage(body.text, body.cut);
}

/** Folds the usage of the run's tls_read responses that `where` selects into run_llm_usage. */
async function foldUsage(connection: StoreConnection, { where }: FoldChunk): Promise<void> {
  // attrs are canonical JSON: a response's http object holds exactly this text
  const response = '"kind":"response"';
  for (let after = -1n; ;) {
    const rows = await readRows<ResponseRow>(
      connection,
      sql`SELECT seq, id, run_id, attrs FROM events
          WHERE run_id IS NOT NULL AND type = ${typeCode('tls_read')} AND ${where} AND seq > ${after}
            AND contains(attrs, ${response})
          ORDER BY seq LIMIT ${pageRows}`,
    );
    const found = rows.flatMap((row): UsageRow[] => {
      const usage = responseUsage(row.attrs);
      return usage === null ? [] : [{ run: row.run_id, id: row.id, seq: row.seq, usage }];
    });
    await insertUsage(connection, found);
    if (rows.length < pageRows) return;
    after = rows.at(-1)!.seq;
  }
}

async function insertUsage(connection: StoreConnection, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const count = (read: (usage: LlmUsage) => number): [bigint[], typeof BIGINT] => [
    rows.map((row) => BigInt(read(row.usage))),
    BIGINT,
  ];
  await execute(
    connection,
    sql`INSERT INTO run_llm_usage SELECT ${unnested(
      [rows.map((row) => row.run), VARCHAR],
      [rows.map((row) => row.id), VARCHAR],
      [rows.map((row) => row.seq), BIGINT],
      [rows.map((row) => row.usage.format), VARCHAR],
      [rows.map((row) => row.usage.model), VARCHAR],
      count((usage) => usage.input_tokens),
      count((usage) => usage.output_tokens),
      count((usage) => usage.cached_input_tokens),
      count((usage) => usage.cache_write_tokens),
      [rows.map((row) => row.usage.complete), BOOLEAN],
    )}`,
  );
}

/** The fold of run_llm_usage, for the process rollup. */
export const llmUsageFold: RollupFold = {
  name: 'llm_usage',
  attrs: [],
  fold: foldUsage,
  async clear(connection) {
    await execute(connection, sql`DELETE FROM run_llm_usage`);
  },
};
