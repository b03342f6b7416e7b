/**
 * GET /v1/graph/explain on the main thread: exactly one node parameter (`file` and `tool-call` also
 * take `run`, and `run` alone names the run itself); any other combination is 400 naming the parameters.
 */
import { ProvdError } from '../../shared/errors.js';
import { queryEndpointOf } from '../../shared/http/query-route.js';
import type { ViewsKinds } from '../views-kinds.js';
import type { ExplainParams, ExplainTarget } from './explain.js';
import { type ExplainQuery, explainQuery, explainContract } from './explain.contract.js';

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
  ...explainContract,
  summary: 'Causal path and basis of a node',
  contract: explainQuery,
  kind: 'explain',
  params: explainTarget,
});
