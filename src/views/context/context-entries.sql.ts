/**
 * GET /v1/context/entries in the store actor: one keyset page of a run's application context as
 * stored in its graph: the run object, then the `context` chain (bindings, tool calls, artifacts,
 * file effects, hook events and their content, watches) in chain order. The key is the chain index (the run object, the root, before index 0).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { raw, readRows, sql } from '../../store/sql.js';
import { type CursorToken } from '../../model/cursor.js';
import type { PageLimit } from '../../model/paging.js';
import { describeObject, objectColumns, type ObjectBrief, type StoredObjectRow } from './context-object.js';
import { keysetPage } from '../../store/keyset-page.js';

/**
 * The kinds of a run's application context: its root and what its `context` chain holds, an agent's
 * hook events and their content and `provd watch`'s start and end among them (graph-object.ts).
 */
export const contextKinds = [
  'run',
  'binding',
  'tool_call',
  'artifact',
  'file_effect',
  'hook_event',
  'hook_content',
  'agent_watch',
] as const;
/** One of contextKinds. */
export type ContextKind = (typeof contextKinds)[number];

/** Validated parameters of one page. */
export interface ContextEntriesParams {
  run: string;
  kind: ContextKind | null;
  limit: number;
  cursor: string | null;
}

/** One object of the run's context. */
export interface ContextEntry extends ObjectBrief {
  kind: ContextKind;
}

/** One page of a run's context objects (`provenance.context_entries/v1`), in chain order. */
export interface ContextEntries {
  schema_version: 'provenance.context_entries/v1';
  run_id: string;
  /** The kind filter, or null for every context kind. */
  kind: ContextKind | null;
  limit: PageLimit;
  count: Count;
  has_more: boolean;
  next_cursor: CursorToken | null;
  entries: ContextEntry[];
}

// the code's own constants, spliced as SQL text
const kindList = raw(`(${contextKinds.map((kind) => `'${kind}'`).join(', ')})`);
// the run object has no chain index: it sorts first
const position = raw('coalesce(chain_index, -1)');

/** One page; 404 run_not_found for an unknown run, 400 invalid_cursor for a cursor not issued here. */
export async function listContextEntries(
  connection: StoreConnection,
  params: ContextEntriesParams,
  formatVersion: number,
): Promise<ContextEntries> {
  const opened = await keysetPage(
    connection,
    params,
    formatVersion,
    ['context_entries', params.run, params.kind],
    1,
  );
  const after = opened.afterInteger(-2n);
  const kindFilter = params.kind === null ? sql`` : sql` AND kind = ${params.kind}`;
  const rows = await readRows<StoredObjectRow & { position: bigint }>(
    connection,
    sql`SELECT ${raw(objectColumns)}, ${position} AS position FROM objects
        WHERE run_id = ${params.run} AND kind IN ${kindList}${kindFilter} AND ${position} > ${after}
        ORDER BY ${position} LIMIT ${params.limit + 1}`,
  );
  const hasMore = rows.length > params.limit;
  const page = rows.slice(0, params.limit);
  return {
    schema_version: 'provenance.context_entries/v1',
    run_id: params.run,
    kind: params.kind,
    limit: params.limit,
    count: page.length,
    has_more: hasMore,
    next_cursor: hasMore ? opened.next([page.at(-1)!.position]) : null,
    entries: page.map((row) => describeObject(row) as ContextEntry),
  };
}
