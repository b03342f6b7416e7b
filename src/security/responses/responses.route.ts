/** GET /v1/security/responses on the main thread: check parameters, forward the store's bytes. */
import { queryEndpointOf } from '../../shared/http/query-route.js';
import { defaultPageLimit } from '../../model/paging.js';
import { risksQuery } from '../risks.contract.js';
import type { SecurityKinds } from '../security-kinds.js';
import typia from 'typia';
import type { SecurityResponses } from './security-responses.js';

/** Its query string: the risks page's (`run`, `limit`, `cursor`). */
export const responsesQuery = risksQuery;

/** One page of a run's responses; the cursor is checked by the store, which issued it. */
export const responsesEndpoint = queryEndpointOf<SecurityKinds>()({
  path: '/v1/security/responses',
  operationId: 'list_responses',
  summary: 'Response actions taken for a run',
  description:
    "One page of the run's responses, one per risk, in the risks' order (the gate's decisions on the agent's tool calls first, then the decisions on events): what provd did about the risk or what the caller should do. A tool call the gate denied was refused before it ran (status enforced, target the tool call). provd enforces only kill, and only on commands it runs itself (POST /v1/record): it kills the command's cgroup as soon as the decision is made (status enforced, with the outcome). Every other deny, quarantine or kill is recommended to the caller, aimed at the narrowest target the event names (cgroup, process, container, tool call); a detect-only advisory needs none.",
  schema: 'security_responses',
  answerType: () => typia.json.schemas<[SecurityResponses], '3.1'>(),
  contract: responsesQuery,
  kind: 'responses',
  params: ({ run, limit, cursor }) => ({ run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null }),
});
