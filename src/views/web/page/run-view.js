// One run: its verify verdict, its risks, an agent session's view (when hooks wrote the run), its
// timeline and its causality tree, each read from the endpoint a CLI or an agent reads
// (GET /v1/graph/verify, /v1/security/risks, /v1/timeline).
import { getJson } from './api.js';
import { renderCausality } from './causality-view.js';
import { el, rowOf, table, viewLink } from './dom.js';
import { toggledSection } from './loader-toggle.js';
import { moreButton } from './more-button.js';
import { sessionSection } from './session-view.js';

/** The run page's nodes, once all five answers are in; a run nothing names rejects (404). */
export async function renderRun(run) {
  const [verify, risks, session, timeline, causality] = await Promise.all([
    getJson('/v1/graph/verify', { run }, [503]),
    getJson('/v1/security/risks', { run }),
    getJson('/v1/timeline', { run, view: 'session' }),
    getJson('/v1/timeline', { run, view: 'table' }),
    getJson('/v1/timeline', { run, view: 'causality' }),
  ]);
  return [
    el('p', {}, viewLink({}, '← all runs')),
    el('h1', {}, 'Run ', el('span', { class: 'mono', id: 'run-id' }, run)),
    verifySection(verify),
    risksSection(run, risks),
    session.agent_session ? sessionSection(run, session) : null,
    timelineSection(run, timeline),
    causalitySection(run, causality),
  ];
}

/** The verdict first, then what verification found. */
function verifySection(verify) {
  const verdict = el('span', { class: `verdict ${verify.status}`, id: 'verify-status' }, verify.status);
  const counts = `${verify.error_count} errors, ${verify.warning_count} warnings`;
  const issues = verify.issues ?? [];
  return el(
    'section',
    { id: 'verify' },
    el('h2', {}, 'Verify'),
    el('p', {}, 'Evidence chain: ', verdict, ' ', counts),
    verify.error === undefined ? null : el('p', { class: 'error' }, verify.error),
    issues.length === 0
      ? null
      : table(['severity', 'kind', 'id', 'message'], issues, (issue) => [
          issue.severity,
          issue.kind,
          { mono: issue.id },
          issue.message,
        ]),
  );
}

/** A decision with what became of it: `kill: not enforced, the command had ended`. */
function decisionText(risk) {
  return `${risk.decision}: ${risk.response.outcome}`;
}

function riskCells(risk) {
  return [
    risk.severity,
    decisionText(risk),
    risk.rule_id,
    risk.reason,
    risk.evidence_level,
    { mono: risk.tool_call_id ?? '' },
    risk.detected_at,
  ];
}

function risksSection(run, risks) {
  const title = el('h2', {}, 'Risks');
  if (risks.risks.length === 0) {
    return el('section', { id: 'risks' }, title, el('p', { class: 'note' }, 'No risks found.'));
  }
  const headings = ['severity', 'decision', 'rule', 'reason', 'evidence', 'tool call', 'detected'];
  const list = table(headings, risks.risks, riskCells);
  const more = moreButton(
    risks,
    (cursor) => getJson('/v1/security/risks', { run, cursor }),
    'risks',
    (risk) => list.tBodies[0].append(rowOf(riskCells(risk))),
  );
  return el('section', { id: 'risks' }, title, list, more);
}

function entryCells(entry) {
  return [
    entry.time,
    entry.kind,
    entry.evidence_level,
    { mono: entry.kind === 'event' && entry.loader_locale ? `${entry.summary} [loader]` : entry.summary },
    entry.kind === 'event' && entry.risk !== null ? decisionText(entry.risk) : '',
    { mono: entry.tool_call_id ?? '' },
  ];
}

/**
 * The causality tree, with its toggle: loader and locale opens are left out of every node and
 * counted for the run until the toggle asks the daemon for them (all=true), marked `[loader]`.
 */
function causalitySection(run, causality) {
  return toggledSection({
    id: 'causality',
    title: 'Causality',
    toggleId: 'show-causality-loader-opens',
    view: causality,
    read: (all) => getJson('/v1/timeline', { run, view: 'causality', ...all }),
    render: causalityTree,
  });
}

function causalityTree(causality) {
  return [loaderCount('causality-loader-opens', causality), renderCausality(causality.root)];
}

/** The run's count of loader and locale opens: not listed, or listed and marked; none: no line. */
function loaderCount(id, view) {
  const count = view.loader_locale_opens;
  if (count === 0) return null;
  const what = `${count} loader and locale ${count === 1 ? 'open' : 'opens'} of the run`;
  return el('p', { class: 'note', id }, view.all ? `${what}, marked [loader]` : `${what} not listed`);
}

/**
 * The table view's pages, with its toggle: loader and locale opens are a count line until the
 * toggle asks the daemon for them (all=true), marked `[loader]`; each page after is of that set.
 */
function timelineSection(run, timeline) {
  return toggledSection({
    id: 'timeline',
    title: 'Timeline',
    toggleId: 'show-timeline-loader-opens',
    view: timeline,
    read: (all) => getJson('/v1/timeline', { run, view: 'table', ...all }),
    render: (view, all) => timelinePages(run, view, all),
  });
}

function timelinePages(run, timeline, all) {
  const hidden = loaderCount('timeline-loader-opens', timeline);
  if (timeline.entries.length === 0) return [el('p', { class: 'note' }, 'Nothing recorded.'), hidden];
  const headings = ['time', 'kind', 'evidence', 'what', 'decision', 'tool call'];
  const list = table(headings, timeline.entries, entryCells);
  const next = (cursor) => getJson('/v1/timeline', { run, view: 'table', cursor, ...all });
  const more = moreButton(timeline, next, 'entries', (entry) =>
    list.tBodies[0].append(rowOf(entryCells(entry))),
  );
  return [hidden, list, more];
}
