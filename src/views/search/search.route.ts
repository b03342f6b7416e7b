/**
 * GET /api/search/sources on the main thread: checks its query string (typia, from the type below,
 * which is also the endpoint's OpenAPI parameters) and forwards the store query. The path carries
 * no version prefix; its body does.
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { CleanText, Identifier } from '../../shared/schema/wire-types.js';
import { defaultPageLimit, type PageQuery } from '../../model/paging.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { ViewsKinds } from '../views-kinds.js';
import type { SearchSources } from './search-sources.sql.js';

/** The query string of GET /api/search/sources. */
export interface SearchSourcesQuery extends PageQuery {
  /** the text to find: a case-sensitive substring of a value */
  q: CleanText<1, 256>;
  /** search only this run (else the whole store) */
  run?: Identifier;
}

/** How the search route reads its query, and its OpenAPI parameters. */
export const searchSourcesQuery = new ParamContract<SearchSourcesQuery>(
  typia.json.schema<SearchSourcesQuery, '3.1'>(),
  typia.createValidate<SearchSourcesQuery>(),
);

/** Where a text appears in the evidence, one bounded scan per page. */
export const searchSourcesEndpoint = queryEndpointOf<ViewsKinds>()({
  path: '/api/search/sources',
  operationId: 'api_search_sources',
  summary: 'Where a text appears in the evidence: tool calls and events, paged, each page a bounded scan',
  description:
    "Where a text appears in the evidence, as a case-sensitive substring of one value: a recorded tool call's " +
    "command, an argument or cwd; an event's path, rename target, an argv element, destination address or DNS " +
    'name. Each match names its run, id, producer and evidence level. Tool calls come first, then events by ' +
    'position. A page searches at most `scan.window` event positions, so it may hold fewer than `limit` matches, ' +
    'even none, while `has_more` is true; `scan` says how far the search got. `run` keeps one run.',
  schema: 'search_sources',
  answerType: () => typia.json.schemas<[SearchSources], '3.1'>(),
  contract: searchSourcesQuery,
  kind: 'searchSources',
  params: (query) => ({
    q: query.q,
    run: query.run ?? null,
    limit: query.limit ?? defaultPageLimit,
    cursor: query.cursor ?? null,
  }),
});
