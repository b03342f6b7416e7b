// The list of runs (GET /v1/runs), newest first, a page at a time.
import { getJson } from './api.js';
import { el, rowOf, viewLink } from './dom.js';
import { moreButton } from './more-button.js';

const headings = ['run', 'first seen', 'tool calls', 'denied', 'events', 'kernel-correlated', 'risky'];

function cells(run) {
  return [
    viewLink({ run: run.run_id }, run.run_id),
    run.first_seen ?? '',
    // the context's tool calls, or more when bindings name others (src/cli/runs-table.ts)
    Math.max(run.tool_calls.count, run.bindings.tool_calls),
    run.tool_calls.denied,
    run.events.count,
    run.events.kernel_correlated,
    run.events.risky,
  ];
}

/** The runs page's nodes, once its first page is read. */
export async function renderRuns() {
  const page = await getJson('/v1/runs');
  if (page.runs.length === 0) {
    return [el('h1', {}, 'Runs'), el('p', { class: 'note' }, 'No runs recorded yet.')];
  }
  const body = el(
    'tbody',
    {},
    page.runs.map((run) => rowOf(cells(run))),
  );
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      headings.map((heading) => el('th', {}, heading)),
    ),
  );
  const more = moreButton(
    page,
    (cursor) => getJson('/v1/runs', { cursor }),
    'runs',
    (run) => body.append(rowOf(cells(run))),
  );
  return [el('h1', {}, 'Runs'), el('table', { id: 'runs' }, head, body), more];
}
