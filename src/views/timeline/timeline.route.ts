/** GET /v1/timeline on the main thread: check parameters, forward the store's bytes for the view asked. */
import { ProvdError } from '../../shared/errors.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { defaultPageLimit } from '../../model/paging.js';
import type { ViewsKinds } from '../views-kinds.js';
import { timelineQuery, timelineContract } from './timeline.contract.js';

/** How the two views differ, for the endpoint's description. */
const timelineDescription =
  'Three views of one run, told apart by `view` in the body. `table` (the default) is one ' +
  'chronological list that merges application context (tool calls, bindings, file effects, ' +
  'artifacts) with runtime events, each entry with its record; it is keyset-paged like ' +
  '/v1/telemetry/events (`limit`, `cursor`, `next_cursor`, `has_more`). Its loader and locale opens ' +
  'are left out of the pages and counted for the whole run in `loader_locale_opens`; `all=true` ' +
  'lists them, each marked `loader_locale: true`. `causality` is a tree, not ' +
  'a list: run, then tool calls (and one node for events no binding attributed), then processes ' +
  'nested by ppid, then their first events; every node counts its events by type, and what a bound ' +
  'cuts is counted in `omitted_children` / `omitted_events`. Its loader and locale opens are left ' +
  'out of every node and counted for the run in `loader_locale_opens`; `all=true` lists and counts them, each marked. It has no pages: `limit` and `cursor` ' +
  "are refused with it. `session` is an agent session (a run its hooks wrote): the agent's own " +
  "account (prompts, tool calls with the gate's decision, input, result and duration; " +
  '`context_asserted`) in the order stored, each tool call with the processes whose events carry its ' +
  'id and what they did, each link with its evidence level. Loader and locale opens are counted and ' +
  'listed only with `all=true`. Not paged; bounded, with what a bound cuts counted. For a run no ' +
  'hook wrote, `agent_session` is false and `items` empty.';

// the tree is built over every event of the run: a larger run takes longer than a page
const tableDeadlineMs = 10_000;
const causalityDeadlineMs = 60_000;

/** A run's timeline in the view asked for. */
function timelineRoute(store: QueryClient<ViewsKinds>): RouteHandler {
  return async ({ query }) => {
    const { run, view, limit, cursor, all } = timelineQuery.parse(query);
    if (view === 'causality' || view === 'session') {
      const paging = Object.entries({ limit, cursor }).flatMap(([name, value]) =>
        value === undefined ? [] : [name],
      );
      if (paging.length > 0)
        throw new ProvdError(
          'invalid_argument',
          `${paging.join(' and ')} ${paging.length > 1 ? 'are' : 'is'} not accepted with view=${view}: the ${view === 'causality' ? 'tree' : 'session'} is not paged`,
        );
      const body =
        view === 'causality'
          ? await store.query(
              'timelineCausality',
              { run, all: all === 'true' },
              { deadlineMs: causalityDeadlineMs },
            )
          : await store.query(
              'timelineSession',
              { run, all: all === 'true' },
              { deadlineMs: causalityDeadlineMs },
            );
      return { status: 200, body };
    }
    const params = { run, limit: limit ?? defaultPageLimit, cursor: cursor ?? null, all: all === 'true' };
    return {
      status: 200,
      body: await store.query('timelineTable', params, { deadlineMs: tableDeadlineMs }),
    };
  };
}

/** GET /v1/timeline. */
export const timelineEndpoint: Endpoint<{ store: QueryClient<ViewsKinds> }> = {
  ...timelineContract,
  summary:
    'Application context merged with runtime telemetry: a paged table, a causality tree, or an agent session',
  description: timelineDescription,
  query: timelineQuery.parameters,
  handler: ({ store }) => timelineRoute(store),
};
