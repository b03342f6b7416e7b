/**
 * POST /v1/watch and POST /v1/watch/end: the daemon's side of `provd watch` (watches.ts). The
 * caller proves the stub is its own by the nonce in the stub's environment; the token, when the
 * daemon has one, is checked before as on every endpoint.
 */
import { errorReply } from '../../shared/http/http-reply.js';
import { parseJsonObject } from '../../shared/http/json-body.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import { watchEndRequest, watchRequest } from './watch-request.js';
import type { Watches } from './watches.js';
import typia from 'typia';
import type { WatchAnswer, WatchEndAnswer } from './watch-answer.js';
import type { WatchEndRequest, WatchRequest } from './watch-request.js';

/** POST /v1/watch. */
export const watchEndpoint: Endpoint<{ watches: Watches }> = {
  method: 'POST',
  path: '/v1/watch',
  operationId: 'watch',
  summary: "Bind a waiting provd watch stub's cgroup to a new run, before the agent starts",
  description:
    'Creates the run `run_id` (409 `run_exists` when anything named it before), a cgroup of its own under the ' +
    "daemon's `provd-watch` cgroup, and a `control_plane` binding of that cgroup to the run (tool call `agent`), " +
    'then moves the stub `pid` into it. The stub must be a `provd watch` stub holding `nonce` in its environment ' +
    '(403 `forbidden` otherwise, and when the daemon cannot make cgroups). The stub execs the agent once its ' +
    'client has this answer, so every process of the agent is in the run. See docs/agents.md "Watch an agent".',
  schema: 'watch',
  answerType: () => typia.json.schemas<[WatchAnswer], '3.1'>(),
  body: 'application/json',
  bodyType: () => typia.json.schemas<[WatchRequest], '3.1'>(),
  errors: ['409'],
  conflict: 'RunExists',
  handler:
    ({ watches }) =>
    async (request) => {
      const checked = watchRequest.check(parseJsonObject(request.body));
      if (!checked.ok) return errorReply('invalid_argument', checked.failure.message);
      return watches.start(checked.value);
    },
};

/** POST /v1/watch/end. */
export const watchEndEndpoint: Endpoint<{ watches: Watches }> = {
  method: 'POST',
  path: '/v1/watch/end',
  operationId: 'watch_end',
  summary: 'Say how a watched agent exited; the run is sealed',
  description:
    'Stores the end of the watch of `run_id` (its exit status or signal) and seals the run with a checkpoint. ' +
    'Processes the agent left stay in its cgroup, bound to the run and captured, until they exit; the daemon ' +
    'removes the cgroup once it is empty. 404 `run_not_found` when this daemon watches no such run with this nonce.',
  schema: 'watch_end',
  answerType: () => typia.json.schemas<[WatchEndAnswer], '3.1'>(),
  body: 'application/json',
  bodyType: () => typia.json.schemas<[WatchEndRequest], '3.1'>(),
  errors: ['404'],
  handler:
    ({ watches }) =>
    async (request) => {
      const checked = watchEndRequest.check(parseJsonObject(request.body));
      if (!checked.ok) return errorReply('invalid_argument', checked.failure.message);
      return watches.end(checked.value);
    },
};
