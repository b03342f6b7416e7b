// The causality tree (GET /v1/timeline?view=causality) as nested lists: the run, its tool calls,
// their process trees, each process's first events, and what the daemon's bounds left out.
import { commandLine, el } from './dom.js';

/** The tree under the run node. */
export function renderCausality(root) {
  return el('ul', { class: 'tree' }, runItem(root));
}

function runItem(node) {
  const label = [kind('run'), el('span', { class: 'mono' }, node.run_id), ` ${countsText(node.counts)}`];
  return el('li', {}, label, children(node.children.map(toolCallItem), node.omitted_children));
}

function toolCallItem(node) {
  const call = node.tool_call;
  const what = call === null ? '' : commandLine(call.command, call.args);
  const outcome =
    call === null ? '' : ` (${call.status}${call.exit_code === null ? '' : `, exit ${call.exit_code}`})`;
  const label = [
    kind(node.tool_call_id === null ? 'unattributed events' : 'tool call'),
    el('span', { class: 'mono' }, node.tool_call_id ?? ''),
    ' ',
    el('span', { class: 'mono' }, what),
    `${outcome} ${countsText(node.counts)}`,
  ];
  return el('li', {}, label, children(node.children.map(processItem), node.omitted_children));
}

function processItem(node) {
  const name = node.argv === null ? (node.binary ?? node.comm ?? '') : node.argv.join(' ');
  const label = [
    kind('process'),
    `pid ${node.tgid ?? '?'} `,
    el('span', { class: 'mono' }, name),
    ` ${countsText(node.counts)}`,
  ];
  const events = node.events.map((event) =>
    el(
      'li',
      {},
      kind(event.type),
      `${event.time} `,
      el('span', { class: 'mono' }, event.loader_locale ? `${event.summary} [loader]` : event.summary),
      ` (${event.evidence_level})`,
    ),
  );
  if (node.omitted_events.total > 0) {
    events.push(el('li', { class: 'note' }, `… ${node.omitted_events.total} more events`));
  }
  const processes = node.children.map(processItem);
  return el('li', {}, label, children([...events, ...processes], node.omitted_children));
}

/** A node's children, and a line for those past the daemon's bounds. */
function children(items, omitted) {
  if (omitted.count > 0) items.push(el('li', { class: 'note' }, `… ${omitted.count} more not shown`));
  return items.length === 0 ? null : el('ul', {}, items);
}

function kind(name) {
  return el('span', { class: 'node-kind' }, name);
}

function countsText(counts) {
  return counts.total === 0 ? '' : `· ${counts.total} events`;
}
