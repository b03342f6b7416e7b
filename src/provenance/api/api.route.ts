/**
 * GET /api/compare/records, /api/search/sources and /api/artifact on the main thread: each checks
 * its query string (typia, from the types below, which are also the endpoints' OpenAPI parameters)
 * and forwards one store query. These paths carry no version prefix; their bodies do.
 */
import typia, { type tags } from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { CleanText, Identifier, IntegerIn } from '../../shared/schema/wire-types.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit, type PageQuery } from '../../telemetry/paging.js';
import { queryRoute } from '../context/query-route.js';
import type { ObjectHashParam } from '../object-hash.js';
import type { ProvenanceQueries } from '../provenance-queries.js';
import { defaultArtifactBytes, type maxArtifactBytes } from './artifact.query.js';

/** The query string of GET /api/compare/records: two recorded tool calls. */
export interface CompareRecordsQuery {
  /** run of the first tool call */
  run: Identifier;
  /** the first tool call */
  'tool-call': Identifier;
  /** run of the second tool call; run when absent */
  'other-run'?: Identifier;
  /** the second tool call; tool-call when absent */
  'other-tool-call'?: Identifier;
}

/** The query string of GET /api/search/sources. */
export interface SearchSourcesQuery extends PageQuery {
  /** the text to find: a case-sensitive substring of a value */
  q: CleanText<1, 256>;
  /** search only this run (else the whole store) */
  run?: Identifier;
}

/** The query string of GET /api/artifact. */
export interface ArtifactQuery {
  /** the artifact: the sha256 address of its bytes, or its artifact object's hash */
  hash: ObjectHashParam;
  /** most bytes of content in the answer */
  'max-bytes'?: IntegerIn<1, typeof maxArtifactBytes> & tags.Default<typeof defaultArtifactBytes>;
}

export const compareRecordsQuery = new ParamContract<CompareRecordsQuery>(
  typia.json.schema<CompareRecordsQuery, '3.1'>(),
  typia.createValidate<CompareRecordsQuery>(),
);
export const searchSourcesQuery = new ParamContract<SearchSourcesQuery>(
  typia.json.schema<SearchSourcesQuery, '3.1'>(),
  typia.createValidate<SearchSourcesQuery>(),
);
export const artifactQuery = new ParamContract<ArtifactQuery>(
  typia.json.schema<ArtifactQuery, '3.1'>(),
  typia.createValidate<ArtifactQuery>(),
);

/** The three routes, by the operationIds of endpoints.ts. */
export function apiRoutes(store: QueryClient<ProvenanceQueries>): {
  api_compare_records: RouteHandler;
  api_search_sources: RouteHandler;
  api_artifact: RouteHandler;
} {
  return {
    api_compare_records: queryRoute(store, 'compare_records', compareRecordsQuery, (query) => ({
      run: query.run,
      toolCall: query['tool-call'],
      otherRun: query['other-run'] ?? query.run,
      otherToolCall: query['other-tool-call'] ?? query['tool-call'],
    })),
    api_search_sources: queryRoute(store, 'search_sources', searchSourcesQuery, (query) => ({
      q: query.q,
      run: query.run ?? null,
      limit: query.limit ?? defaultPageLimit,
      cursor: query.cursor ?? null,
    })),
    api_artifact: queryRoute(store, 'artifact', artifactQuery, (query) => ({
      hash: query.hash,
      maxBytes: query['max-bytes'] ?? defaultArtifactBytes,
    })),
  };
}

/** What each path answers, for the endpoints' descriptions in the OpenAPI document. */
export const apiDescriptions = {
  compareRecords:
    'Two recorded tool calls (of one run or two; `other-run` and `other-tool-call` default to `run` and ' +
    '`tool-call`) compared field by field: command, args, cwd, executed, status, exit code, signal and error; ' +
    'stdout and stderr by the hash of every byte each carried; file effects matched by path. Both records are in ' +
    'the answer whole. 404 `run_not_found` for an unknown run, `not_found` for a tool call its run does not hold.',
  searchSources:
    "Where a text appears in the evidence, as a case-sensitive substring of one value: a recorded tool call's " +
    "command, an argument or cwd; an event's path, rename target, an argv element, destination address or DNS " +
    'name. Each match names its run, id, producer and evidence level. Tool calls come first, then events by ' +
    'position. A page searches at most `scan.window` event positions, so it may hold fewer than `limit` matches, ' +
    'even none, while `has_more` is true; `scan` says how far the search got. `run` keeps one run.',
  artifact:
    'One stored artifact (the bytes a recorded command wrote to stdout or stderr; the first MiB of each stream) by ' +
    'the address of its bytes or by its artifact object: its size, whether it was cut, the artifact objects that ' +
    'name it, the sha256 of its bytes recomputed for the answer (`hash_ok`), and its bytes from the first, at most ' +
    '`max-bytes` (default 65,536): UTF-8 text when they are, else base64; `content.complete` says whether all were shown.',
};
