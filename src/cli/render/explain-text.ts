/** What `provd explain` prints: the node, then each step of its causal path up to the run, and why. */
import type { ExplainBasis, ExplainNode, ExplainResult } from '../../views/explain/explain-result.js';
import type { ToolCallAccount } from '../../views/explain/tool-call-account.js';
import type { Style } from '../output/style.js';
import { truncate, visible } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { plural } from './verify-text.js';

/** The node and its evidence, the path (`↑ relation (method, confidence)  node`), and any file touches. */
export function formatExplain(result: ExplainResult, style: Style): string {
  const fit = (line: string): string =>
    style.width === undefined ? visible(line) : truncate(visible(line), style.width);
  const lines = [nodeLine(result.node), `  ${nodeFacts(result.node)}`];
  lines.push(
    result.complete
      ? `path to the run (${result.path.length} ${plural(result.path.length, 'step')}):`
      : `path, incomplete: ${result.incomplete_reason ?? 'a link is unknown'}`,
  );
  for (const step of result.path) {
    lines.push(`  ↑ ${basisText(step.basis)}`, `    ${nodeLine(step.node)}`);
  }
  if (result.touch_count > 0) {
    lines.push(`touched ${result.touch_count} ${plural(result.touch_count, 'time')}, earliest first:`);
    for (const touch of result.touches) lines.push(`  ${utcTime(touch.time)}  ${touch.label}`);
    const unlisted = result.touch_count - result.touches.length;
    if (unlisted > 0) lines.push(`  … ${unlisted} more not listed`);
  }
  if (result.tool_call !== undefined) lines.push(...accountLines(result.tool_call));
  if (result.other_matches > 0) {
    lines.push(
      `${result.other_matches} other ${plural(result.other_matches, 'node')} share this id; the latest is explained`,
    );
  }
  return lines.map((line) => fit(line) + '\n').join('');
}

/** `event ev-1: secret_path by curl (pid 5311): /root/.ssh/id_rsa`; a label naming its node stands alone. */
function nodeLine(node: ExplainNode): string {
  const name = `${node.kind.replace('_', ' ')} ${node.id}`;
  return node.label.startsWith(name) ? node.label : `${name}: ${node.label}`;
}

function nodeFacts(node: ExplainNode): string {
  return [
    `time ${utcTime(node.time)} UTC`,
    `run ${node.run_id ?? '-'}`,
    `evidence ${node.evidence_level ?? '-'}`,
    `object ${node.object_hash ?? '-'}`,
  ].join('  ');
}

/** `attributed_to (container, confidence 0.92, kernel_correlated, binding bnd_1)`. */
function basisText(basis: ExplainBasis): string {
  const how = [
    basis.method,
    ...(basis.confidence === null ? [] : [`confidence ${basis.confidence}`]),
    ...(basis.evidence_level === null ? [] : [basis.evidence_level]),
    ...(basis.binding_id === null ? [] : [`binding ${basis.binding_id}`]),
  ];
  return `${basis.relation} (${how.join(', ')})`;
}

const printedEvents = 12;

/** A hook tool call's kernel's account: what the agent told, each event and why, what is ambiguous or missing. */
function accountLines(account: ToolCallAccount): string[] {
  const decision = account.decision;
  const lines = [
    `${account.tool_name ?? 'tool'} (${account.status})` +
      (decision === null
        ? ''
        : `, answered ${String(decision['answered'])} by ${String(decision['rule_id'])}`),
    `  input  ${JSON.stringify(account.input)}`,
    `  result ${JSON.stringify(account.result)}`,
    `events tied (${account.event_count}):`,
  ];
  // the answer lists up to 200; a terminal shows the first ones, and --json has them all
  for (const event of account.events.slice(0, printedEvents)) {
    lines.push(
      `  ${utcTime(event.time)}  ${event.type} (${event.method}, confidence ${event.confidence ?? '-'}, ${event.evidence_level}): ${event.subject ?? ''}`,
    );
    if (event.chain.length > 0)
      lines.push(`    process ${event.chain.map((link) => `${link.comm ?? '?'} ${link.tgid}`).join(' ← ')}`);
  }
  const unlisted = account.event_count - Math.min(account.events.length, printedEvents);
  if (unlisted > 0) lines.push(`  … ${unlisted} more not listed`);
  for (const event of account.ambiguous)
    lines.push(
      `ambiguous ${utcTime(event.time)}  ${event.type} (${event.method}, confidence ${event.confidence ?? '-'}): ${event.subject ?? ''}; fits ${event.candidates.join(', ')}`,
    );
  for (const gap of account.missing) lines.push(`missing: ${gap}`);
  return lines;
}
