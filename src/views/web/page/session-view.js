// An agent session (GET /v1/timeline?view=session) as nested lists: each prompt, each tool call
// with the gate's decision, its input, result and duration, the processes that carry its id and
// what they did, each with its evidence level. Prompts and tool inputs are the agent's (hostile)
// text: they only ever become text nodes (dom.js). Loader and locale opens are a count line until
// the toggle asks the daemon for them (all=true).
import { getJson } from './api.js';
import { el } from './dom.js';
import { toggledSection } from './loader-toggle.js';

/** The session section, with its toggle; re-reads the view when the toggle changes. */
export function sessionSection(run, session) {
  return toggledSection({
    id: 'session',
    title: 'Agent session',
    toggleId: 'show-loader-opens',
    view: session,
    read: (all) => getJson('/v1/timeline', { run, view: 'session', ...all }),
    render: renderSession,
  });
}

/** The session's counts, then its items as a tree. */
function renderSession(session) {
  const calls = session.counts.tool_calls;
  const summary =
    `${session.agents.join(', ')}: ${counted(session.counts.prompts, 'prompt')}, ${counted(calls.total, 'tool call')}: ` +
    `${calls.allowed} allowed (${calls.completed} completed, ${calls.failed} failed), ${calls.denied} denied`;
  const items = session.items.map((item) =>
    item.item === 'tool_call' ? toolCallItem(item, session.all) : hookItem(item),
  );
  if (session.omitted_items > 0)
    items.push(el('li', { class: 'note' }, `… ${session.omitted_items} more not shown`));
  return [
    el('p', { id: 'session-counts' }, summary),
    el('ul', { class: 'tree', id: 'session-items' }, items),
  ];
}

const hookWords = {
  session_start: 'session start',
  user_prompt: 'prompt',
  stop: 'agent stopped',
  session_end: 'session end',
};

function hookItem(item) {
  return el(
    'li',
    { class: 'session-hook' },
    kind(hookWords[item.event] ?? item.event),
    `${item.time} `,
    item.text === null ? null : textOf(item.text),
    evidence(item.evidence_level),
  );
}

function toolCallItem(call, all) {
  const denied = call.status === 'denied';
  const decision =
    call.decision === null
      ? 'no PreToolUse seen'
      : denied
        ? `DENIED: ${call.decision.decision} by ${call.decision.rule_id}: ${call.decision.reason}`
        : `allowed (${call.decision.rule_id})`;
  const outcome = [
    denied ? null : call.status,
    call.duration_ms === null ? null : `${Math.round(call.duration_ms)} ms`,
  ]
    .filter((part) => part !== null)
    .join(', ');
  const children = [
    el('li', {}, kind('input'), textOf(call.input)),
    call.result === null ? null : el('li', {}, kind('result'), textOf(call.result)),
    call.ran
      ? null
      : el('li', { class: 'note' }, denied ? 'nothing ran: no process carries its id' : 'no process seen'),
    ...call.processes.map((process) => processItem(process, all)),
    call.counts.omitted_events > 0
      ? el('li', { class: 'note' }, `… ${call.counts.omitted_events} more events not listed`)
      : null,
  ];
  return el(
    'li',
    { class: denied ? 'session-call denied' : 'session-call' },
    kind('tool call'),
    el('span', { class: 'mono' }, call.tool_call_id),
    ' ',
    el('span', { class: 'mono' }, call.tool_name),
    ' ',
    el('span', { class: denied ? 'error' : '' }, decision),
    outcome === '' ? '' : `, ${outcome}`,
    evidence(call.evidence_level),
    el('ul', {}, children),
  );
}

function processItem(process, all) {
  const link = process.link;
  const events = process.events.map((event) =>
    el(
      'li',
      { class: event.loader_locale ? 'loader-open' : null },
      kind(event.type),
      `${event.time} `,
      el('span', { class: 'mono' }, event.summary),
      evidence(event.evidence_level),
      event.decision === null
        ? null
        : el('span', { class: 'error' }, ` ${event.decision.decision} by ${event.decision.rule_id}`),
    ),
  );
  if (process.loader_locale_opens > 0 && !all) {
    events.push(
      el('li', { class: 'note folded' }, `+ ${process.loader_locale_opens} loader and locale opens`),
    );
  }
  const name = process.argv === null ? (process.comm ?? '?') : process.argv.join(' ');
  return el(
    'li',
    {},
    kind('process'),
    `pid ${process.tgid ?? '?'} (ppid ${process.ppid ?? '?'}) `,
    el('span', { class: 'mono' }, name),
    ` (${link.evidence_level} by ${link.method}${link.confidence === null ? '' : ` ${link.confidence}`})`,
    el('ul', {}, events),
  );
}

/** A text the agent sent, or its hash when the daemon keeps no text. */
function textOf(text) {
  if (text.text === null) return el('span', { class: 'note' }, `text not stored, ${text.hash}`);
  return el('span', { class: 'mono' }, text.cut ? `${text.text}…` : text.text);
}

/** `1 prompt`, `2 prompts`. */
function counted(count, word) {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function kind(name) {
  return el('span', { class: 'node-kind' }, name);
}

function evidence(level) {
  return el('span', { class: 'note' }, ` [${level}]`);
}
