/**
 * GET /api/compare/records and /api/artifact on the main thread: the /api paths over recorded tool
 * calls. Each checks its query string (typia, from the types below, which are also the endpoints'
 * OpenAPI parameters) and forwards one store query. These paths carry no version prefix; their
 * bodies do.
 */
import typia, { type tags } from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Identifier, IntegerIn } from '../../shared/schema/wire-types.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { ObjectHashParam } from '../../model/object-hash.js';
import type { ViewsKinds } from '../views-kinds.js';
import { defaultArtifactBytes, type maxArtifactBytes } from './artifact-bounds.js';
import type { ArtifactAnswer } from './artifact.sql.js';
import type { CompareRecords } from './compare-records.js';

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

/** The query string of GET /api/artifact. */
export interface ArtifactQuery {
  /** the artifact: the sha256 address of its bytes, or its artifact object's hash */
  hash: ObjectHashParam;
  /** most bytes of content in the answer */
  'max-bytes'?: IntegerIn<1, typeof maxArtifactBytes> & tags.Default<typeof defaultArtifactBytes>;
}

/** How the compare-records route reads its query, and its OpenAPI parameters. */
export const compareRecordsQuery = new ParamContract<CompareRecordsQuery>(
  typia.json.schema<CompareRecordsQuery, '3.1'>(),
  typia.createValidate<CompareRecordsQuery>(),
);
/** How the artifact route reads its query, and its OpenAPI parameters. */
export const artifactQuery = new ParamContract<ArtifactQuery>(
  typia.json.schema<ArtifactQuery, '3.1'>(),
  typia.createValidate<ArtifactQuery>(),
);

const recordsEndpoint = queryEndpointOf<ViewsKinds>();

export const compareRecordsEndpoint = recordsEndpoint({
  path: '/api/compare/records',
  operationId: 'api_compare_records',
  summary: 'Two recorded tool calls compared field by field',
  description:
    'Two recorded tool calls (of one run or two; `other-run` and `other-tool-call` default to `run` and ' +
    '`tool-call`) compared field by field: command, args, cwd, executed, status, exit code, signal and error; ' +
    'stdout and stderr by the hash of every byte each carried; file effects matched by path. Both records are in ' +
    'the answer whole. 404 `run_not_found` for an unknown run, `not_found` for a tool call its run does not hold.',
  schema: 'compare_records',
  answerType: () => typia.json.schemas<[CompareRecords], '3.1'>(),
  contract: compareRecordsQuery,
  kind: 'compareRecords',
  params: (query) => ({
    run: query.run,
    toolCall: query['tool-call'],
    otherRun: query['other-run'] ?? query.run,
    otherToolCall: query['other-tool-call'] ?? query['tool-call'],
  }),
});

export const artifactEndpoint = recordsEndpoint({
  path: '/api/artifact',
  operationId: 'api_artifact',
  summary: 'One stored artifact: metadata, who names it, and its bytes (bounded)',
  description:
    'One stored artifact (the bytes a recorded command wrote to stdout or stderr; the first MiB of each stream) by ' +
    'the address of its bytes or by its artifact object: its size, whether it was cut, the artifact objects that ' +
    'name it, the sha256 of its bytes recomputed for the answer (`hash_ok`), and its bytes from the first, at most ' +
    '`max-bytes` (default 65,536): UTF-8 text when they are, else base64; `content.complete` says whether all were shown.',
  schema: 'artifact',
  answerType: () => typia.json.schemas<[ArtifactAnswer], '3.1'>(),
  contract: artifactQuery,
  kind: 'artifact',
  params: (query) => ({ hash: query.hash, maxBytes: query['max-bytes'] ?? defaultArtifactBytes }),
});
