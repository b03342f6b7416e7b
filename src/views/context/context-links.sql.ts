/**
 * GET /v1/context/links in the store actor: one object's place in the graph: the objects it names
 * as parents and the objects of its run that name it, each with what the parent is to the child.
 * A parent that is not stored is listed with `stored: false` (verify reports it as parent_missing).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VARCHAR } from '../../store/duckdb-api.js';
import { ProvdError } from '../../shared/errors.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { list, raw, readRows, sql } from '../../store/sql.js';
import type { ObjectKind } from '../../provenance/graph-object.js';
import type { ObjectHash } from '../../model/object-hash.js';
import { describeObject, objectColumns, type ObjectBrief, type StoredObjectRow } from './context-object.js';

/** Validated parameters: the object's address. */
export interface ContextLinksParams {
  hash: string;
}

/**
 * What a parent is to its child: `previous`, the object before it in its chain (the run object
 * for a chain's first); `binding`, the binding a tool call's events are attributed through;
 * `tool_call`, the tool call an artifact or file effect belongs to; `head`, a chain head a
 * checkpoint signs; `other`, a parent no rule of the graph places there.
 */
export type LinkRelation = 'previous' | 'binding' | 'tool_call' | 'head' | 'other';

/** An object at the other end of a link. */
export interface LinkedObject {
  relation: LinkRelation;
  hash: ObjectHash;
  /** False for a parent the store does not hold: then kind, index and summary are null. */
  stored: boolean;
  kind: ObjectKind | null;
  index: Count | null;
  tool_call_id: string | null;
  summary: string | null;
}

/** An object's parents and children (`provenance.context_links/v1`). */
export interface ContextLinks {
  schema_version: 'provenance.context_links/v1';
  object: ObjectBrief;
  /** In the object's own order. */
  parents: LinkedObject[];
  /** The run's objects that name it (once per relation), by when they were stored; at most max_children. */
  children: LinkedObject[];
  children_total: Count;
  max_children: Count;
}

/** Most children listed (all are counted). */
export const maxChildren = 1000;

/** The links of the object at `hash`; 404 not_found when nothing is stored there. */
export async function readContextLinks(
  connection: StoreConnection,
  params: ContextLinksParams,
): Promise<ContextLinks> {
  const [row] = await readRows<StoredObjectRow>(
    connection,
    sql`SELECT ${raw(objectColumns)} FROM objects WHERE hash = ${params.hash}`,
  );
  if (row === undefined) throw new ProvdError('not_found', `no object ${params.hash} is stored`);
  const object = describeObject(row);
  const parentRows =
    object.parents.length === 0
      ? []
      : await readRows<StoredObjectRow>(
          connection,
          sql`SELECT ${raw(objectColumns)} FROM objects WHERE hash IN (SELECT unnest(${list(object.parents, VARCHAR)}))`,
        );
  const stored = new Map(parentRows.map((parent) => [parent.hash, describeObject(parent)]));
  const parents = object.parents.map((hash, position) =>
    linkTo(relationOf(object.kind, position), hash, stored.get(hash)),
  );
  // a child names the object in its body: the text finds candidates, its parsed parents decide
  const candidates = await readRows<StoredObjectRow>(
    connection,
    sql`SELECT ${raw(objectColumns)} FROM objects
        WHERE run_id = ${row.run_id} AND hash <> ${row.hash} AND contains(body, ${row.hash})
        ORDER BY created_ns, chain_index, hash`,
  );
  // a child that names it twice (a tool call whose binding is also its chain's previous object)
  // is listed once per relation
  const children = candidates.flatMap((candidate) => {
    const child = describeObject(candidate);
    return child.parents.flatMap((parent, position) =>
      parent === row.hash ? [linkTo(relationOf(child.kind, position), child.hash, child)] : [],
    );
  });
  return {
    schema_version: 'provenance.context_links/v1',
    object,
    parents,
    children: children.slice(0, maxChildren),
    children_total: children.length,
    max_children: maxChildren,
  };
}

/** What the parent at `position` of a `kind` object is to it (graph-chains.sql.ts and its writers). */
function relationOf(kind: ObjectKind, position: number): LinkRelation {
  if (position === 0) return kind === 'run' ? 'other' : 'previous';
  if (kind === 'tool_call' && position === 1) return 'binding';
  if ((kind === 'artifact' || kind === 'file_effect') && position === 1) return 'tool_call';
  if (kind === 'checkpoint') return 'head';
  return 'other';
}

function linkTo(relation: LinkRelation, hash: string, object: ObjectBrief | undefined): LinkedObject {
  return {
    relation,
    hash,
    stored: object !== undefined,
    kind: object?.kind ?? null,
    index: object?.index ?? null,
    tool_call_id: object?.tool_call_id ?? null,
    summary: object?.summary ?? null,
  };
}
