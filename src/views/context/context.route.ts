/**
 * GET /v1/context/{overview,entries,content,compare,links} on the main thread: each checks its
 * query string (typia, from the types below, which are also the endpoints' OpenAPI parameters)
 * and forwards one store query.
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { ObjectHashParam } from '../../model/object-hash.js';
import type { ViewsQueries } from '../views-queries.js';
import type { ContextKind } from './context-entries.query.js';
import { queryRoute } from '../../shared/http/query-route.js';

/** `?run=R`. */
export interface ContextRunQuery {
  /** run identifier */
  run: Identifier;
}

/** The query string of GET /v1/context/entries. */
export interface ContextEntriesQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
  /** only objects of this kind */
  kind?: ContextKind;
}

/** `?hash=sha256:...`: one object of the graph. */
export interface ContextObjectQuery {
  /** the object's address: sha256: and 64 lower-case hex digits */
  hash: ObjectHashParam;
}

/** The query string of GET /v1/context/compare. */
export interface ContextCompareQuery {
  /** run identifier */
  run: Identifier;
  /** the run to compare it with */
  'other-run': Identifier;
}

/** How the overview route reads its query, and its OpenAPI parameters. */
export const contextRunQuery = new ParamContract<ContextRunQuery>(
  typia.json.schema<ContextRunQuery, '3.1'>(),
  typia.createValidate<ContextRunQuery>(),
);
/** How the entries route reads its query, and its OpenAPI parameters. */
export const contextEntriesQuery = new ParamContract<ContextEntriesQuery>(
  typia.json.schema<ContextEntriesQuery, '3.1'>(),
  typia.createValidate<ContextEntriesQuery>(),
);
/** How the content and links routes read their query, and their OpenAPI parameters. */
export const contextObjectQuery = new ParamContract<ContextObjectQuery>(
  typia.json.schema<ContextObjectQuery, '3.1'>(),
  typia.createValidate<ContextObjectQuery>(),
);
/** How the compare route reads its query, and its OpenAPI parameters. */
export const contextCompareQuery = new ParamContract<ContextCompareQuery>(
  typia.json.schema<ContextCompareQuery, '3.1'>(),
  typia.createValidate<ContextCompareQuery>(),
);

/** The five routes, by the operationIds of endpoints.ts. */
export function contextRoutes(store: QueryClient<ViewsQueries>): {
  context_overview: RouteHandler;
  context_entries: RouteHandler;
  context_content: RouteHandler;
  context_compare: RouteHandler;
  context_links: RouteHandler;
} {
  return {
    context_overview: queryRoute(store, 'context_overview', contextRunQuery, ({ run }) => ({ run })),
    context_entries: queryRoute(store, 'context_entries', contextEntriesQuery, (query) => ({
      run: query.run,
      kind: query.kind ?? null,
      limit: query.limit ?? defaultPageLimit,
      cursor: query.cursor ?? null,
    })),
    context_content: queryRoute(store, 'context_content', contextObjectQuery, ({ hash }) => ({ hash })),
    context_compare: queryRoute(store, 'context_compare', contextCompareQuery, (query) => ({
      run: query.run,
      other: query['other-run'],
    })),
    context_links: queryRoute(store, 'context_links', contextObjectQuery, ({ hash }) => ({ hash })),
  };
}

/** What each path answers, for the endpoints' descriptions in the OpenAPI document. */
export const contextDescriptions = {
  overview:
    "A run's application context at a glance: its `context` chain (head object and length), its recorded tool " +
    'calls by status and evidence level, its bindings by source, its output artifacts (count, bytes carried and ' +
    'stored) and file effects by kind, and when its first and latest context objects were stored.',
  entries:
    "One keyset page of a run's context objects in chain order: the run object (the root), then the bindings, " +
    'tool calls, artifacts and file effects of its `context` chain, each with its hash, kind, chain index, parents, ' +
    'when it was stored, its tool call and a one-line summary. `kind` keeps one kind. Paged like ' +
    '/v1/telemetry/events (`limit` 1..1000, default 100; `cursor` from `next_cursor`, only with the run and kind it ' +
    'came from).',
  content:
    'One object of the graph (any kind) by its address, with its stored bytes as they are (`body`: canonical JSON, ' +
    'RFC 8785), its payload, and `recomputed_hash`, the sha256 of `body` computed for the answer: `hash_ok` says it ' +
    'is the address. 404 `not_found` when nothing is stored at the address.',
  compare:
    "Two runs' recorded tool calls side by side. Calls pair by tool call id, then the rest by the same command and " +
    'args in start order; each pair lists what differs (command, args, cwd, executed, status, exit code, signal, ' +
    'error, each output stream by the hash of all its bytes, the file effects by path); the rest are listed as only ' +
    'in one run. At most 1,000 tool calls per run, the first by start (`complete` says whether that was all).',
  links:
    "One object's place in the graph: its parents (with `stored: false` for one the store does not hold) and the " +
    'objects of its run that name it (at most 1,000 listed, all counted), each with `relation`: what the parent is ' +
    'to the child (`previous` in its chain, `binding`, `tool_call`, `head` of a checkpoint).',
};
