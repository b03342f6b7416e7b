/** `get_timeline`: GET /v1/timeline as a tool. */
import { timelineContract, timelineQuery } from '../../views/timeline/timeline.contract.js';
import { queryTool } from '../query-tool.js';

export const getTimeline = queryTool({
  name: 'get_timeline',
  title: "A run's timeline: context merged with telemetry",
  endpoint: timelineContract,
  query: timelineQuery,
  description:
    'What happened in one run, in order: application context (tool calls, bindings, file effects, ' +
    'artifacts) merged with the runtime events the sensor captured, each entry with its evidence ' +
    'level. `view: "table"` (the default) is one chronological page: pass `next_cursor` back as ' +
    "`cursor` for the next one (`limit` 1..1000, default 100); the loader's and locale's opens of " +
    'each exec are left out and counted for the whole run in `loader_locale_opens` unless `all: "true"` ' +
    '(pass the same `all` with each cursor). `view: "causality"` is a bounded tree ' +
    '(run, tool calls, processes by parent, their first events) with what the bounds cut counted, its ' +
    'loader and locale opens left out and counted in `loader_locale_opens` unless `all: "true"`; it ' +
    'takes no limit or cursor. `view: "session"` tells an agent session (a run its hooks wrote): ' +
    "prompts, tool calls with the gate's decision, input and result, the processes that carry each " +
    'tool call\'s id and what they did; loader and locale opens only counted unless `all: "true"`. ' +
    'Use it to tell the story of a run or to see which tool call did what. ' +
    'Entries marked `context_asserted` are what an agent or harness claimed, not what the kernel saw.',
});
