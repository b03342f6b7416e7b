/**
 * What `provd timeline RUN` prints for an agent session (the session view): prompt -> tool call
 * (decision, input, result, duration) -> its processes -> their events, each link with its
 * evidence level; loader and locale opens as one count line unless `--all` listed them.
 */
import type {
  SessionHookItem,
  SessionItem,
  SessionProcess,
  SessionText,
  SessionToolCallCounts,
  SessionToolCallItem,
  TimelineSession,
} from '../../views/timeline/timeline-session.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { formatTree, type TreeNode } from '../output/tree.js';
import { plural } from './verify-text.js';

// characters of an input, result or prompt on one line of the tree (the JSON has them all)
const lineChars = 200;

/** The session as a tree: its items in the order stored, each tool call's processes under it. */
export function formatSession(view: TimelineSession, style: Style): string {
  const children = view.items.map((item) => itemNode(item, view.all));
  if (view.omitted_items > 0)
    children.push(leaf(`… ${view.omitted_items} more ${plural(view.omitted_items, 'item')} not shown`));
  const { counts } = view;
  const label =
    `agent session ${view.run_id} (${view.agents.join(', ')}): ${counts.prompts} ${plural(counts.prompts, 'prompt')}, ` +
    toolCallCounts(counts.tool_calls);
  return formatTree({ label, children }, style);
}

/** `4 tool calls: 3 allowed (2 completed, 1 failed), 1 denied`. */
export function toolCallCounts(calls: SessionToolCallCounts): string {
  const outcomes = [
    [calls.completed, 'completed'],
    [calls.failed, 'failed'],
    [calls.no_result, 'without result'],
  ] as const;
  const allowed = outcomes.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return (
    `${calls.total} ${plural(calls.total, 'tool call')}: ${calls.allowed} allowed` +
    `${allowed.length > 0 ? ` (${allowed.join(', ')})` : ''}, ${calls.denied} denied`
  );
}

/** `+ 6 loader and locale opens (--all lists them)`, or null for none. */
export function foldedLine(count: number, listed: boolean): string | null {
  if (count === 0) return null;
  const what = `${count} loader and locale ${plural(count, 'open')}`;
  return listed ? `(${what} listed, marked [loader])` : `+ ${what} (--all lists them)`;
}

function itemNode(item: SessionItem, all: boolean): TreeNode {
  return item.item === 'hook_event' ? hookNode(item) : toolCallNode(item, all);
}

const hookWords: Record<SessionHookItem['event'], string> = {
  session_start: 'session start',
  user_prompt: 'prompt',
  stop: 'agent stopped',
  session_end: 'session end',
};

function hookNode(item: SessionHookItem): TreeNode {
  const said = item.text === null ? '' : `: ${textOf(item.text)}`;
  return leaf(`${utcTime(item.time)}  ${hookWords[item.event]}${said}  [${item.evidence_level}]`);
}

/** The tool call's line, its input and result, then what ran. */
function toolCallNode(call: SessionToolCallItem, all: boolean): TreeNode {
  const children: TreeNode[] = [leaf(`input: ${textOf(call.input)}`)];
  if (call.result !== null) children.push(leaf(`result: ${textOf(call.result)}`));
  if (!call.ran)
    children.push(
      leaf(call.status === 'denied' ? 'nothing ran: no process carries its id' : 'no process seen'),
    );
  children.push(...call.processes.map((process) => processNode(process, all)));
  if (call.counts.omitted_events > 0)
    children.push(
      leaf(`… ${call.counts.omitted_events} more ${plural(call.counts.omitted_events, 'event')} not listed`),
    );
  const decision =
    call.decision === null
      ? 'no PreToolUse seen'
      : call.status === 'denied'
        ? `DENIED (${call.decision.decision} by ${call.decision.rule_id}: ${call.decision.reason})`
        : `allowed (${call.decision.rule_id})`;
  const outcome = [
    call.status === 'denied' ? null : call.status === 'asserted' ? 'no result yet' : call.status,
    call.duration_ms === null ? null : `${Math.round(call.duration_ms)} ms`,
  ].filter((part) => part !== null);
  const tail = outcome.length > 0 ? `, ${outcome.join(', ')}` : '';
  return {
    label: `${utcTime(call.time)}  tool call ${call.tool_call_id}: ${call.tool_name} ${decision}${tail}  [${call.evidence_level}]`,
    children,
  };
}

function processNode(process: SessionProcess, all: boolean): TreeNode {
  const what = process.argv?.join(' ') ?? process.comm ?? '?';
  const { link } = process;
  const confidence = link.confidence === null ? '' : ` ${link.confidence}`;
  const children = process.events.map((event) =>
    leaf(
      `${utcTime(event.time)}  ${event.summary}  [${event.evidence_level}]` +
        (event.decision === null ? '' : ` [${event.decision.decision} by ${event.decision.rule_id}]`) +
        (event.loader_locale ? ' [loader]' : ''),
    ),
  );
  const folded = foldedLine(process.loader_locale_opens, all);
  if (folded !== null) children.push(leaf(folded));
  return {
    label: `process ${process.tgid ?? '?'} (ppid ${process.ppid ?? '?'}) ${what}  [${link.evidence_level} by ${link.method}${confidence}]`,
    children,
  };
}

/** A text on one line: `(not stored, sha256:...)` when the daemon keeps no text. */
function textOf(text: SessionText): string {
  if (text.text === null) return `(text not stored, ${text.hash})`;
  const flat = text.text.replace(/\s+/g, ' ');
  return flat.length > lineChars || text.cut ? `${flat.slice(0, lineChars)}…` : flat;
}

function leaf(label: string): TreeNode {
  return { label, children: [] };
}
