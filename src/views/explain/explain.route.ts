/**
 * GET /v1/graph/explain on the main thread: exactly one node parameter (`file` and `tool-call` also
 * take `run`, and `run` alone names the run itself); any other combination is 400 naming the parameters.
 */
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import { ParamContract } from '../../shared/http/param-contract.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { ViewsKinds } from '../views-kinds.js';
import type { ExplainParams, ExplainTarget } from './explain.js';
import type { ExplainResult } from './explain-result.js';

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

const targets: readonly [keyof ExplainQuery, ExplainTarget][] = [
  ['event', 'event'],
  ['process', 'process'],
  ['tool-call', 'tool_call'],
  ['file', 'file'],
  ['risk', 'risk'],
  ['artifact', 'artifact'],
];

/** The node a query names, or 400 naming what is wrong with the combination. */
export function explainTarget(query: ExplainQuery): ExplainParams {
  const given = targets.filter(([name]) => query[name] !== undefined);
  const run = query.run ?? null;
  const names = (list: readonly (readonly [string, unknown])[]): string =>
    list.map(([name]) => name).join(', ');
  if (given.length > 1)
    throw new ProvdError(
      'invalid_argument',
      `explain takes one node, got ${names(given)}${run === null ? '' : ' and run'}`,
    );
  if (given.length === 0) {
    if (run === null)
      throw new ProvdError(
        'invalid_argument',
        'explain needs one of event, process, tool-call, file (with run), risk, artifact or run',
      );
    return { target: 'run', id: run, run };
  }
  const [[name, target]] = given as [[keyof ExplainQuery, ExplainTarget]];
  if (target === 'file' && run === null)
    throw new ProvdError('invalid_argument', 'file needs run: a path means something only within a run');
  if (target !== 'file' && target !== 'tool_call' && run !== null)
    throw new ProvdError(
      'invalid_argument',
      `${name} names its node alone: run goes only with file or tool-call, or alone`,
    );
  return { target, id: query[name]!, run };
}

/** The node, its causal path to its run, and the basis of every step. */
export const explainEndpoint = queryEndpointOf<ViewsKinds>()({
  path: '/v1/graph/explain',
  operationId: 'explain',
  summary: 'Causal path and basis of a node',
  schema: 'explain',
  answerType: () => typia.json.schemas<[ExplainResult], '3.1'>(),
  contract: explainQuery,
  kind: 'explain',
  params: explainTarget,
});
