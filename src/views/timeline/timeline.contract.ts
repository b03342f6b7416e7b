/**
 * GET /v1/timeline as its callers see it: its query and what it answers, without its
 * handler (timeline.route.ts declares the endpoint from it; an AI tool calls it by it).
 */
import typia from 'typia';
import { ParamContract } from '../../shared/http/param-contract.js';
import type { Identifier } from '../../shared/schema/wire-types.js';
import type { PageQuery } from '../../model/paging.js';
import type { TimelineCausality } from './timeline-causality.js';
import type { TimelineSession } from './timeline-session.js';
import type { TimelineTable } from './timeline-table.js';
import type { EndpointContract } from '../../shared/http/endpoint.js';

/** The views of a run's timeline. */
export type TimelineView = 'table' | 'causality' | 'session';

/** The query string of GET /v1/timeline. */
export interface TimelineQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
  /**
   * `table` (the default): one chronological page of entries, paged by limit and cursor;
   * `causality`: the run as a bounded tree, not paged (limit and cursor are refused);
   * `session`: an agent session, prompt -> tool call -> processes -> their events, not paged
   */
  view?: TimelineView;
  /**
   * `true` lists the loader's and locale's read-only opens of each exec too, each marked
   * `loader_locale: true`; by default they are left out and counted (view=table: the whole run's,
   * in `loader_locale_opens`, the same on every page; view=session: in `counts`; view=causality:
   * out of every node's counts and events, the run's in `loader_locale_opens`). A cursor is of the
   * set it was issued for: pass the same `all` with it
   */
  all?: 'true' | 'false';
}

/** How the timeline route reads its query, and the endpoint's OpenAPI parameters: both from TimelineQuery. */
export const timelineQuery = new ParamContract<TimelineQuery>(
  typia.json.schema<TimelineQuery, '3.1'>(),
  typia.createValidate<TimelineQuery>(),
);

/** GET /v1/timeline: where it is and what it answers. */
export const timelineContract = {
  method: 'GET',
  path: '/v1/timeline',
  operationId: 'get_timeline',
  schema: 'timeline',
  answerType: () => typia.json.schemas<[TimelineTable, TimelineCausality, TimelineSession], '3.1'>(),
} as const satisfies EndpointContract;
