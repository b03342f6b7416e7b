/** What `provd timeline --causality` prints: the run, its tool calls, their process trees, their events. */
import type {
  CausalityProcessNode,
  CausalityToolCallNode,
  CutNodes,
  EventCounts,
  TimelineCausality,
} from '../../views/timeline/timeline-causality.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { formatTree, type TreeNode } from '../output/tree.js';
import { hiddenLine } from './timeline-text.js';
import { plural } from './verify-text.js';

/** The causality tree drawn with box lines; every bound's cut is said, never hidden. */
export function formatCausality(view: TimelineCausality, style: Style): string {
  const root = view.root;
  const children = root.children.map(toolCallNode);
  pushCut(children, root.omitted_children, 'tool call');
  return (
    formatTree({ label: `run ${root.run_id}  ${counts(root.counts)}`, children }, style) + hiddenLine(view)
  );
}

function toolCallNode(node: CausalityToolCallNode): TreeNode {
  const name = node.tool_call_id === null ? 'events no binding attributed' : `tool call ${node.tool_call_id}`;
  const bindings = node.tool_call_id === null ? '' : `, ${node.bindings} ${plural(node.bindings, 'binding')}`;
  const children = node.children.map(processNode);
  pushCut(children, node.omitted_children, 'process');
  return {
    label: `${name}  ${counts(node.counts)}${bindings}${span(node.first_event, node.last_event)}`,
    children,
  };
}

function processNode(node: CausalityProcessNode): TreeNode {
  const what = node.argv?.join(' ') ?? node.binary ?? node.comm;
  const children: TreeNode[] = node.events.map((event) => ({
    label: `${utcTime(event.time)}  ${event.type}  ${event.evidence_level}  ${event.summary}${event.loader_locale ? ' [loader]' : ''}`,
    children: [],
  }));
  if (node.omitted_events.total > 0) {
    children.push({ label: `… ${counts(node.omitted_events)} more, not listed`, children: [] });
  }
  children.push(...node.children.map(processNode));
  pushCut(children, node.omitted_children, 'process');
  return {
    label: `process ${node.tgid ?? '?'} (ppid ${node.ppid ?? '?'})${what == null ? '' : ` ${what}`}  ${counts(node.counts)}`,
    children,
  };
}

/** `7 events (execve 3, secret_path 2)`. */
function counts(of: EventCounts): string {
  const types = Object.entries(of.by_type).map(([type, count]) => `${type} ${count}`);
  return `${of.total} ${plural(of.total, 'event')}${types.length > 0 ? ` (${types.join(', ')})` : ''}`;
}

function span(first: string | null, last: string | null): string {
  return first === null ? '' : `, ${utcTime(first)} .. ${utcTime(last)}`;
}

/** A last child saying what a bound cut, when it cut something. */
function pushCut(children: TreeNode[], cut: CutNodes, what: string): void {
  if (cut.count === 0) return;
  children.push({
    label: `… ${cut.count} more ${plural(cut.count, what)} not shown, holding ${counts(cut.events)}`,
    children: [],
  });
}
