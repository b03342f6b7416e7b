/**
 * The one tool catalog (docs/contract.md "AI tools"): the MCP server, the provider schemas and
 * `provd ai call` are all views of this list, so they show the same nine tools.
 */
import type { AiTool, ToolName } from './ai-tool.js';
import { bindScope } from './tools/bind-scope.js';
import { evaluateAction } from './tools/evaluate-action.js';
import { explain } from './tools/explain.js';
import { getSignals } from './tools/get-signals.js';
import { getTimeline } from './tools/get-timeline.js';
import { listEvents } from './tools/list-events.js';
import { listRisks } from './tools/list-risks.js';
import { recordToolCall } from './tools/record-tool-call.js';
import { verifyRun } from './tools/verify-run.js';

/** The nine tools: six reads, the gate, two context writes. */
export const catalog: readonly AiTool[] = [
  verifyRun,
  explain,
  getSignals,
  getTimeline,
  listRisks,
  listEvents,
  evaluateAction,
  bindScope,
  recordToolCall,
];

const byName = new Map<string, AiTool>(catalog.map((tool) => [tool.name, tool]));

/** The tool named `name`, or undefined. */
export function findTool(name: string): AiTool | undefined {
  return byName.get(name);
}

/** The tool names, in catalog order, for messages. */
export const toolNames: readonly ToolName[] = catalog.map(({ name }) => name);
