/**
 * GET /v1/graph/explain as its callers see it: its query and what it answers, without its
 * handler (explain.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { ExplainResult } from './explain-result.js';
import type { EndpointContract } from '../../shared/http/endpoint.js';

/** The query string of GET /v1/graph/explain: one node, by the parameter of its kind. */
export interface ExplainQuery {
  /** event id */
  event?: Identifier;
  /** process: its exec_id, or its tgid (the latest process with that tgid) */
  process?: Identifier;
  /** tool call id (in run when given, else the latest run holding it); an agent's hook tool call also gets its kernel's account (tool_call) */
  'tool-call'?: Identifier;
  /** file path: an event's path, or a recorded file effect's (absolute, or relative to its cwd); needs run */
  file?: string;
  /** risk id */
  risk?: Identifier;
  /** artifact: its object hash, or the sha256 address of its bytes */
  artifact?: Identifier;
  /** run identifier: the run itself when alone; required with file; narrows tool-call to that run */
  run?: Identifier;
}

/** How the explain route reads its query, and the endpoint's OpenAPI parameters. */
export const explainQuery = new ParamContract<ExplainQuery>(
  typia.json.schema<ExplainQuery, '3.1'>(),
  typia.createValidate<ExplainQuery>(),
);

/** GET /v1/graph/explain: where it is and what it answers. */
export const explainContract = {
  method: 'GET',
  path: '/v1/graph/explain',
  operationId: 'explain',
  schema: 'explain',
  answerType: () => typia.json.schemas<[ExplainResult], '3.1'>(),
} as const satisfies EndpointContract;
