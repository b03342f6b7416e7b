/**
 * GET /v1/context/{overview,entries,content,compare,links} on the main thread: each checks its
 * query string (typia, from the types below, which are also the endpoints' OpenAPI parameters)
 * and forwards one store query.
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import type { ObjectHashParam } from '../../model/object-hash.js';
import type { ViewsKinds } from '../views-kinds.js';
import type { ContextKind } from './context-entries.sql.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { ContextCompare } from './context-compare.js';
import type { ContextContent } from './context-content.sql.js';
import type { ContextEntries } from './context-entries.sql.js';
import type { ContextLinks } from './context-links.sql.js';
import type { ContextOverview } from './context-overview.sql.js';

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

const contextEndpoint = queryEndpointOf<ViewsKinds>();

export const contextOverviewEndpoint = contextEndpoint({
  path: '/v1/context/overview',
  operationId: 'context_overview',
  summary: "A run's application context at a glance",
  description:
    "A run's application context at a glance: its `context` chain (head object and length), its recorded tool " +
    'calls by status and evidence level, its bindings by source, its output artifacts (count, bytes carried and ' +
    'stored) and file effects by kind, and when its first and latest context objects were stored.',
  schema: 'context_overview',
  answerType: () => typia.json.schemas<[ContextOverview], '3.1'>(),
  contract: contextRunQuery,
  kind: 'contextOverview',
  params: ({ run }) => ({ run }),
});

export const contextEntriesEndpoint = contextEndpoint({
  path: '/v1/context/entries',
  operationId: 'context_entries',
  summary: "One page of a run's context objects, in chain order",
  description:
    "One keyset page of a run's context objects in chain order: the run object (the root), then the bindings, " +
    'tool calls, artifacts, file effects, agent hook events (`hook_event`), the tool inputs, results and prompts ' +
    'they carried (`hook_content`) and `provd watch` starts and ends (`agent_watch`) of its `context` chain, ' +
    'each with its hash, kind, chain index, parents, ' +
    'when it was stored, its tool call and a one-line summary. `kind` keeps one kind. Paged like ' +
    '/v1/telemetry/events (`limit` 1..1000, default 100; `cursor` from `next_cursor`, only with the run and kind it ' +
    'came from).',
  schema: 'context_entries',
  answerType: () => typia.json.schemas<[ContextEntries], '3.1'>(),
  contract: contextEntriesQuery,
  kind: 'contextEntries',
  params: (query) => ({
    run: query.run,
    kind: query.kind ?? null,
    limit: query.limit ?? defaultPageLimit,
    cursor: query.cursor ?? null,
  }),
});

export const contextContentEndpoint = contextEndpoint({
  path: '/v1/context/content',
  operationId: 'context_content',
  summary: 'One object of the graph, its stored bytes and their hash recomputed',
  description:
    'One object of the graph (any kind) by its address, with its stored bytes as they are (`body`: canonical JSON, ' +
    'RFC 8785), its payload, and `recomputed_hash`, the sha256 of `body` computed for the answer: `hash_ok` says it ' +
    'is the address. 404 `not_found` when nothing is stored at the address.',
  schema: 'context_content',
  answerType: () => typia.json.schemas<[ContextContent], '3.1'>(),
  contract: contextObjectQuery,
  kind: 'contextContent',
  params: ({ hash }) => ({ hash }),
});

export const contextCompareEndpoint = contextEndpoint({
  path: '/v1/context/compare',
  operationId: 'context_compare',
  summary: "Two runs' recorded tool calls side by side",
  description:
    "Two runs' recorded tool calls side by side. Calls pair by tool call id, then the rest by the same command and " +
    'args in start order; each pair lists what differs (command, args, cwd, executed, status, exit code, signal, ' +
    'error, each output stream by the hash of all its bytes, the file effects by path); the rest are listed as only ' +
    'in one run. At most 1,000 tool calls per run, the first by start (`complete` says whether that was all).',
  schema: 'context_compare',
  answerType: () => typia.json.schemas<[ContextCompare], '3.1'>(),
  contract: contextCompareQuery,
  kind: 'contextCompare',
  params: (query) => ({ run: query.run, other: query['other-run'] }),
});

export const contextLinksEndpoint = contextEndpoint({
  path: '/v1/context/links',
  operationId: 'context_links',
  summary: "One object's parents and children in the graph",
  description:
    "One object's place in the graph: its parents (with `stored: false` for one the store does not hold) and the " +
    'objects of its run that name it (at most 1,000 listed, all counted), each with `relation`: what the parent is ' +
    'to the child (`previous` in its chain, `binding`, `tool_call`, `head` of a checkpoint).',
  schema: 'context_links',
  answerType: () => typia.json.schemas<[ContextLinks], '3.1'>(),
  contract: contextObjectQuery,
  kind: 'contextLinks',
  params: ({ hash }) => ({ hash }),
});
