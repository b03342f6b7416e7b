/**
 * What `provd summary RUN` adds for an agent session, from the session view: its prompts, its tool
 * calls by decision, what each one touched in brief (processes, files written and read, DNS names,
 * destinations; loader and locale opens as a count), and the denied ones with their reasons.
 */
import type { SessionToolCallItem, TimelineSession } from '../../views/timeline/timeline-session.js';
import type { Fact } from '../output/facts.js';
import { toolCallCounts } from './session-text.js';
import { plural } from './verify-text.js';

const written = new Set(['file_write', 'file_rename', 'file_unlink']);
const read = new Set(['file_open', 'file_read', 'secret_path']);
const connects = new Set(['network_connect', 'metadata_ip', 'private_cidr']);
// values of one kind named in a brief line; the rest are counted
const namedMax = 3;

/** The session's facts, to follow the run's. */
export function sessionFacts(view: TimelineSession): Fact[] {
  const { counts } = view;
  const calls = view.items.filter((item): item is SessionToolCallItem => item.item === 'tool_call');
  const facts: Fact[] = [
    ['agent session', view.agents.join(', ')],
    ['  prompts', String(counts.prompts)],
    ['  tool calls', toolCallCounts(counts.tool_calls)],
    ...calls.map((call): Fact => ['  tool call', `${call.tool_call_id} ${call.tool_name}: ${brief(call)}`]),
  ];
  if (view.omitted_items > 0) facts.push(['  not shown', `${view.omitted_items} later items`]);
  if (counts.loader_locale_opens > 0)
    facts.push([
      '  folded',
      `${counts.loader_locale_opens} loader and locale ${plural(counts.loader_locale_opens, 'open')} (provd timeline --all lists them)`,
    ]);
  return facts;
}

/** `allowed, completed: 2 processes (bash, cat); wrote greeting.txt; ...`, or a denial and its reason. */
function brief(call: SessionToolCallItem): string {
  if (call.status === 'denied') {
    const reason =
      call.decision === null
        ? ''
        : ` (${call.decision.decision} by ${call.decision.rule_id}: ${call.decision.reason})`;
    return `DENIED${reason}; ${call.ran ? 'yet events carry its id' : 'nothing ran'}`;
  }
  const outcome = call.status === 'asserted' ? 'no result yet' : call.status;
  if (!call.ran) return `allowed, ${outcome}; no process seen`;
  const events = call.processes.flatMap((process) => process.events.filter((event) => !event.loader_locale));
  const objects = (types: ReadonlySet<string>): string[] => [
    ...new Set(events.filter((event) => types.has(event.type)).map((event) => event.object)),
  ];
  const names = call.processes.map((process) => process.comm ?? '?');
  const parts = [
    `${call.processes.length} ${call.processes.length === 1 ? 'process' : 'processes'} (${[...new Set(names)].join(', ')})`,
    named('wrote', objects(written)),
    named('read', objects(read)),
    named('dns', objects(new Set(['dns_query']))),
    named('connected to', objects(connects)),
    call.counts.loader_locale_opens > 0
      ? `+ ${call.counts.loader_locale_opens} loader and locale opens`
      : null,
    call.counts.omitted_events > 0 ? `${call.counts.omitted_events} events past the listed ones` : null,
  ].filter((part) => part !== null);
  return `allowed, ${outcome}: ${parts.join('; ')}`;
}

function named(verb: string, values: readonly string[]): string | null {
  if (values.length === 0) return null;
  const more = values.length > namedMax ? ` and ${values.length - namedMax} more` : '';
  return `${verb} ${values.slice(0, namedMax).join(', ')}${more}`;
}
